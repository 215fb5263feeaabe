"""The rules sync settles concurrent changes to one memory by (pure: policy/concurrent.py)."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from memfs.format.parse import parse
from memfs.policy import concurrent, gate
from memfs.policy.concurrent import Side, settle
from tests.helpers import memory_text

NOW = dt.datetime(2026, 12, 2, 6, 0, tzinfo=dt.UTC)
PATH = "facts/format.md"
BASE: dict[str, Any] = {"key": "format", "revision": 2, "updated": "2026-12-01T10:00:00+00:00"}


def text(body: str = "use markdown", **fields: Any) -> bytes:
    return memory_text(body, **{**BASE, **fields}).encode()


def run(base: bytes | None, local: bytes | None, upstream: bytes | None,
        actors: tuple[str, str] = ("agent:a", "agent:b")) -> concurrent.Settled:
    return settle(PATH, base, Side(local, actors[0]), Side(upstream, actors[1]), NOW, "agent:sync")


def after(result: concurrent.Settled) -> Any:
    assert result.content is not None
    return parse(PATH, result.content)


LATER = "2026-12-01T12:00:00+00:00"
EARLIER = "2026-12-01T11:00:00+00:00"

#: (case, base, local, upstream, rule, winner, body afterwards, status afterwards)
CASES = [
    ("same bytes", text(), text("x", revision=3), text("x", revision=3), "same", None, "x\n", "active"),
    ("local kept the ancestor", text(), text(), text("y", revision=3), "one-sided", "upstream", "y\n", "active"),
    ("concurrent supersede, higher revision wins", text(), text("a", revision=4, updated=EARLIER),
     text("b", revision=3, updated=LATER), "supersede", "local", "a\n", "active"),
    ("concurrent supersede, same revision, later wins", text(), text("a", revision=3, updated=EARLIER),
     text("b", revision=3, updated=LATER), "supersede", "upstream", "b\n", "active"),
    ("concurrent insert of one subject", None, text("a", revision=1, updated=LATER),
     text("b", revision=1, updated=EARLIER), "supersede", "local", "a\n", "active"),
    ("retraction against a new value: review", text(), text(status="retracted", revision=3),
     text("new value", revision=3), "review", "upstream", "new value\n", "needs_review"),
    ("new value against a retraction: review", text(), text("new value", revision=3),
     text(status="retracted", revision=3), "review", "local", "new value\n", "needs_review"),
    ("value change against a reinforcement", text(), text(confidence=0.96), text("other", revision=3),
     "value", "upstream", "other\n", "active"),
    ("retraction against a reinforcement", text(), text(status="retracted", revision=3), text(confidence=0.96),
     "fields", "local", "use markdown\n", "retracted"),
    ("deletion against a change: review", text(), None, text("changed", revision=3), "review", "upstream",
     "changed\n", "needs_review"),
]


@pytest.mark.parametrize(("case", "base", "local", "upstream", "rule", "winner", "body", "status"), CASES,
                         ids=[c[0] for c in CASES])
def test_the_settle_rules(case: str, base: bytes | None, local: bytes | None, upstream: bytes | None, rule: str,
                          winner: str | None, body: str, status: str) -> None:
    result = run(base, local, upstream)
    assert (result.rule, result.winner) == (rule, winner)
    memory = after(result)
    assert (memory.body, memory.status) == (body, status)
    assert memory.errors == []
    if rule in ("supersede", "value", "fields", "review"):
        sides = [parse(PATH, d).revision for d in (local, upstream) if d is not None]
        assert memory.revision == max(sides) + 1
    assert (result.review is not None) == (rule == "review")


def test_the_outcome_does_not_depend_on_which_clone_settles() -> None:
    a, b = text("a", revision=3), text("b", revision=3)
    assert after(run(text(), a, b)).body == after(run(text(), b, a)).body
    assert run(text(), a, b).content == run(text(), b, a).content


def test_a_person_outranks_an_agent_at_equal_revision_and_time() -> None:
    a, b = text("agent value", revision=3), text("person value", revision=3)
    assert after(run(text(), a, b, ("agent:a", "user:ana"))).body == "person value\n"
    assert after(run(text(), b, a, ("user:ana", "agent:a"))).body == "person value\n"


def test_a_review_item_is_held_like_a_gate_downgrade_and_keeps_the_asked_confidence() -> None:
    result = run(text(), text(status="retracted", revision=3), text("new value", revision=3, confidence=0.9))
    memory = after(result)
    record = memory.meta[gate.RECORD]
    assert record["rule"] == concurrent.CONCURRENT_RETRACTION and record["confidence"] == 0.9
    assert memory.confidence == gate.DOWNGRADED_CONFIDENCE and "agent:a" in record["reason"]


def test_two_subjects_added_at_one_path_are_both_kept() -> None:
    mine, theirs = text(scope="agent:a"), text(scope="agent:b")
    result = run(None, mine, theirs)
    assert (result.rule, result.content, result.relocate) == ("keep-both", theirs, mine)
    moved = concurrent.relocated(PATH, "facts/format--agent-a.md", text(scope="agent:a", id="facts/format"))
    assert parse("facts/format--agent-a.md", moved).id == "facts/format--agent-a"


def test_a_side_that_does_not_parse_is_left_to_git() -> None:
    assert run(text(), b"---\nbroken: [\n---\nx\n", text("y", revision=3)).rule == "unreadable"


def test_orphans_are_active_memories_derived_from_a_retracted_one_transitively() -> None:
    def mem(path: str, status: str = "active", **fields: Any) -> Any:
        return parse(path, memory_text("x", status=status, **fields).encode())

    known = {
        "facts/gone.md": mem("facts/gone.md", "retracted"),
        "notes/new.md": mem("notes/new.md", depends_on=["facts/gone.md"]),
        "notes/newer.md": mem("notes/newer.md", depends_on=["notes/new.md"]),
        "notes/fine.md": mem("notes/fine.md", depends_on=["facts/other.md"]),
        "facts/other.md": mem("facts/other.md"),
        "notes/cleared.md": mem("notes/cleared.md", depends_on=["facts/gone.md"], reinstated={"reason": "ok"}),
    }
    changed = {p: m for p, m in known.items() if p.startswith("notes/")}
    assert concurrent.orphans(changed, known) == {
        "notes/new.md": ["facts/gone.md"], "notes/newer.md": ["facts/gone.md"],
    }


def test_one_subject_active_in_two_files_keeps_the_newest_and_only_when_the_integration_touched_it() -> None:
    """One clone retracted a memory and remembered the subject anew at a new path; the other
    changed the old file: after the merge both files are active for one subject."""
    def mem(path: str, updated: str, **fields: Any) -> Any:
        return parse(path, memory_text("x", key="lang", updated=updated, **fields).encode())

    known = {
        "facts/lang.md": mem("facts/lang.md", "2026-01-02T00:00:00Z", revision=5),
        "facts/lang-2.md": mem("facts/lang-2.md", "2026-01-01T00:00:00Z", revision=2),
        "facts/lang-3.md": mem("facts/lang-3.md", "2026-01-03T00:00:00Z", status="retracted"),
        "facts/other.md": mem("facts/other.md", "2026-01-01T00:00:00Z", scope="team:y"),
    }
    assert concurrent.duplicates(known, ["facts/lang-2.md"]) == {"facts/lang-2.md": "facts/lang.md"}
    assert concurrent.duplicates(known, ["facts/other.md"]) == {}  # a duplicate nobody just made is validate's
    tie = {p: mem(p, "2026-01-01T00:00:00Z") for p in ("a.md", "b.md")}
    assert concurrent.duplicates(tie, ["a.md"]) == {"a.md": "b.md"}  # a total order: every clone agrees


def test_the_merge_driver_holds_a_retraction_against_a_new_value_too(tmp_path: Any) -> None:
    from memfs.ops import mergedriver

    files = {name: tmp_path / name for name in ("base", "ours", "theirs")}
    for name, data in (("base", text()), ("ours", text(status="retracted", revision=3)),
                       ("theirs", text("new value", revision=3))):
        files[name].write_bytes(data)
    assert mergedriver.run(files["base"], files["ours"], files["theirs"], PATH)
    memory = parse(PATH, files["ours"].read_bytes())
    assert (memory.status, memory.body, memory.meta[gate.RECORD]["rule"]) == (
        "needs_review", "new value\n", concurrent.CONCURRENT_RETRACTION)
