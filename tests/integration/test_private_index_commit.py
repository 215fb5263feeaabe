"""A commit made from a private copy of the index (#17, :meth:`memfs.store.gitcli.commit.Committing._commit_private`)
must be as exact as ``git commit --only``: only the operation's paths are committed, and the index
(unstaged edits, untracked and intent-to-add files) is left as it was but for those paths. It is
only taken while the index equals HEAD: a file staged, or HEAD moved by hand (even without
touching the index, and even after memfs's own check), between the ``git status`` probe and the
commit sends the commit the usual way, and nothing someone else did is committed or undone. A
refused commit leaves no lock and no copy behind."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from memfs import MemoryRepo
from memfs.errors import MemfsError
from memfs.store import gitcli
from tests.helpers import FACT, PERSON, commit_all, git, put


def _remember(repo: MemoryRepo, key: str, body: str) -> Any:
    return repo.remember({**FACT, "key": key, "body": body})


def _committed_paths(root: Path) -> set[str]:
    return set(git(root, "show", "--name-only", "--format=", "HEAD").split())


def _private_commits(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, ...]]:
    """The git commands run with a private index file, recorded as they start."""
    seen: list[tuple[str, ...]] = []
    real = gitcli.process.run

    def recording(cwd: Path, *args: str, **kwargs: Any) -> Any:
        if kwargs.get("index") is not None:
            seen.append(args)
        return real(cwd, *args, **kwargs)

    monkeypatch.setattr(gitcli.process, "run", recording)
    return seen


def _commit_by_plumbing(root: Path, rel: str, text: str) -> str:
    """A commit adding ``rel`` on top of HEAD, made without touching the index (as a tool using
    ``commit-tree`` and ``update-ref`` would); returns it."""
    env = {**os.environ, "GIT_INDEX_FILE": str(root / ".git" / "tool-index")}

    def run(*args: str, stdin: str | None = None) -> str:
        done = subprocess.run(["git", *PERSON, *args], cwd=root, env=env, input=stdin, capture_output=True,
                              text=True, check=True)
        return done.stdout.strip()

    run("read-tree", "HEAD")
    blob = run("hash-object", "-w", "--stdin", stdin=text)
    run("update-index", "--add", "--cacheinfo", f"100644,{blob},{rel}")
    commit = run("commit-tree", run("write-tree"), "-p", "HEAD", "-m", "by a tool")
    run("update-ref", "HEAD", commit)
    (root / ".git" / "tool-index").unlink()
    return commit


def test_the_private_index_commits_only_the_operations_paths(repo: MemoryRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    put(repo, "facts/tracked.md", "tracked\n", **FACT)
    commit_all(repo.root, "tracked by hand")
    (repo.root / "facts/tracked.md").write_text((repo.root / "facts/tracked.md").read_text() + "hand edit\n")
    put(repo, "notes/untracked.md", "untracked\n", **FACT)
    put(repo, "notes/intended.md", "intended\n", **FACT)
    git(repo.root, "add", "-N", "notes/intended.md")
    private = _private_commits(monkeypatch)

    new = _remember(repo, "colour", "The colour is blue.")  # a new file: added to the copy, committed
    assert _committed_paths(repo.root) == set(new.paths)
    update = _remember(repo, "colour", "The colour is green.")  # a tracked file: `commit -i` alone
    assert update.paths == new.paths and _committed_paths(repo.root) == set(new.paths)

    assert [args[0] for args in private] == ["add", "commit", "commit"]
    status = git(repo.root, "status", "--porcelain", "--untracked-files=all").splitlines()
    assert sorted(status) == [" A notes/intended.md", " M facts/tracked.md", "?? notes/untracked.md"]
    assert git(repo.root, "diff", "--cached", "--name-only") == ""
    assert not (repo.store.git.git_dir / "index.lock").exists()
    assert not (repo.store.git.git_dir / gitcli.PRIVATE_INDEX).exists()
    assert git(repo.root, "reflog", "-1", "--format=%gs").strip() == f"commit: memfs: supersede {update.paths[0]}"


def test_a_file_staged_after_the_probe_is_not_committed(repo: MemoryRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    _remember(repo, "warm", "Warm-up.")
    put(repo, "facts/staged.md", "staged\n", **FACT)
    real = repo.store.git.probe

    def probe_then_stage(pathspec: str) -> gitcli.Probe | None:
        found = real(pathspec)
        git(repo.root, "add", "facts/staged.md")
        return found

    monkeypatch.setattr(repo.store.git, "probe", probe_then_stage)
    private = _private_commits(monkeypatch)
    outcome = _remember(repo, "colour", "The colour is blue.")
    assert private == []
    assert _committed_paths(repo.root) == set(outcome.paths)
    assert git(repo.root, "diff", "--cached", "--name-only").split() == ["facts/staged.md"]


def test_head_moved_by_a_tool_after_the_probe_is_kept(repo: MemoryRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    _remember(repo, "warm", "Warm-up.")
    real = repo.store.git.probe
    moved: list[str] = []

    def probe_then_move(pathspec: str) -> gitcli.Probe | None:
        found = real(pathspec)
        if not moved:
            moved.append(_commit_by_plumbing(repo.root, "facts/by-tool.md", "by a tool\n"))
        return found

    monkeypatch.setattr(repo.store.git, "probe", probe_then_move)
    private = _private_commits(monkeypatch)
    outcome = _remember(repo, "colour", "The colour is blue.")
    assert private == []
    assert git(repo.root, "rev-parse", "HEAD^").strip() == moved[0]
    assert _committed_paths(repo.root) == set(outcome.paths)
    assert "facts/by-tool.md" in git(repo.root, "ls-tree", "-r", "--name-only", "HEAD").split()


def test_a_commit_made_on_a_head_moved_after_the_check_is_taken_back(
    repo: MemoryRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    _remember(repo, "warm", "Warm-up.")
    real = gitcli.process.run
    moved: list[str] = []

    def move_first(cwd: Path, *args: str, **kwargs: Any) -> Any:
        if kwargs.get("index") is not None and args[0] == "commit" and not moved:
            moved.append(_commit_by_plumbing(repo.root, "facts/by-tool.md", "by a tool\n"))
        return real(cwd, *args, **kwargs)

    monkeypatch.setattr(gitcli.process, "run", move_first)
    outcome = _remember(repo, "colour", "The colour is blue.")
    assert moved and git(repo.root, "rev-parse", "HEAD^").strip() == moved[0]
    assert _committed_paths(repo.root) == set(outcome.paths)
    tree = git(repo.root, "ls-tree", "-r", "--name-only", "HEAD").split()
    assert "facts/by-tool.md" in tree and set(outcome.paths) <= set(tree)
    assert "take back a commit made on a moved HEAD" in git(repo.root, "reflog", "-3", "--format=%gs")
    assert not (repo.store.git.git_dir / "index.lock").exists()


def test_a_refused_private_commit_leaves_no_lock_and_no_copy(repo: MemoryRepo) -> None:
    _remember(repo, "warm", "Warm-up.")
    index = (repo.store.git.git_dir / "index").read_bytes()
    hook = repo.store.git.git_dir / "hooks/pre-commit"
    hook.parent.mkdir(exist_ok=True)
    hook.write_text("#!/bin/sh\necho 'policy: no commits today' >&2\nexit 1\n")
    hook.chmod(0o755)
    with pytest.raises(MemfsError, match="no commits today"):
        _remember(repo, "colour", "The colour is blue.")
    assert not (repo.store.git.git_dir / "index.lock").exists()
    assert not (repo.store.git.git_dir / gitcli.PRIVATE_INDEX).exists()
    assert (repo.store.git.git_dir / "index").read_bytes() == index
    assert git(repo.root, "status", "--porcelain") == ""


@pytest.mark.parametrize(
    ("record", "staged"),
    [
        ("1 .M N... 100644 100644 100644 a b x.md", False),
        ("1 M. N... 100644 100644 100644 a b x.md", True),
        ("1 .A N... 000000 000000 100644 a b x.md", False),
        ("u UU N... 100644 100644 100644 100644 a b c x.md", True),
        ("? x.md", False),
    ],
)
def test_the_probe_says_whether_anything_is_staged(record: str, staged: bool) -> None:
    assert gitcli.status.parse_probe(f"# branch.oid {'a' * 40}\0{record}\0").staged is staged


@pytest.mark.parametrize("setting", [("core.splitIndex", "true"), ("index.version", "4"),
                                     ("core.untrackedCache", "true"), ("feature.manyFiles", "true")])
def test_index_formats_git_may_be_set_to_still_give_exact_commits(
    repo: MemoryRepo, setting: tuple[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Repository settings that change the index file's format (a split index with its shared
    part beside it, version 4's compressed paths, the untracked cache extension): the copy is
    committed and installed as git would, so memfs's commits stay exact and the index stays sound."""
    git(repo.root, "config", *setting)
    put(repo, "facts/hand.md", "edited by hand, never staged\n")
    (repo.root / "notes.txt").write_text("untracked\n")
    commit_all(repo.root, "baseline")
    git(repo.root, "update-index", "--refresh")
    put(repo, "facts/hand.md", "edited again, not staged\n")
    private = _private_commits(monkeypatch)
    for i in range(3):
        _remember(repo, f"k{i}", f"Fact {i} under {setting[0]}.")
        committed = _committed_paths(repo.root)
        assert committed and all(p.endswith(".md") and p != "facts/hand.md" for p in committed), committed
    status = git(repo.root, "status", "--porcelain")
    assert status.splitlines() == [" M facts/hand.md"], status
    git(repo.root, "fsck", "--no-progress")
    assert git(repo.root, "diff", "--cached", "--name-only") == ""
    assert sum(1 for args in private if "commit" in args) == 3, private
