"""Sync and propose against a real bare remote (file transport)."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from memfs import MemoryRepo
from memfs.errors import ConflictError, MemfsError, SyncRefused
from memfs.ops.propose import propose
from memfs.ops.sync import BACKUP_PREFIX, Waiting, backups, sync
from tests.helpers import FACT, PERSON, Clock, Clone, bare_repo, commit_all, git, race_pushes, remote_head


def test_sync_pushes_then_the_other_clone_fast_forwards(clone: Clone, remote: Path) -> None:
    a, b = clone("a"), clone("b")
    a.write("facts/one.md", fields=FACT, body="one\n")
    result = sync(a.store)
    assert (result.pushed, result.pulled, result.integrated) == (1, 0, "none")
    assert remote_head(remote) == a.store.git.head()
    result = sync(b.store)
    assert (result.pushed, result.pulled, result.integrated) == (0, 1, "fast-forward")
    assert b.store.read("facts/one.md").body == "one\n"
    assert result.backups == ()
    assert sync(b.store).summary()[0].startswith("up to date with origin/main")


def test_diverged_clones_rebase_with_a_backup_and_keep_authors(clone: Clone, remote: Path) -> None:
    a, b = clone("a"), clone("b")
    a.write("facts/a.md", fields=FACT, body="a\n")
    b.write("facts/b.md", fields=FACT, body="b\n")
    old_b = b.store.git.head()
    sync(a.store)
    result = sync(b.store)
    assert result.integrated == "rebase" and result.pulled == 1 and result.pushed == 1
    (backup,) = result.backups
    assert backup.startswith(BACKUP_PREFIX) and b.store.git.rev(backup) == old_b
    assert backups(b.store) == [(backup, old_b)]
    assert git(b.root, "log", "--format=%an", "-2").split() == ["agent:b", "agent:a"]
    assert b.store.git.head() == remote_head(remote)
    sync(a.store)
    assert a.store.read("facts/b.md").body == "b\n"


def test_merge_mode_from_config_and_flag(clone: Clone) -> None:
    a, b = clone("a"), clone("b")
    a.write("facts/a.md", fields=FACT, body="a\n")
    sync(a.store)
    b.write("facts/b.md", fields=FACT, body="b\n")
    (b.root / ".memfs.toml").write_text('format = 1\n[sync]\nmode = "merge"\n')
    commit_all(b.root, "merge mode")
    result = sync(b.store)
    assert result.integrated == "merge" and result.mode == "merge"
    parents = git(b.root, "log", "-1", "--format=%P").split()
    assert len(parents) == 2
    assert "Memfs-Op: sync" in git(b.root, "log", "-1", "--format=%B")
    a.write("facts/a2.md", fields=FACT, body="a2\n")
    sync(a.store)
    b.write("facts/b2.md", fields=FACT, body="b2\n")
    assert sync(b.store, mode="rebase").integrated == "rebase"


def test_concurrent_field_edits_of_one_memory_are_merged_by_field(clone: Clone) -> None:
    a, b = clone("a"), clone("b")
    a.write("facts/x.md", fields={**FACT, "tags": ["t"]}, body="one\n\ntwo\n")
    sync(a.store)
    sync(b.store)
    a.write("facts/x.md", fields={"tags": ["t", "a"]}, body="one\n\ntwo\n")
    b.write("facts/x.md", fields={"description": "edited", "tags": ["t", "b"]}, body="one\n\ntwo\n")
    sync(a.store)
    result = sync(b.store)
    assert result.integrated == "reconcile" and [s.rule for s in result.reconciled] == ["fields"]
    memory = b.store.read("facts/x.md")
    assert (memory.status, memory.description, memory.tags) == ("active", "edited", ("t", "b", "a"))
    assert memory.revision == 3
    assert b.validate() == []


def test_a_retraction_against_a_concurrent_new_value_is_held_for_review(clone: Clone) -> None:
    """Before: the merged file was retracted with the new value as its body. Now the new value is
    kept, held needs_review for a person, and listed by memfs review; both values are in history."""
    a, b = clone("a"), clone("b")
    a.write("facts/x.md", fields={**FACT, "tags": ["t"]}, body="one\n\ntwo\n")
    sync(a.store)
    sync(b.store)
    a.write("facts/x.md", fields={"status": "retracted"}, actor="user:ops", force=True)
    b.write("facts/x.md", fields={"description": "edited"}, body="one\n\nthree\n")
    sync(a.store)
    result = sync(b.store)
    (item,) = result.review
    assert item.path == "facts/x.md" and item.rule == "review" and "withdrew" in (item.review or "")
    memory = b.store.read("facts/x.md")
    assert (memory.status, memory.body, memory.description) == ("needs_review", "one\n\nthree\n", "edited")
    assert [m.path for g in b.review_queue() for m in g.items] == ["facts/x.md"]
    assert git(b.root, "show", "HEAD^2:facts/x.md").count("status: retracted") == 1
    assert b.validate() == []


def test_a_memory_derived_from_one_the_other_clone_retracted_is_flagged_after_sync(clone: Clone) -> None:
    a, b = clone("a"), clone("b")
    a.write("facts/root.md", fields={**FACT, "key": "root"}, body="the root\n")
    sync(a.store)
    sync(b.store)
    a.retract(["facts/root.md"], reason="the source was wrong")
    b.write("notes/derived.md", fields={**FACT, "type": "note", "depends_on": ["facts/root.md"]}, body="derived\n")
    sync(a.store)
    result = sync(b.store)  # the retracted parent is among what the other side changed
    assert [(s.path, s.rule) for s in result.reconciled] == [("notes/derived.md", "flagged")]
    memory = b.store.read("notes/derived.md")
    assert memory.status == "needs_review" and memory.meta["invalidated_by"][0]["root"] == "facts/root.md"


def test_unrelated_histories_are_refused(tmp_path: Path, remote: Path) -> None:
    other = MemoryRepo.init(tmp_path / "other", actor="agent:other")
    git(other.root, "remote", "add", "origin", str(remote))
    before = remote_head(remote)
    with pytest.raises(SyncRefused, match="share no history"):
        sync(other.store)
    assert remote_head(remote) == before


def test_rewritten_local_history_is_never_force_pushed(clone: Clone, remote: Path) -> None:
    a = clone("a")
    a.write("facts/x.md", fields=FACT, body="one\n")
    sync(a.store)
    published = remote_head(remote)
    git(a.root, *PERSON, "commit", "-q", "--amend", "-m", "rewritten")
    result = sync(a.store)
    assert result.integrated == "rebase" and result.backups
    assert git(remote, "merge-base", "--is-ancestor", published, "main") == ""
    assert remote_head(remote) == a.store.git.head()


def test_a_rejected_push_fetches_and_integrates_again(clone: Clone, remote: Path) -> None:
    a, b = clone("a"), clone("b")
    b.write("facts/b.md", fields=FACT, body="b\n")
    marker = a.root.parent / "raced"
    hook = a.store.git.git_dir / "hooks" / "pre-push"
    race = f'if [ ! -e "{marker}" ]; then touch "{marker}"; git -C "{b.root}" push -q origin main; fi'
    hook.write_text(f"#!/bin/sh\n{race}\n")
    hook.chmod(hook.stat().st_mode | stat.S_IEXEC)
    a.write("facts/a.md", fields=FACT, body="a\n")
    result = sync(a.store)
    assert result.attempts == 2 and result.integrated == "rebase"
    assert {"facts/a.md", "facts/b.md"} <= set(a.store.memory_paths())
    assert remote_head(remote) == a.store.git.head()


def test_uncommitted_tracked_changes_refuse_and_untracked_memories_are_reported(clone: Clone) -> None:
    a = clone("a")
    a.write("facts/x.md", fields=FACT, body="one\n")
    (a.root / "facts/x.md").write_text((a.root / "facts/x.md").read_text() + "more\n")
    with pytest.raises(MemfsError, match=r"uncommitted changes in facts/x\.md"):
        sync(a.store)
    git(a.root, "checkout", "--", "facts/x.md")
    (a.root / "facts/new.md").write_text("---\nid: n\n---\n")
    result = sync(a.store)
    assert result.uncommitted == ("facts/new.md",)
    assert any("not committed yet: facts/new.md" in ln for ln in result.summary())


def test_first_push_to_an_empty_remote_sets_the_upstream(tmp_path: Path) -> None:
    bare = bare_repo(tmp_path / "empty.git", branch=None)
    mem = MemoryRepo.init(tmp_path / "m", actor="agent:t")
    git(mem.root, "remote", "add", "hub", str(bare))
    result = sync(mem.store)
    assert result.pushed == 1 and result.remote == "hub"
    assert git(mem.root, "config", "branch.main.remote").strip() == "hub"
    assert git(bare, "rev-parse", "main").strip() == mem.store.git.head()


def test_hand_edits_of_one_memory_on_both_sides_are_settled_not_text_merged(clone: Clone) -> None:
    """Before, git's text merge (no driver) wrote both confidence lines and sync undid it; now
    sync settles the file by its fields: one confidence, the winner's."""
    a, b = clone("a"), clone("b")
    for repo in (a, b):
        git(repo.root, "config", "--remove-section", "merge.memfs")
    a.write("facts/x.md", fields={**FACT, "description": "d"}, body="one\n")
    sync(a.store)
    sync(b.store)

    def add_line(repo: MemoryRepo, after: str, new: str) -> None:
        path = repo.root / "facts/x.md"
        path.write_text(path.read_text().replace(after + "\n", after + "\n" + new + "\n", 1))
        commit_all(repo.root, "hand edit")

    add_line(a, "scope: user:U5", "confidence: 0.5")
    add_line(b, "description: d", "confidence: 0.7")
    sync(a.store)
    result = sync(b.store)
    assert [(s.path, s.rule) for s in result.reconciled] == [("facts/x.md", "fields")]
    assert b.store.read("facts/x.md").confidence in (0.5, 0.7)
    assert b.validate() == [] and git(b.root, "status", "--porcelain") == ""


