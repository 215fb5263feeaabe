"""The forgetting policy (``prune``) and consolidation on a generated repository: a dry run changes
nothing, applied is one commit, ``git revert`` of it restores every file byte for byte."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

import pytest

from memfs import MemoryRepo
from memfs.errors import InvalidConfig
from memfs.format.config import parse_config
from memfs.format.model import Memory
from memfs.policy import lineage
from memfs.store import usage
from tests.helpers import commit_all, commit_count, git, hit_paths, put, user_memories, write_file

NOW = dt.datetime(2026, 10, 1, tzinfo=dt.UTC)
OLD = "2026-01-10T00:00:00Z"
RECENT = "2026-09-20T00:00:00Z"
RULES = """format = 1

[prune]
quota = { episode = 3 }
unused_days = { note = 60 }
superseded_days = 30
review_days = 60

[consolidate]
window_days = 14
min_overlap = 0.2
"""


def _files(repo: MemoryRepo) -> dict[str, bytes]:
    return {rel: (repo.root / rel).read_bytes() for rel in sorted(user_memories(repo))}


def _clean(repo: MemoryRepo) -> None:
    assert git(repo.root, "status", "--porcelain") == ""


def _generated(repo: MemoryRepo) -> None:
    """Episodes (some recalled lately), notes used and unused, withdrawn facts, a stale review."""
    write_file(repo.root / ".memfs.toml", RULES)
    for i in range(6):
        day = f"2026-09-0{i + 1}T00:00:00Z"
        put(repo, f"episodes/e{i}.md", f"Deploy {i} went fine.\n", type="episode", created=day, updated=day,
            source=f"ci:{i}", source_kind="tool")
    put(repo, "notes/used.md", "Used lately.\n", type="note", created=OLD, updated=OLD)
    put(repo, "notes/recent.md", "Written lately.\n", type="note", created=RECENT, updated=RECENT)
    put(repo, "notes/idle.md", "Nobody asked.\n", type="note", created=OLD, updated=OLD)
    put(repo, "facts/old-value.md", "Old value.\n", status="superseded", created=OLD, updated=OLD)
    put(repo, "facts/still-cited.md", "Cited.\n", status="expired", created=OLD, updated=OLD)
    put(repo, "notes/cites.md", "Cites it.\n", type="note", depends_on=["facts/still-cited.md"], created=RECENT,
        updated=RECENT)
    put(repo, "facts/gone.md", "Withdrawn root.\n", status="retracted", created=OLD, updated=OLD)
    record = [{"root": "facts/gone.md", "reason": "wrong", "actor": "user:U5"}]
    put(repo, "notes/stale-review.md", "Derived from the wrong one.\n", type="note", status="needs_review",
        depends_on=["facts/gone.md"], invalidated_by=record, created=OLD, updated=OLD)
    put(repo, "notes/downstream.md", "Built on the stale one.\n", type="note", depends_on=["notes/stale-review.md"],
        created=RECENT, updated=RECENT)
    commit_all(repo.root, "generated memories")
    usage.record_recall(repo.store, ["notes/used.md", "episodes/e0.md"], when=dt.datetime(2026, 9, 28, tzinfo=dt.UTC))


def test_prune_dry_run_then_one_commit_then_revert(repo: MemoryRepo) -> None:
    _generated(repo)
    before, head = _files(repo), commit_count(repo)
    dry = repo.prune(now=NOW)
    assert {(p.path, p.action, p.rule) for p in dry.proposals} == {
        ("episodes/e1.md", "expire", "quota:episode"),  # e0 (recalled lately), e5 and e4 are the newest uses
        ("episodes/e2.md", "expire", "quota:episode"),
        ("episodes/e3.md", "expire", "quota:episode"),
        ("notes/idle.md", "expire", "unused:note"),
        ("facts/old-value.md", "archive", "superseded"),
        ("notes/stale-review.md", "retract", "review"),
    }  # notes/used.md was recalled; facts/still-cited.md and facts/gone.md are depended on: they stay
    assert not dry.applied and dry.commit is None
    assert _files(repo) == before and commit_count(repo) == head
    _clean(repo)

    applied = repo.prune(now=NOW, apply=True)
    assert applied.commit and commit_count(repo) == head + 1
    assert applied.archived == {"facts/old-value.md": "archive/facts/old-value.md"}
    assert applied.flagged == ["notes/downstream.md"]
    read = repo.store.read
    assert read("notes/idle.md").status == "expired" and read("episodes/e2.md").status == "expired"
    assert repo.store.read("notes/stale-review.md").status == "retracted"
    downstream = repo.store.read("notes/downstream.md")
    assert downstream.status == "needs_review"
    assert [r.root for r in lineage.invalidations(downstream)] == ["notes/stale-review.md"]
    message = git(repo.root, "log", "-1", "--format=%B")
    assert message.startswith("memfs: prune 6 memories") and "Memfs-Op: prune" in message
    assert "4 expired, 1 archived, 1 retracted" in message
    assert "Memfs-Rule: quota:episode expire episodes/e1.md" in message
    assert repo.validate() == []
    _clean(repo)

    git(repo.root, "revert", "--no-edit", "HEAD")
    assert _files(repo) == before
    assert repo.validate() == []


def test_prune_without_rules_proposes_nothing(repo: MemoryRepo) -> None:
    put(repo, "notes/idle.md", "Nobody asked.\n", type="note", created=OLD, updated=OLD)
    commit_all(repo.root, "one note")
    result = repo.prune(now=NOW, apply=True)
    assert result.proposals == [] and result.commit is None and result.rules.empty


# --- consolidation -------------------------------------------------------------------------------
TIMEOUT = "PDF export timed out on CI runner {n}: the font cache was cold after a re-image."


def _episodes(repo: MemoryRepo) -> None:
    write_file(repo.root / ".memfs.toml", RULES)
    for n, day in enumerate(("2026-09-02", "2026-09-05", "2026-09-09")):
        put(repo, f"episodes/pdf-{n}.md", TIMEOUT.format(n=n) + "\n", type="episode", scope="project:P8",
            source=f"ci:P8/pipelines/{4800 + n}", source_kind="tool", created=f"{day}T10:00:00Z",
            updated=f"{day}T10:00:00Z", expires="2027-03-01T00:00:00Z")
    put(repo, "episodes/later.md", TIMEOUT.format(n=9) + "\n", type="episode", scope="project:P8",
        source="ci:P8/pipelines/4999", source_kind="tool", created="2026-11-20T10:00:00Z",
        updated="2026-11-20T10:00:00Z")  # the same words, two months later: another story
    put(repo, "episodes/elsewhere.md", TIMEOUT.format(n=7) + "\n", type="episode", scope="project:P9",
        source="ci:P9/pipelines/1", source_kind="tool", created="2026-09-03T10:00:00Z")  # another scope
    put(repo, "episodes/login.md", "The login page was slow during the demo on Friday.\n", type="episode",
        scope="project:P8", source="conversation:C8", source_kind="user", created="2026-09-04T10:00:00Z")
    commit_all(repo.root, "episodes")


def test_consolidate_dry_run_then_one_commit_then_revert(repo: MemoryRepo) -> None:
    _episodes(repo)
    before, head = _files(repo), commit_count(repo)
    dry = repo.consolidate(now=NOW)
    [group] = dry.groups
    assert group.sources == ("episodes/pdf-0.md", "episodes/pdf-1.md", "episodes/pdf-2.md")
    assert group.path.startswith("summaries/2026-09-02-") and "3 related episodes in project:P8" in group.summary.body
    assert _files(repo) == before and commit_count(repo) == head
    _clean(repo)

    applied = repo.consolidate(now=NOW, apply=True)
    assert applied.commit and commit_count(repo) == head + 1
    summary = repo.store.read(group.path)
    assert (summary.type, summary.scope, summary.status) == ("summary", "project:P8", "active")
    assert summary.depends_on == group.sources and summary.expires == dt.datetime(2027, 3, 1, tzinfo=dt.UTC)
    assert summary.meta["evidence"] == ["ci:P8/pipelines/4800", "ci:P8/pipelines/4801", "ci:P8/pipelines/4802"]
    assert all(repo.store.read(rel).status == "superseded" for rel in group.sources)
    read = repo.store.read
    assert read("episodes/later.md").status == "active" and read("episodes/login.md").status == "active"
    assert git(repo.root, "log", "-1", "--format=%s").strip() == "memfs: consolidate 3 episodes into 1 summary"
    assert repo.validate() == []
    found = hit_paths(repo.search("font cache", scope="project:P8", at=NOW))
    assert group.path in found and not set(found) & set(group.sources)
    retracted = repo.retract(["episodes/pdf-1.md"], reason="that run was misconfigured")
    assert retracted.plan.flagged == (group.path,)  # the summary is derived from it
    git(repo.root, "revert", "--no-edit", "HEAD")
    _clean(repo)

    git(repo.root, "revert", "--no-edit", "HEAD~2")  # the consolidation itself
    assert _files(repo) == before
    assert repo.validate() == []


def loud(group: Sequence[Memory]) -> str:
    return "# " + " / ".join(m.path for m in group).upper() + "\n"


def test_the_summariser_is_pluggable(repo: MemoryRepo) -> None:
    _episodes(repo)
    [group] = repo.consolidate(now=NOW, apply=True, summariser=loud).groups
    memory = repo.store.read(group.path)
    assert memory.body.startswith("# EPISODES/PDF-0.MD") and memory.description == group.summary.description


def test_consolidate_settings_are_checked() -> None:
    assert parse_config("[consolidate]\nwindow_days = 3\n").consolidate.window_days == 3
    for bad in ("min_overlap = 2", "min_group = 1", "window_days = -1", "min_group = 2.5"):
        with pytest.raises(InvalidConfig, match="consolidate"):
            parse_config(f"[consolidate]\n{bad}\n")
    with pytest.raises(InvalidConfig, match=r"prune\.quota\.episode"):
        parse_config("[prune]\nquota = { episode = -3 }\n")
