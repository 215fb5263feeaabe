"""The core guard's table of owners, at the guard level: which verb may change which protected
field, the flagging verbs across a session's scope, and the revision floor."""

from __future__ import annotations

from typing import Any

import pytest

from memfs.policy import guard
from memfs.policy.recall import ScopeRule
from tests.helpers import memory_text

AGENT = "agent:bot"
RECORD = '[{root: facts/a.md, reason: gone, actor: "agent:bot"}]'


def _change(before: dict[str, Any], after: dict[str, Any], floor: int = 0) -> guard.FileChange:
    return guard.describe("notes/b.md", memory_text(**before), memory_text(**after), floor=floor)


def _rules(change: guard.FileChange, verb: str, binding: ScopeRule | None = None) -> list[str]:
    return [r.rule for r in guard.check(change, guard.Access(AGENT, verb, binding))]


@pytest.mark.parametrize("verb", ["retract", "forget", "purge", "prune"])
def test_withdrawing_verbs_own_status_and_the_flag_record(verb: str) -> None:
    flagged = _change({}, {"status": "needs_review", "invalidated_by": [{"root": "facts/a.md", "reason": "gone",
                                                                          "actor": AGENT}]})
    assert _rules(flagged, verb) == []
    assert _rules(flagged, "write") == ["protected-field", "protected-field"]


@pytest.mark.parametrize("verb", ["forget", "purge", "prune"])
def test_a_bound_session_flags_what_was_derived_in_other_scopes(verb: str) -> None:
    other = {"scope": "user:U6"}
    flagged = _change(other, {**other, "status": "needs_review",
                              "invalidated_by": [{"root": "facts/a.md", "reason": "gone", "actor": AGENT}]})
    bound = ScopeRule("user:U5")
    assert _rules(flagged, verb, bound) == []
    assert _rules(_change(other, {**other, "description": "edited"}), verb, bound) == ["scope-boundary"]


def test_owners_table_names_the_new_verbs() -> None:
    assert {"forget", "purge", "prune"} <= set(guard.OWNERS["invalidated_by"]) & set(guard.OWNERS["status"])
    assert {"retract", "forget", "purge", "prune"} == guard.FLAGGING


@pytest.mark.parametrize("status", ["expired", "retracted"])
def test_prune_sets_the_status_its_rules_decide(status: str) -> None:
    assert _rules(_change({}, {"status": status}), "prune") == []


def test_consolidate_supersedes_its_sources_and_nothing_else() -> None:
    assert _rules(_change({}, {"status": "superseded"}), "consolidate") == []
    flagged = _change({}, {"status": "needs_review", "invalidated_by": [{"root": "facts/a.md", "reason": "x",
                                                                          "actor": AGENT}]})
    assert _rules(flagged, "consolidate") == ["protected-field"]  # it flags nothing: no closure to follow
    assert _rules(_change({}, {"source": "agent:else"}), "consolidate") == ["protected-field"]


def test_a_revision_moves_above_the_highest_it_ever_had() -> None:
    assert _rules(_change({"revision": 1}, {"revision": 2}), "write") == []
    assert _rules(_change({"revision": 1}, {"revision": 4}, floor=3), "write") == []  # after a revert
    assert _rules(_change({"revision": 1}, {"revision": 2}, floor=3), "write") == ["protected-field"]  # ABA
    assert _rules(_change({"revision": 1}, {"revision": 9}, floor=3), "write") == ["protected-field"]
    assert _rules(_change({"revision": 3}, {"revision": 3}, floor=3), "write") == []


@pytest.mark.parametrize(("actor", "refused"), [("agent:x", True), ("user:ana", False)])
def test_a_revert_of_core_memory_needs_a_person(actor: str, refused: bool) -> None:
    """Replays and integrations own every field, but undoing a change to system/ is a change to
    system/: an agent's revert there is refused like any agent write."""
    before = memory_text("Rules.\n", type="procedure", scope=None)
    after = memory_text("Other rules.\n", type="procedure", scope=None)
    change = guard.describe("system/rules.md", before, after)
    rules = [r.rule for r in guard.check(change, guard.Access(actor, "revert"))]
    assert ("core-memory" in rules) is refused
    assert "core-memory" not in [r.rule for r in guard.check(change, guard.Access("agent:x", "sync"))]