def test_detached_head_and_missing_remote_are_explained(repo: MemoryRepo) -> None:
    with pytest.raises(MemfsError, match="no remote to sync with"):
        sync(repo.store)
    git(repo.root, "checkout", "-q", "--detach")
    with pytest.raises(MemfsError, match="HEAD is detached"):
        sync(repo.store)


def test_bad_sync_config_is_named(clone: Clone) -> None:
    a = clone("a")
    (a.root / ".memfs.toml").write_text('[sync]\nmode = "squash"\n')
    with pytest.raises(MemfsError, match=r"\.memfs\.toml: \[sync\] mode = 'squash'"):
        sync(a.store)


# --- propose -------------------------------------------------------------------------------------
def test_propose_pushes_a_review_branch_and_resets_main(clone: Clone, remote: Path) -> None:
    a = clone("a")
    upstream = a.store.git.head()
    a.write("facts/one.md", fields=FACT, body="one\n")
    two = "---\nid: two\ntype: fact\nscope: user:U5\nstatus: active\nsource: s\n---\ntwo\n"
    (a.root / "facts/two.md").write_text(two)
    result = propose(a.store, branch="review/a-1", reason="new facts")
    assert result.committed is not None
    assert len(result.commits) == 2 and result.main_reset
    assert git(remote, "rev-parse", "review/a-1").strip() == result.commits[0][0]
    assert remote_head(remote) == upstream == a.store.git.head()
    assert not (a.root / "facts/one.md").exists()
    assert a.store.git.rev(result.backups[0]) == result.commits[0][0]
    assert result.review_command == "memfs review origin/main..review/a-1"
    assert "Reason: new facts" in git(a.root, "log", "-1", "--format=%B", "review/a-1")
    with pytest.raises(MemfsError, match="nothing to propose"):
        propose(a.store, branch="review/a-2")
    with pytest.raises(MemfsError, match="already exists"):
        propose(a.store, branch="review/a-1")


