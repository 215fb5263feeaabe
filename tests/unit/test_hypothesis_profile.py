"""One hypothesis profile for the whole suite (``tests/conftest.py``): no property test has a
wall-clock deadline, and with ``CI`` set none runs unseeded."""

from __future__ import annotations

import importlib
import os
from collections.abc import Iterator
from typing import Any

from hypothesis import settings

from tests.helpers import PROJECT

CI = bool(os.environ.get("CI"))


def property_tests() -> Iterator[tuple[str, Any]]:
    """Every ``@given`` test function of the suite, by its dotted name, with the settings it runs with."""
    for path in sorted((PROJECT / "tests").rglob("test_*.py")):
        if "hypothesis" not in path.read_text(encoding="utf-8"):
            continue
        name = ".".join(path.relative_to(PROJECT).with_suffix("").parts)
        module = importlib.import_module(name)
        for attr, value in vars(module).items():
            if attr.startswith("test_") and getattr(value, "is_hypothesis_test", False):
                yield f"{name}.{attr}", value._hypothesis_internal_use_settings


def test_the_profile_is_loaded() -> None:
    assert settings.get_current_profile_name() == "memfs"
    assert settings.default.deadline is None
    assert settings.default.derandomize is CI


def test_no_property_test_has_a_deadline_or_runs_unseeded_in_ci() -> None:
    found = dict(property_tests())
    assert len(found) >= 20, sorted(found)
    assert {name for name, s in found.items() if s.deadline is not None} == set()
    assert {name for name, s in found.items() if CI and not s.derandomize} == set()
