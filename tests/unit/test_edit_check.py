"""The minimal-diff editor's check: with the parsed frontmatter at hand, a frontmatter of one whole
key per line is checked by reading only the changed lines (#17); it must decide exactly as the
full re-parse does, on any frontmatter, and hand back the same mapping in the same order."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from memfs.format import yamlio

KEYS = ["status", "invalidated_by", "revision", "updated", "a", "b", "c"]
#: Lines of every shape a hand-edited frontmatter may have ({k}: a key).
LINES = [
    "{k}: plain value", "{k}: 'single # quoted'", '{k}: "dq \\x41"', "{k}: [a, b, c]", "{k}: {{x: 1, y: [2]}}",
    "{k}: 2026-01-01T00:00:00Z", "{k}: 12", "{k}: 1.10", "{k}: yes", "{k}: ~", "{k}:", "{k}: value  # comment",
    "{k}: &a anchored", "{k}: *a", "{k}: !!str 5", "{k}: |\n  block\n  text", "{k}: >\n  folded", "{k}: [a,\n  b]",
    "{k}:\n  - x\n  - y", "{k}:\n  nested: 1", "# a comment", "", "{k}: a > b", "{k}: R&D", '"{k} q": 1',
    "{k}: 'multi\n  line'", "{k}: plain\n  continued", '"{k}": quoted key', "{k}: x\x85y", "{k}: [a, *a]",
    "{k}: 1e3", "{k}: 0x1F", "{k}: -", "{k}: {{}}", "{k}: []", "? {k}\n: complex",
]
NOW = dt.datetime(2026, 12, 1, 12, 0, tzinfo=dt.UTC)
VALUES = st.one_of(
    st.none(),
    st.integers(-5, 10**6),
    st.text(max_size=12),
    st.sampled_from(["needs_review", "yes", "a: b", "# x", "&a", "*a", "R&D", "x > y", "1.10"]),
    st.just(NOW),
    st.lists(st.fixed_dictionaries({"root": st.text(max_size=8), "at": st.just(NOW)}), max_size=2),
)


def _frontmatter(draw: st.DrawFn) -> str:
    picks = draw(st.lists(st.tuples(st.sampled_from(LINES), st.sampled_from(KEYS)), max_size=8))
    return "".join(line.format(k=key) + "\n" for line, key in picks)


@st.composite
def _case(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    return _frontmatter(draw), draw(st.dictionaries(st.sampled_from([*KEYS, "new_key"]), VALUES, max_size=4))


def _outcome(frontmatter: str, changes: dict[str, Any], before: Any) -> object:
    try:
        text, mapping = yamlio.edit_checked(frontmatter, changes, before=before)
    except ValueError as exc:
        return type(exc)
    return text, list(mapping.items())


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(_case())
@example(("status: active\nrevision: 2\n", {"status": "needs_review", "revision": 3}))
@example(("status: active  # by hand\nx: [a, b]\n", {"status": None, "new_key": [{"root": "r", "at": NOW}]}))
@example(("a: &x 1\nb: *x\n", {"a": 2}))
def test_the_line_check_decides_as_the_full_check(case: tuple[str, dict[str, Any]]) -> None:
    frontmatter, changes = case
    try:
        before = yamlio.load(frontmatter) if frontmatter.strip() else {}
    except yamlio.YamlError:
        before = None
    assume(isinstance(before, dict) and all(isinstance(k, str) for k in before))
    assert _outcome(frontmatter, changes, before) == _outcome(frontmatter, changes, None)


def test_a_line_per_key_frontmatter_is_checked_by_its_changed_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    def full_check(*args: object) -> None:
        raise AssertionError("the full check ran")

    monkeypatch.setattr(yamlio, "_check_edit", full_check)
    text = "id: a\nstatus: active  # by hand\nrevision: 2\ntags: [x, y]\n"
    result, mapping = yamlio.edit_checked(text, {"status": "needs_review", "revision": 3}, before=yamlio.load(text))
    assert result == "id: a\nstatus: needs_review  # by hand\nrevision: 3\ntags: [x, y]\n"
    assert list(mapping.items()) == [("id", "a"), ("status", "needs_review"), ("revision", 3), ("tags", ["x", "y"])]
    anchored = "a: &x 1\nb: *x\n"
    with pytest.raises(AssertionError, match="the full check ran"):
        yamlio.edit_checked(anchored, {"a": 2}, before=yamlio.load(anchored))
