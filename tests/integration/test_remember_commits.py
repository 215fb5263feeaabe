"""What ``remember``'s cheaper commit path (#17) must keep: each commit holds exactly the paths
the operation wrote, whatever else is dirty, staged or untracked; a hand edit or a hand commit
made between two calls is seen by the next one; and the caches a commit moves forward itself
(idempotency keys, revision marks, the write-path cache) say what a full re-read of history says.
Also pinned: which git commands a run of ``remember`` calls starts (no ``merge-base``, ``log``
or ``diff`` once the caches follow memfs's own commits)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from memfs import MemoryRepo
from memfs.ops import idempotency
from memfs.store import catalog, gitcli, revisions
from tests.helpers import PERSON, commit_all, count_git_commands, git, put

FACT: dict[str, Any] = {"type": "fact", "scope": "user:U5", "source": "conversation:C1"}


def _committed_paths(root: Path) -> set[str]:
    return set(git(root, "show", "--name-only", "--format=", "HEAD").split())


def _remember(repo: MemoryRepo, key: str, body: str, **extra: Any) -> Any:
    return repo.remember({**FACT, "key": key, "body": body, **extra})


def test_remember_commits_only_its_own_paths_whatever_else_is_dirty(repo: MemoryRepo) -> None:
    first = _remember(repo, "colour", "The colour is blue.")
    put(repo, "facts/tracked.md", "tracked\n", **FACT)
    commit_all(repo.root, "tracked by hand")
    (repo.root / "facts/tracked.md").write_text((repo.root / "facts/tracked.md").read_text() + "hand edit\n")
    put(repo, "facts/staged.md", "staged\n", **FACT)
    git(repo.root, "add", "facts/staged.md")
    put(repo, "notes/untracked.md", "untracked\n", **FACT)

    update = _remember(repo, "colour", "The colour is green now.")  # a tracked file: commit --only alone
    assert update.paths == first.paths and _committed_paths(repo.root) == set(first.paths)
    new = _remember(repo, "size", "The size is large.")  # a new file: added, then committed
    assert _committed_paths(repo.root) == set(new.paths)

    status = git(repo.root, "status", "--porcelain", "--untracked-files=all")
    assert " M facts/tracked.md" in status and "A  facts/staged.md" in status and "?? notes/untracked.md" in status
    assert git(repo.root, "diff", "--cached", "--name-only").split() == ["facts/staged.md"]


def test_an_untracked_memory_written_by_hand_is_superseded_and_committed(repo: MemoryRepo) -> None:
    put(repo, "facts/by-hand.md", "The answer is 41.\n", **FACT, key="answer")
    outcome = _remember(repo, "answer", "The answer is 42.")
    assert outcome.op.value == "SUPERSEDE" and outcome.paths == ("facts/by-hand.md",)
    assert _committed_paths(repo.root) == {"facts/by-hand.md"}
    assert git(repo.root, "status", "--porcelain", "--", "facts/by-hand.md") == ""


def test_a_hand_edit_and_a_hand_file_between_two_remembers_are_seen(repo: MemoryRepo) -> None:
    first = _remember(repo, "colour", "The colour is blue.")
    _remember(repo, "size", "The size is large.")
    path = repo.root / first.paths[0]
    path.write_text(path.read_text(encoding="utf-8").replace("key: colour", "key: hue"), encoding="utf-8")
    put(repo, "facts/weight.md", "The weight is 3 kg.\n", **FACT, key="weight")

    moved = _remember(repo, "hue", "The colour is blue.")  # found under its new key: the same value, NOOP
    assert moved.paths == first.paths and moved.op.value == "NOOP"
    assert _remember(repo, "colour", "The colour is red.").op.value == "INSERT"
    assert _remember(repo, "weight", "The weight is 4 kg.").paths == ("facts/weight.md",)


def test_a_key_applied_by_a_hand_commit_between_two_remembers_is_seen(repo: MemoryRepo) -> None:
    _remember(repo, "colour", "The colour is blue.", idempotency_key="one")
    put(repo, "facts/other.md", "other\n", **FACT)
    git(repo.root, "add", "-A")
    git(repo.root, *PERSON, "commit", "-qm", f"by hand\n\n{idempotency.TRAILER}: two")

    again = _remember(repo, "size", "The size is large.", idempotency_key="two")
    assert again.op.value == "NOOP" and again.commit is None
    assert _remember(repo, "size", "The size is large.", idempotency_key="three").op.value == "INSERT"
    cached = idempotency.applied_keys(repo.store)
    idempotency.drop_cache(repo.store)
    assert idempotency.applied_keys(repo.store) == cached and set(cached) == {"one", "two", "three"}


def test_the_caches_moved_by_commits_equal_a_full_reread(repo: MemoryRepo) -> None:
    for n in range(3):
        _remember(repo, f"k{n}", f"Value {n}.", idempotency_key=f"key-{n}")
        _remember(repo, f"k{n}", f"Value {n}.", source="conversation:C2", idempotency_key=f"again-{n}")  # REINFORCE
        _remember(repo, f"k{n}", f"Value {n} changed.", idempotency_key=f"change-{n}")
    head = git(repo.root, "rev-parse", "HEAD").strip()
    marks = revisions.marks(repo.store.git, repo.store.pathspec)
    cached = catalog.current(repo.store)
    assert marks[0] == head and cached is not None and cached.head == head
    files = {rel: (f.id, f.scope, f.key, f.version, f.deps) for rel, f in cached.files.items()}

    revisions.cache_path(repo.store.git.git_dir, repo.store.pathspec).unlink()
    revisions._memo.clear()
    revisions._ahead.clear()
    catalog.drop(repo.store)
    assert revisions.marks(repo.store.git, repo.store.pathspec) == marks
    rebuilt = catalog.current(repo.store)
    assert rebuilt is not None
    assert {rel: (f.id, f.scope, f.key, f.version, f.deps) for rel, f in rebuilt.files.items()} == files


def test_a_run_of_remembers_asks_git_only_for_status_blobs_and_the_commit(
    repo: MemoryRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    _remember(repo, "warm", "Warm-up.", idempotency_key="warm")
    started = count_git_commands(monkeypatch)
    _remember(repo, "colour", "The colour is blue.", idempotency_key="a")  # INSERT
    _remember(repo, "colour", "The colour is blue.", source="conversation:C2", idempotency_key="b")  # REINFORCE
    _remember(repo, "colour", "The colour is green.", idempotency_key="c")  # SUPERSEDE
    assert set(started) <= {"status", "cat-file", "add", "commit"}, started
    assert started["status"] == started["commit"] == 3 and started["add"] == 1


def test_head_and_parents_read_from_files_say_what_git_says(tmp_path: Path) -> None:
    root = tmp_path / "plain"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    git_repo = gitcli.Git(root, root / ".git")

    def expected() -> tuple[str, tuple[str, ...]]:
        sha, *parents = git(root, "rev-parse", "HEAD", "HEAD^@").split()
        return sha, tuple(parents)

    (root / "a.md").write_text("a\n")
    git(root, "add", "a.md")
    git(root, *PERSON, "commit", "-qm", "root")
    assert git_repo.head_and_parents() == expected() and expected()[1] == ()
    git(root, "checkout", "-q", "-b", "side")
    (root / "b.md").write_text("b\n")
    git(root, "add", "b.md")
    git(root, *PERSON, "commit", "-qm", "side")
    git(root, "checkout", "-q", "main")
    (root / "c.md").write_text("c\n")
    git(root, "add", "c.md")
    git(root, *PERSON, "commit", "-qm", "main")
    git(root, *PERSON, "merge", "-q", "--no-ff", "-m", "merge", "side")
    assert git_repo.head_and_parents() == expected() and len(expected()[1]) == 2
    git(root, "gc", "-q")  # packed refs and objects: asked of git
    assert not (root / ".git/refs/heads/main").exists()
    assert git_repo.head_and_parents() == expected()