NOW = guard.dt.datetime(2026, 9, 1, 12, 0, tzinfo=guard.dt.UTC)
TIMES = {"created": "2026-09-01T12:00:00Z", "updated": "2026-09-01T12:00:00Z"}


def _timed(change: guard.FileChange, actor: str, verb: str = "write") -> list[str]:
    return [r.rule for r in guard.check(change, guard.Access(actor, verb, now=NOW))]


@pytest.mark.parametrize("actor, refused", [(AGENT, True), ("tool:ci", True), ("user:U5", False)])
@pytest.mark.parametrize("name", ["created", "updated"])
def test_only_memfs_or_a_person_dates_a_new_memory(name: str, actor: str, refused: bool) -> None:
    new = guard.describe("notes/b.md", None, memory_text(**{**TIMES, name: "2020-01-01T00:00:00Z"}))
    assert _timed(new, actor) == (["managed-time"] if refused else [])
    assert _timed(guard.describe("notes/b.md", None, memory_text(**TIMES)), actor) == []  # memfs's own stamp
    assert _timed(new, actor, "sync") == []  # a replay of history keeps its times


def test_an_agent_edit_may_not_backdate_updated() -> None:
    assert _timed(_change(TIMES, {**TIMES, "updated": "2020-01-01T00:00:00Z"}), AGENT) == ["managed-time"]
    assert _timed(_change(TIMES, {**TIMES, "updated": "2026-09-01T12:05:00Z"}), AGENT) == []


@pytest.mark.parametrize("actor, refused", [(AGENT, True), ("tool:ci", True), ("user:U5", False)])
def test_source_kind_system_needs_a_person(actor: str, refused: bool) -> None:
    new = guard.describe("notes/b.md", None, memory_text(source_kind="system"))
    assert _timed(new, actor) == (["system-source"] if refused else [])
    kept = _change({"source_kind": "system"}, {"source_kind": "system", "description": "edited"})
    assert "system-source" not in _timed(kept, actor)


USER_SAID = {"scope": "user:U5", "source_kind": "user", "source": "conversation:C1"}


@pytest.mark.parametrize(("body", "fields", "verb", "actor", "refused"), [
    ("Kai works in Paris now.", {}, "remember", AGENT, True),  # a SUPERSEDE of what the user said
    ("Kai works in Paris now.", {}, "edit", AGENT, True),  # a file tool's edit of its body
    ("Kai works in Berlin.", {"source": "conversation:C9"}, "remember", AGENT, True),  # said elsewhere
    ("Kai works in Paris now.", {}, "remember", "user:U5", False),  # the user
    ("Kai works in Paris now.", {}, "remember", "user:alice", True),  # another person, unforced
    ("Kai works in Berlin.", {"status": "retracted"}, "retract", AGENT, False),  # what was said stays
    ("Kai works in Berlin.", {"description": "where Kai works"}, "edit", AGENT, False),
])
def test_user_source_holds_for_every_change_of_what_the_user_said(body: str, fields: dict[str, Any], verb: str,
                                                                  actor: str, refused: bool) -> None:
    change = guard.describe("facts/kai.md", memory_text("Kai works in Berlin.", **USER_SAID),
                            memory_text(body, **USER_SAID | fields))
    rules = [r.rule for r in guard.check(change, guard.Access(actor, verb))]
    assert ("user-source" in rules) is refused, rules
    vouched = guard.Access(actor, verb, grants=guard.Grants(vouch_user_source=True))
    assert "user-source" not in [r.rule for r in guard.check(change, vouched)]
