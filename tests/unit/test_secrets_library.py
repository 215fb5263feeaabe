"""The detect-secrets plugins' patterns kept in a table (:mod:`memfs.policy.secrets_library`):
the table is the installed library's, the scanner reads it without importing the library, and a
different library version is read from the plugins themselves."""

from __future__ import annotations

import pytest

from memfs.policy import secrets_library, secrets_library_table, secrets_scan


def test_the_table_is_the_installed_librarys_patterns() -> None:
    assert secrets_library.TARGET.read_text(encoding="utf-8") == secrets_library.render(), (
        f"the detect-secrets plugins changed: run {secrets_library.REGENERATE}")


def test_the_table_gives_the_same_patterns_and_checks_as_the_plugins() -> None:
    table = secrets_library.plugin_patterns()
    loaded = secrets_library._loaded()
    assert [(p.module, p.pattern.pattern, p.pattern.flags) for p in table] == [
        (module, pattern.pattern, pattern.flags) for module, pattern, _, _ in loaded]
    assert [p.accept is not None for p in table] == [checks for *_, checks in loaded]


def test_a_jwt_is_still_checked_by_the_plugins_own_check() -> None:
    header = ("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0"
              ".dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PjhHZqx5pX7M")
    assert [f.rule for f in secrets_scan.scan(f"token {header} here")] == ["secret/jwt"]
    assert secrets_scan.scan("eyJnotbase64!!.eyJalsonot.x here") == []


def test_another_library_version_is_read_from_the_plugins(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(secrets_library_table, "VERSION", "0.0-not-installed")
    secrets_library.plugin_patterns.cache_clear()
    try:
        read = secrets_library.plugin_patterns()
        loaded = secrets_library._loaded()
        assert [p.pattern for p in read] == [pattern for _, pattern, _, _ in loaded]  # the plugins' own objects
    finally:
        secrets_library.plugin_patterns.cache_clear()