def test_propose_keep_main_and_invalid_pending_files(clone: Clone) -> None:
    a = clone("a")
    (a.root / "facts").mkdir()
    (a.root / "facts/bad.md").write_text("---\nid: [\n---\n")
    with pytest.raises(MemfsError, match=r"facts/bad\.md"):
        propose(a.store, branch="r1")
    (a.root / "facts/bad.md").unlink()
    a.write("facts/ok.md", fields=FACT, body="ok\n")
    head = a.store.git.head()
    result = propose(a.store, branch="r1", keep_main=True)
    assert not result.main_reset and a.store.git.head() == head


def test_default_branch_names_of_one_second_differ_by_commit(clone: Clone, remote: Path, clock: Clock) -> None:
    """Two proposals by one actor within one second get two branches; the same head twice, a counter."""
    a = clone("a")
    a.write("facts/one.md", fields=FACT, body="one\n")
    first = propose(a.store)
    a.write("facts/two.md", fields=FACT, body="two\n")
    second = propose(a.store)
    stamp = clock().strftime("%Y%m%d-%H%M%S")
    assert first.branch == f"memfs/agent-a/{stamp}-{first.commits[0][0][:7]}"
    assert second.branch == f"memfs/agent-a/{stamp}-{second.commits[0][0][:7]}"
    assert first.branch != second.branch
    for result in (first, second):
        assert git(remote, "rev-parse", result.branch).strip() == result.commits[0][0]
    a.write("facts/three.md", fields=FACT, body="three\n")
    kept = propose(a.store, keep_main=True)
    again = propose(a.store, keep_main=True)
    assert again.branch == kept.branch + "-2"
    assert git(remote, "rev-parse", again.branch).strip() == git(remote, "rev-parse", kept.branch).strip()


