"""Deletions reach what was derived: ``forget`` and ``purge`` flag the memories downstream of the
one they withdraw (the closure ``retract`` computes) in the same commit, with the reason; after a
purge no ``depends_on`` points at nothing, and the record names the purged memory only by digest."""

from __future__ import annotations

import hashlib

from memfs import MemoryRepo
from memfs.policy import lineage
from tests.helpers import add, commit_count, git

SECRET = "U5's diagnosis is confidential"


def _derived(repo: MemoryRepo) -> None:
    add(repo, "facts/a.md", body=f"{SECRET}.\n")
    add(repo, "facts/other.md")
    add(repo, "notes/b.md", "facts/a.md", "facts/other.md")
    add(repo, "notes/c.md", "notes/b.md")
    add(repo, "notes/old.md", "facts/a.md", status="retracted")


def test_forget_flags_the_closure_in_the_same_commit(repo: MemoryRepo) -> None:
    _derived(repo)
    before = commit_count(repo)
    result = repo.forget("facts/a.md", reason="U5 asked")
    assert commit_count(repo) == before + 1 and result.commit
    assert result.dependents == ("notes/b.md", "notes/c.md")
    assert repo.store.read("facts/a.md").status == "retracted"
    for rel in ("notes/b.md", "notes/c.md"):
        memory = repo.store.read(rel)
        assert memory.status == "needs_review"
        assert [(r.root, r.reason) for r in lineage.invalidations(memory)] == [("facts/a.md", "U5 asked")]
    assert repo.store.read("notes/old.md").status == "retracted"  # already out of recall: left alone
    message = git(repo.root, "log", "-1", "--format=%B")
    assert message.startswith("memfs: forget facts/a.md (+2 downstream)") and "Memfs-Op: forget" in message
    assert repo.validate() == []
    assert repo.forget("facts/a.md").commit is None  # again: nothing new to flag


def test_purge_flags_the_closure_and_leaves_no_dangling_depends_on(repo: MemoryRepo) -> None:
    _derived(repo)
    report = repo.purge("facts/a.md", reason="privacy request")
    assert report.verified and report.audit_commit
    assert report.flagged == ["notes/b.md", "notes/c.md"] and report.unlinked == ["notes/b.md", "notes/old.md"]
    b, c, old = repo.store.read("notes/b.md"), repo.store.read("notes/c.md"), repo.store.read("notes/old.md")
    assert b.depends_on == ("facts/other.md",) and old.depends_on == () and "depends_on" not in old.meta
    assert (b.status, c.status, old.status) == ("needs_review", "needs_review", "retracted")
    digest = hashlib.sha256(b"facts/a.md").hexdigest()
    assert [r.root for r in lineage.invalidations(b)] == [f"purged:sha256:{digest}"]
    assert [r.reason for r in lineage.invalidations(c)] == ["privacy request"]
    for rel in ("notes/b.md", "notes/c.md", "notes/old.md"):
        text = (repo.root / rel).read_text()
        assert "facts/a.md" not in text and SECRET not in text
    message = git(repo.root, "log", "-1", "--format=%B")
    assert "Memfs-Op: purge" in message and f"Memfs-Purged-Path-Sha256: {digest}" in message
    assert "facts/a.md" not in message and "Memfs-Downstream: 2" in message
    assert repo.validate() == []
    assert repo.retract(["notes/b.md"], reason="the issue's repro: this used to fail").commit
    assert repo.validate() == []
    # reviewing: b still has an independent active source; c only had b
    git(repo.root, "revert", "--no-edit", "HEAD")
    assert repo.reinstate("notes/b.md", reason="other.md still holds").eligibility.basis == ("facts/other.md",)


def test_purge_without_derived_memories_is_an_empty_audit_commit(repo: MemoryRepo) -> None:
    add(repo, "facts/alone.md", body=f"{SECRET}, alone.\n")
    report = repo.purge("facts/alone.md", reason="privacy request")
    assert report.verified and report.flagged == [] and report.unlinked == []
    assert git(repo.root, "show", "--name-only", "--format=", "HEAD").strip() == ""


def test_purge_cuts_the_purged_path_from_distinct_from(repo: MemoryRepo) -> None:
    """A decision that two memories both hold names the other by path: after a purge no file names
    the purged one there either (the audit names it only by digest)."""
    add(repo, "facts/a.md", body=f"{SECRET}.\n")
    add(repo, "facts/other.md")
    add(repo, "facts/b.md")
    for rel, apart in (("facts/b.md", "[facts/a.md]"), ("facts/other.md", "[facts/a.md, facts/b.md]")):
        path = repo.root / rel
        path.write_text(path.read_text().replace("status: active\n", f"status: active\ndistinct_from: {apart}\n"))
    git(repo.root, "commit", "-qam", "both hold")
    report = repo.purge("facts/a.md", reason="privacy request")
    assert report.verified and report.flagged == [] and report.unlinked == ["facts/b.md", "facts/other.md"]
    assert repo.store.read("facts/other.md").distinct_from == ("facts/b.md",)
    b = repo.store.read("facts/b.md")
    assert b.distinct_from == () and "distinct_from" not in b.meta
    assert not [rel for rel in ("facts/b.md", "facts/other.md") if "facts/a.md" in (repo.root / rel).read_text()]
    assert repo.validate() == []
