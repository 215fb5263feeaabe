"""A transaction of many files that git already tracks (a retraction) stages them by name with
``git update-index`` instead of ``git add -A`` pathspecs (#17: matching 1,000 pathspecs cost git
~30-40 ms of CPU at 10k), and still commits exactly its own files: hand edits and untracked files elsewhere
stay as they are, and a path git does not track after all is added the usual way. Its path
confinement checks each folder once (:class:`memfs.store.paths.Checked`) and still refuses a
symlinked one."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from memfs import MemoryRepo
from memfs.errors import PathError, WriteRefused
from memfs.ops.retract import retract
from memfs.store import gitcli, revisions
from tests.helpers import add, commit_all, count_git_commands, git, put, set_identity


def test_a_large_retraction_stages_by_name_and_commits_only_its_files(
    repo: MemoryRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    add(repo, "facts/root.md")
    chain = [f"notes/n{i:02d}.md" for i in range(12)]
    for parent, rel in zip(["facts/root.md", *chain], chain, strict=False):
        add(repo, rel, parent)
    add(repo, "notes/other.md")
    put(repo, "notes/other.md", "edited by hand, not staged\n")
    put(repo, "notes/untracked.md", "written by hand\n")
    started = count_git_commands(monkeypatch)
    result = retract(repo.store, ["facts/root.md"], reason="the source was wrong")
    assert result.commit is not None
    assert started["add"] == 0 and started["update-index"] == 1, started
    committed = git(repo.root, "show", "--name-only", "--format=", "HEAD").split()
    assert sorted(committed) == sorted(["facts/root.md", *chain])
    status = git(repo.root, "status", "--porcelain").splitlines()
    assert sorted(status) == [" M notes/other.md", "?? notes/untracked.md"]


def test_a_path_git_does_not_track_is_added_and_nothing_is_staged_half(tmp_path: Path) -> None:
    root = tmp_path / "plain"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    set_identity(root)
    names = [f"m{i:02d}.md" for i in range(10)]
    for name in names:
        (root / name).write_text(f"{name}\n")
    commit_all(root, "start")
    for name in names[:9]:
        (root / name).write_text(f"{name} changed\n")
    (root / names[9]).unlink()
    (root / "new.md").write_text("new\n")
    (root / "left.md").write_text("not committed\n")
    repo_git = gitcli.Git(root, root / ".git")
    done = repo_git.commit_exact([*names, "new.md"], "many\n", gitcli.Identity.for_actor("agent:t"), untracked=[])
    assert done is not None
    committed = git(root, "show", "--name-status", "--format=", "HEAD").splitlines()
    assert sorted(committed) == sorted([*(f"M\t{n}" for n in names[:9]), f"D\t{names[9]}", "A\tnew.md"])
    assert git(root, "status", "--porcelain").splitlines() == ["?? left.md"]


def test_a_transaction_checks_each_folder_once_and_still_refuses_a_symlinked_one(repo: MemoryRepo) -> None:
    add(repo, "notes/a.md")
    add(repo, "notes/b.md")
    os.symlink("notes", repo.root / "linked")
    with repo.store.transaction("write", reason="test") as tx:
        tx.write("notes/a.md", fields={"description": "checked the folder"})
        assert repo.store.checked is not None and str(repo.root / "notes") in repo.store.checked.folders
        with pytest.raises(PathError, match="goes through the symlink linked"):
            tx.write("linked/b.md", fields={"description": "through the link"})
        tx.write("notes/b.md", fields={"description": "same folder, already checked"})
    assert repo.store.checked is None
    committed = git(repo.root, "show", "--name-only", "--format=", "HEAD").split()
    assert sorted(committed) == ["notes/a.md", "notes/b.md"]


def _wide(repo: MemoryRepo, count: int) -> list[str]:
    """A root and ``count`` memories derived from it, in two folders, committed by hand."""
    put(repo, "facts/root.md", "the root\n", source="test:root")
    flagged = [f"notes/{'ab'[i % 2]}/m{i:03d}.md" for i in range(count)]
    for rel in flagged:
        put(repo, rel, f"{rel}\n", source=f"test:{rel}", depends_on=["facts/root.md"])
    commit_all(repo.root, "by hand")
    return flagged


def test_the_committed_copies_a_large_commit_holds_are_not_read_again(
    repo: MemoryRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    flagged = _wide(repo, 70)
    revisions.marks(repo.store.git, repo.store.pathspec)  # at rest: the revision cache read after the hand commit
    started = count_git_commands(monkeypatch)
    result = retract(repo.store, ["facts/root.md"], reason="the source was wrong")
    assert len(result.plan.flagged) == 70
    assert started["ls-tree"] == 1 and started["cat-file"] == 0, started
    committed = git(repo.root, "show", "--name-only", "--format=", "HEAD").split()
    assert sorted(committed) == sorted(["facts/root.md", *flagged])


def test_a_file_changed_by_hand_is_still_judged_against_the_committed_copy(repo: MemoryRepo) -> None:
    """A hand edit not committed is part of what the retraction commits; its lines are what the
    change adds, so the guard scans them: they must not pass as the committed copy."""
    flagged = _wide(repo, 70)
    edited = repo.root / flagged[5]
    edited.write_text(edited.read_text() + "token ghp_aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6\n")
    head = git(repo.root, "rev-parse", "HEAD")
    with pytest.raises(WriteRefused, match=f"{flagged[5]}: .*GitHub"):
        retract(repo.store, ["facts/root.md"], reason="the source was wrong")
    assert git(repo.root, "rev-parse", "HEAD") == head
