"""The refusal log (#13, item 5): one line per refused write, rules and known field names only,
kept bounded, and never in the way of the refusal itself."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from memfs.policy.gate import Refusal
from memfs.store import refusal_log

T = dt.datetime(2026, 11, 30, 12, 0, tzinfo=dt.UTC)
SECRET = "ghp_aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6"


def _refusal(rule: str, field: str | None = None) -> Refusal:
    return Refusal(rule, f"found {SECRET}", "remove it", field)


def test_one_line_per_refused_write_with_its_rules(tmp_path: Path) -> None:
    refusal_log.record(tmp_path, [[_refusal("secret/github-token"), _refusal("source-required", "source")],
                                  [_refusal("core-memory")]], op="remember", actor="agent:bot", when=T)
    entries = refusal_log.load(tmp_path)
    assert [(e.op, e.actor_kind, e.rules, e.fields) for e in entries] == [
        ("remember", "agent", ("secret/github-token", "source-required"), ("source",)),
        ("remember", "agent", ("core-memory",), ()),
    ]
    assert entries[0].at == T


@pytest.mark.parametrize(("field", "logged"), [(SECRET, "(other)"), (f"extra.{SECRET}", "(other)"),
                                               (f"tags[0].{SECRET}", "tags"), ("colour", "(other)")])
def test_unknown_field_names_and_messages_never_reach_the_log(tmp_path: Path, field: str, logged: str) -> None:
    refusal_log.record(tmp_path, [[_refusal("secret/github-token", field)]], op="write", actor=f"agent:{SECRET}")
    text = (tmp_path / refusal_log.LOG_FILE).read_text()
    assert SECRET not in text
    assert refusal_log.load(tmp_path)[0].fields == (logged,)


def test_nested_known_fields_are_named_by_their_top_level_key(tmp_path: Path) -> None:
    refusal_log.record(tmp_path, [[_refusal("secret/jwt", "evidence[1].quote")]], op="write", actor="user:U5")
    assert refusal_log.load(tmp_path)[0].fields == ("evidence",)


def test_damaged_lines_are_skipped_and_a_missing_log_is_empty(tmp_path: Path) -> None:
    assert refusal_log.load(tmp_path) == []
    refusal_log.record(tmp_path, [[_refusal("core-memory")]], op="write", actor="agent:x", when=T)
    with (tmp_path / refusal_log.LOG_FILE).open("a") as log:
        log.write('{"at": "yesterday"}\n[1, 2]\nnot json\n{"at": "2026-11-30T12:00:00", "op": "w", '
                  '"actor_kind": "agent", "rules": []}\n')
    refusal_log.record(tmp_path, [[_refusal("user-source")]], op="write", actor="agent:x", when=T)
    assert [e.rules for e in refusal_log.load(tmp_path)] == [("core-memory",), ("user-source",)]


def test_the_log_keeps_its_newer_half_when_it_grows_past_the_limit(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(refusal_log, "MAX_BYTES", 2_000)
    for minute in range(60):
        refusal_log.record(tmp_path, [[_refusal("core-memory")]], op="write", actor="agent:x",
                           when=T + dt.timedelta(minutes=minute))
    entries = refusal_log.load(tmp_path)
    assert (tmp_path / refusal_log.LOG_FILE).stat().st_size <= 2_000
    assert 0 < len(entries) < 60 and entries[-1].at == T + dt.timedelta(minutes=59)
    assert entries == sorted(entries, key=lambda e: e.at)


def test_a_log_that_cannot_be_written_is_skipped_silently(tmp_path: Path) -> None:
    blocked = tmp_path / "file-not-folder"
    blocked.write_text("x")
    refusal_log.record(blocked, [[_refusal("core-memory")]], op="write", actor="agent:x")
    assert refusal_log.load(blocked) == []
