"""``memfs eval`` measures right (#27, item 4): system/ files count as injected, the refusal log
survives a purge, a purged memory may be named in ``forbid``, and deletion propagation is timed
for purge as well as forget."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memfs import MemoryRepo
from memfs.agents.evaluate import CaseResult, EvalReport, evaluate, injected_together, load_cases, write_counts
from memfs.errors import UsageError, WriteRefused
from memfs.store import refusal_log
from tests.helpers import Clock, candidate

SECRET = "ghp_aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6"
AT = "2030-01-01T00:00:00Z"


def _cases(tmp_path: Path, *cases: dict) -> Path:
    path = tmp_path / "cases.jsonl"
    path.write_text("".join(json.dumps({"at": AT, "scope": "user:U5", **c}) + "\n" for c in cases))
    return path


def test_system_files_count_as_injected(filled: MemoryRepo, tmp_path: Path) -> None:
    cases = load_cases(_cases(tmp_path, {"task": "when did B17 ship",
                                         "expect": ["system/rules.md", "facts/b17.md"]}), filled.store)
    report = evaluate(filled.store, cases, deletion=False)
    [case] = report.cases
    assert case.ok and "system/rules.md" in case.injected and report.hit_rate == 1.0
    assert report.recalled == case.recalled == len([p for p in case.injected if not p.startswith("system/")])
    forbidden = load_cases(_cases(tmp_path, {"task": "B17", "forbid": ["system/rules.md"]}), filled.store)
    assert not evaluate(filled.store, forbidden, deletion=False).cases[0].ok


def test_refusal_log_survives_purge(filled: MemoryRepo) -> None:
    with pytest.raises(WriteRefused):
        filled.remember(candidate(body=f"The token is {SECRET}", source_kind="agent"), actor="agent:bot")
    assert write_counts(filled.store)["refused"] == 1
    report = filled.purge("facts/b18.md", reason="privacy request")
    assert report.verified
    assert [e.op for e in refusal_log.load(filled.store.cache_dir)] == ["remember"]
    assert write_counts(filled.store)["refused"] == 1


def test_a_purged_memory_can_be_forbidden(filled: MemoryRepo, tmp_path: Path) -> None:
    filled.purge("facts/b18.md", reason="privacy request")
    cases = load_cases(_cases(tmp_path, {"task": "B18 pending review", "forbid": ["facts/b18.md"]}), filled.store)
    report = evaluate(filled.store, cases, deletion=False)
    assert report.cases[0].ok and report.passed
    with pytest.raises(UsageError, match=r"facts/b20\.md: no such committed memory"):
        load_cases(_cases(tmp_path, {"task": "B20", "forbid": ["facts/b20.md"]}), filled.store)
    with pytest.raises(UsageError, match=r"field expect: facts/b18\.md: no such committed memory"):
        load_cases(_cases(tmp_path, {"task": "B18", "expect": ["facts/b18.md"]}), filled.store)


def test_deletion_latency_is_reported_for_purge_and_forget(filled: MemoryRepo, tmp_path: Path) -> None:
    cases = load_cases(_cases(tmp_path, {"task": "when did B17 ship", "expect": ["facts/b17.md"]}), filled.store)
    report = evaluate(filled.store, cases)
    forgotten, purged = report.deletion, report.deletion["purge"]
    assert (forgotten["operation"], purged["operation"]) == ("forget", "purge")
    assert forgotten["still_returned"] == [] and purged["still_returned"] == [] and "error" not in purged
    assert isinstance(purged["seconds"], float)  # reported, never asserted
    assert report.passed
    table = report.table()
    assert "  after forget" in table and "  after purge" in table
    assert (filled.root / "facts/b17.md").exists()  # the scratch runs leave the repository alone


def test_duplicate_rate_counts_both_sides_injected_together(repo: MemoryRepo, clock: Clock, tmp_path: Path) -> None:
    """The seeds' duplicate rate: 0 when context keeps one side of a probable conflict, and the
    judge (read from the files, not from what context says) finds the pair when both are there."""
    old = candidate(scope="user:kai", body="Kai works in Berlin.", type="fact", source_kind="agent", key=None,
                    path="facts/old.md")
    repo.remember(old, actor="agent:bot")
    clock.at(5)
    written = repo.session("user:kai", actor="agent:bot").tool(  # a file tool writes what the model wrote
        {"command": "create", "path": "facts/new.md", "file_text": "Kai works in Paris now.",
         "fields": {"type": "fact", "source": "conversation:C1", "source_kind": "agent"}})
    assert written.ok and "looks like another value" in written.output, written.output
    cases = load_cases(_cases(tmp_path, {"task": "where does Kai work", "scope": "user:kai",
                                         "expect": ["facts/new.md"]}), repo.store)
    report = evaluate(repo.store, cases, deletion=False)
    assert report.duplicate_rate == 0.0 and report.passed and "duplicate rate" in report.table()
    assert report.to_json()["duplicate_pairs_injected"] == 0
    assert injected_together(repo.store, ["facts/old.md", "facts/new.md"]) == [("facts/old.md", "facts/new.md")]
    both = CaseResult("both", ["facts/old.md", "facts/new.md"], [], {}, [], 1, 1, 2,
                      [("facts/old.md", "facts/new.md")])
    assert not both.ok and EvalReport(cases=[both]).duplicate_rate == 1.0 and not EvalReport(cases=[both]).passed