# --- retries with backoff, and backups pruned once the remote holds them (#25) ----------------
class _Waits:
    """A :class:`~memfs.ops.sync.Waiting` whose clock moves only when it sleeps."""

    def __init__(self) -> None:
        self.now, self.slept = 0.0, []

    def waiting(self) -> Waiting:
        import random

        return Waiting(clock=lambda: self.now, sleep=self._sleep, rng=random.Random(7))

    def _sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


def test_a_lost_race_is_tried_again_after_a_growing_random_wait(clone: Clone, remote: Path) -> None:
    a, b = clone("a"), clone("b")
    race_pushes(a, b, times=3)
    a.write("facts/a.md", fields=FACT, body="a\n")
    waits = _Waits()
    result = sync(a.store, waiting=waits.waiting())
    assert result.attempts == 4 and remote_head(remote) == a.store.git.head()
    assert len(waits.slept) == 3
    assert all(0 <= w <= 0.1 * 2 ** n for n, w in enumerate(waits.slept))


@pytest.mark.parametrize(("attempts", "budget", "tries"), [(2, None, 2), (None, 0.0, 1)])
def test_the_tries_and_the_time_budget_end_the_retries_and_lose_nothing(
        clone: Clone, remote: Path, attempts: int | None, budget: float | None, tries: int) -> None:
    a, b = clone("a"), clone("b")
    race_pushes(a, b, times=10)
    a.write("facts/a.md", fields=FACT, body="a\n")
    mine = a.store.git.head()
    with pytest.raises(ConflictError, match=rf"kept changing while syncing \({tries} attempts"):
        sync(a.store, attempts=attempts, budget=budget, waiting=_Waits().waiting())
    assert a.store.read("facts/a.md").body == "a\n" and git(a.root, "cherry", "origin/main", "HEAD").startswith("+")
    assert mine != remote_head(remote)


def test_the_retry_settings_come_from_the_configuration_or_the_call(clone: Clone, remote: Path) -> None:
    a, b = clone("a"), clone("b")
    (a.root / ".memfs.toml").write_text("[sync]\nattempts = 1\n")
    commit_all(a.root, "one try")
    race_pushes(a, b, times=10)
    a.write("facts/a.md", fields=FACT, body="a\n")
    with pytest.raises(ConflictError, match=r"\(1 attempts"):
        sync(a.store, waiting=_Waits().waiting())
    with pytest.raises(ConflictError, match=r"\(2 attempts"):
        sync(a.store, attempts=2, waiting=_Waits().waiting())


def test_backups_are_pruned_once_the_remote_holds_them_and_kept_otherwise(clone: Clone, remote: Path) -> None:
    a, b = clone("a"), clone("b")
    a.write("facts/a.md", fields=FACT, body="a\n")
    b.write("facts/b.md", fields=FACT, body="b\n")
    sync(a.store)
    rebased = sync(b.store)
    (made,) = rebased.backups
    assert [ref for ref, _ in backups(b.store)] == [made]  # this sync's own backup stays until the next
    b.store.git.update_ref(f"{BACKUP_PREFIX}00000000T000000000000Z-unpushed", _side_commit(b), "test")
    a.write("facts/c.md", fields=FACT, body="c\n")
    sync(a.store)
    later = sync(b.store)
    left = [ref for ref, _ in backups(b.store)]
    assert made not in left, "its change is on origin/main after the rebase (same patch)"
    assert f"{BACKUP_PREFIX}00000000T000000000000Z-unpushed" in left, "it holds a commit the remote does not"
    assert later.backups == () or set(later.backups) <= set(left)


def _side_commit(repo: MemoryRepo) -> str:
    """A commit beside the branch (never pushed), holding a file nowhere else."""
    git(repo.root, "checkout", "-q", "-b", "side")
    (repo.root / "side.txt").write_text("only here\n")
    git(repo.root, "add", "side.txt")
    git(repo.root, "-c", "user.name=b", "-c", "user.email=b@example.invalid", "commit", "-q", "-m", "side")
    sha = git(repo.root, "rev-parse", "HEAD").strip()
    git(repo.root, "checkout", "-q", "main")
    git(repo.root, "branch", "-q", "-D", "side")
    return sha
