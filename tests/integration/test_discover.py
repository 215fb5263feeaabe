"""Opening a repository and reading its HEAD, its branch and a remote-tracking ref without a git
process give exactly git's answer, or ask git.

:func:`memfs.store.gitcli.plain_top_level` reads the top level and git dir from the files when
the layout is plain, and :func:`~memfs.store.gitcli.files.head_from_files` HEAD's commit; in
every other layout each must step aside so ``git rev-parse`` decides. Each cell compares memfs's
answer with git's own.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from memfs import MemoryRepo
from memfs.errors import NotAMemoryRepo
from memfs.store.gitcli import Git, discover, plain_top_level, process
from memfs.store.gitcli.files import branch_from_files, head_from_files, ref_from_files, ref_names_from_files


def _config(repo: MemoryRepo, text: str) -> Path:
    with open(repo.root / ".git/config", "a") as handle:
        handle.write(text.replace("ROOT", str(repo.root)))
    return repo.root


def _linked(repo: MemoryRepo) -> Path:
    process.run(repo.root, "worktree", "add", "-q", "--detach", str(repo.root.parent / "linked"))
    return repo.root.parent / "linked"


def _symlinked(repo: MemoryRepo) -> Path:
    os.symlink(repo.root, repo.root.parent / "alias")
    return repo.root.parent / "alias"


def _git_dir_env(repo: MemoryRepo) -> Path:
    os.environ["GIT_DIR"] = str(repo.root / ".git")
    return repo.root


#: Each layout: (what it does to the repository and the folder ``discover`` starts from, whether
#: the files alone may answer).
LAYOUTS: dict[str, tuple[Callable[[MemoryRepo], Path], bool]] = {
    "plain top level": (lambda r: r.root, True),
    "through a symlink": (_symlinked, True),
    "a subfolder": (lambda r: r.root / "system", False),
    "core.worktree": (lambda r: _config(r, "[core]\n\tworktree = ROOT\n"), False),
    "a key on the section line": (lambda r: _config(r, "[core] worktree = ROOT\n"), False),
    "bare": (lambda r: _config(r, "[core]\n\tbare = true\n"), False),
    "an include": (lambda r: _config(r, "[include]\n\tpath = elsewhere\n"), False),
    "an extension": (lambda r: _config(r, "[extensions]\n\tnoop = true\n"), False),
    "a continued line": (lambda r: _config(r, "[user]\n\tname = a\\\n"), False),
    "a linked worktree": (_linked, False),
    "GIT_DIR set": (_git_dir_env, False),
}


def _git_says(start: Path) -> tuple[Path, Path] | None:
    proc = process.run(start, "rev-parse", "--show-toplevel", "--absolute-git-dir", check=False)
    if proc.returncode != 0:
        return None
    top, git_dir = proc.stdout.decode().splitlines()[:2]
    return Path(top), Path(git_dir)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_discover_answers_as_git_does(repo: MemoryRepo, layout: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GIT_DIR", "")
    monkeypatch.delenv("GIT_DIR")
    build, from_files = LAYOUTS[layout]
    start = build(repo)
    assert (plain_top_level(start) is not None) == from_files
    expected = _git_says(start)
    if expected is None:
        with pytest.raises(NotAMemoryRepo):
            discover(start)
    else:
        assert discover(start) == expected


def _head_names(repo: MemoryRepo, text: str) -> Path:
    (repo.root / ".git/HEAD").write_text(text.replace("SHA", repo.store.git.head() or ""))
    return repo.root / ".git"


def _loose(repo: MemoryRepo, ref: str, text: str) -> Path:
    (repo.root / ".git" / ref).write_text(text)
    return _head_names(repo, f"ref: {ref}\n")


def _symlinked_head(repo: MemoryRepo) -> Path:
    (repo.root / ".git/HEAD").unlink()
    os.symlink("refs/heads/main", repo.root / ".git/HEAD")
    return repo.root / ".git"


def _not_utf8_branch(repo: MemoryRepo) -> Path:
    process.run(repo.root, "update-ref", os.fsdecode(b"refs/heads/caf\xe9"), repo.store.git.head() or "")
    (repo.root / ".git/HEAD").write_bytes(b"ref: refs/heads/caf\xe9\n")
    return repo.root / ".git"


def _packed(repo: MemoryRepo) -> Path:
    process.run(repo.root, "pack-refs", "--all")
    return repo.root / ".git"


#: Each layout: (what it does, returning the git dir to read, whether the files alone may answer).
HEADS: dict[str, tuple[Callable[[MemoryRepo], Path], bool]] = {
    "a loose branch": (lambda r: r.root / ".git", True),
    "a packed branch": (_packed, True),
    "an unborn branch": (lambda r: _head_names(r, "ref: refs/heads/none\n"), True),
    "detached": (lambda r: _head_names(r, "SHA\n"), True),
    "a symbolic branch": (lambda r: _loose(r, "refs/heads/alias", "ref: refs/heads/main\n"), False),
    "a broken branch": (lambda r: _loose(r, "refs/heads/broken", "not a commit\n"), False),
    "an extension": (lambda r: _config(r, "[extensions]\n\tnoop = true\n") / ".git", False),
    "a linked worktree": (lambda r: _linked(r).parent / "mem/.git/worktrees/linked", True),
    "a branch name with a trailing space": (lambda r: _head_names(r, "ref: refs/heads/main \n"), False),
    "a branch name that is not UTF-8": (_not_utf8_branch, False),
}


@pytest.mark.parametrize("layout", HEADS)
def test_head_answers_as_git_does(repo: MemoryRepo, layout: str) -> None:
    build, from_files = HEADS[layout]
    git_dir = build(repo)
    assert (head_from_files(git_dir) is not None) == from_files
    work = repo.root.parent / "linked" if "worktrees" in git_dir.parts else repo.root
    said = process.run(work, "rev-parse", "--verify", "-q", "HEAD", check=False).stdout.decode().strip()
    assert process.Base(work, git_dir).head() == (said or None)


def _tagged_like_branch(repo: MemoryRepo) -> Path:
    process.run(repo.root, "tag", "main")
    return repo.root / ".git"


def _remote_named_like_branch(repo: MemoryRepo) -> Path:
    process.run(repo.root, "update-ref", "refs/remotes/main/HEAD", repo.store.git.head() or "")
    return repo.root / ".git"


def _packed_tag_like_branch(repo: MemoryRepo) -> Path:
    process.run(repo.root, "tag", "main")
    return _packed(repo)


def _file_named_like_branch(repo: MemoryRepo) -> Path:
    (repo.root / ".git/main").write_text((repo.store.git.head() or "") + "\n")
    return repo.root / ".git"


#: Each layout: (what it does, returning the git dir to read, whether the files alone may answer).
BRANCHES: dict[str, tuple[Callable[[MemoryRepo], Path], bool]] = {
    "a loose branch": (lambda r: r.root / ".git", True),
    "a packed branch": (_packed, True),
    "an unborn branch": (lambda r: _head_names(r, "ref: refs/heads/none\n"), True),
    "a branch in a folder": (lambda r: _head_names(r, "ref: refs/heads/team/x\n"), True),
    "detached": (lambda r: _head_names(r, "SHA\n"), True),
    "a tag of the same name": (_tagged_like_branch, False),
    "a packed tag of the same name": (_packed_tag_like_branch, False),
    "a remote of the same name": (_remote_named_like_branch, False),
    "a file of the same name in the git directory": (_file_named_like_branch, False),
    "an extension": (lambda r: _config(r, "[extensions]\n\tnoop = true\n") / ".git", False),
    "a linked worktree": (lambda r: _linked(r).parent / "mem/.git/worktrees/linked", True),
    "a branch name with a trailing space": (lambda r: _head_names(r, "ref: refs/heads/main \n"), False),
    "a symlinked HEAD": (_symlinked_head, False),
}


@pytest.mark.parametrize("layout", BRANCHES)
def test_branch_answers_as_git_does(repo: MemoryRepo, layout: str) -> None:
    build, from_files = BRANCHES[layout]
    git_dir = build(repo)
    assert (branch_from_files(git_dir) is not None) == from_files
    work = repo.root.parent / "linked" if "worktrees" in git_dir.parts else repo.root
    said = process.run(work, "symbolic-ref", "-q", "--short", "HEAD", check=False).stdout.decode().strip()
    assert Git(work, git_dir).branch() == (said or None)
    if "tag" in layout or "file" in layout:
        assert said == "heads/main"  # what the files could not have said


def _remote_ref(repo: MemoryRepo, how: str) -> str:
    ref = "refs/remotes/origin/main"
    sha = repo.store.git.head() or ""
    if how != "absent":
        process.run(repo.root, "update-ref", ref, sha)
    if how == "packed":
        process.run(repo.root, "pack-refs", "--all")
    if how == "symbolic":
        process.run(repo.root, "symbolic-ref", ref, "refs/heads/main")
    if how == "broken":
        (repo.root / ".git" / ref).write_text("not a commit\n")
    return ref


@pytest.mark.parametrize("how, from_files", [("loose", True), ("packed", True), ("absent", True),
                                             ("symbolic", False), ("broken", False)])
def test_a_remote_tracking_ref_answers_as_git_does(repo: MemoryRepo, how: str, from_files: bool) -> None:
    ref = _remote_ref(repo, how)
    found = ref_from_files(repo.root / ".git", ref)
    assert (found is not None) == from_files
    if found is not None:
        said = process.run(repo.root, "rev-parse", "--verify", "-q", ref, check=False).stdout.decode().strip()
        assert found == said
    assert ref_from_files(repo.root / ".git", "refs/tags/v1") is None  # only branches and remote-tracking ones


@pytest.mark.parametrize("how", ["none", "loose", "packed", "both", "a stray file"])
def test_the_refs_under_a_prefix_are_at_least_those_git_lists(repo: MemoryRepo, how: str) -> None:
    sha = repo.store.git.head() or ""
    if how in ("loose", "both"):
        process.run(repo.root, "update-ref", "refs/memfs/backup/b/one", sha)
    if how in ("packed", "both"):
        process.run(repo.root, "update-ref", "refs/memfs/backup/two", sha)
        process.run(repo.root, "pack-refs", "--all")
    if how == "a stray file":
        (repo.root / ".git/refs/memfs/backup").mkdir(parents=True)
        (repo.root / ".git/refs/memfs/backup/x.lock").write_text("")
    listed = process.run(repo.root, "for-each-ref", "--format=%(refname)", "refs/memfs/backup/").stdout.decode()
    found = ref_names_from_files(repo.root / ".git", "refs/memfs/backup/")
    assert found is not None and set(listed.split()) <= found
    assert (not found) == (not listed) or how == "a stray file"
    assert repo.store.git.no_refs_under("refs/memfs/backup/") == (how == "none")
    assert repo.store.git.no_refs_under("refs/memfs/backup/", but=sorted(found))
    assert ref_names_from_files(repo.root / ".git", "refs/memfs/../x/") is None


def test_a_ref_below_a_symlinked_folder_is_not_missed(repo: MemoryRepo) -> None:
    """Git lists the loose refs below a symlink to a folder; os.walk does not follow it, so the
    files must step aside rather than say there is no ref there."""
    (repo.root.parent / "elsewhere").mkdir()
    (repo.root.parent / "elsewhere/one").write_text((repo.store.git.head() or "") + "\n")
    (repo.root / ".git/refs/memfs/backup").mkdir(parents=True)
    os.symlink(repo.root.parent / "elsewhere", repo.root / ".git/refs/memfs/backup/sub")
    listed = process.run(repo.root, "for-each-ref", "--format=%(refname)", "refs/memfs/backup/").stdout.decode()
    assert listed.split() == ["refs/memfs/backup/sub/one"]
    found = ref_names_from_files(repo.root / ".git", "refs/memfs/backup/")
    assert found is None or set(listed.split()) <= found
    assert not repo.store.git.no_refs_under("refs/memfs/backup/")


def test_a_packed_ref_name_that_is_not_utf8_does_not_stop_the_listing(repo: MemoryRepo) -> None:
    """Git takes any byte above 0x7f in a ref name; one packed under the prefix is a name there
    like any other (decoded as the loose names are), not a UnicodeDecodeError out of sync."""
    name = b"refs/memfs/backup/caf\xe9"
    process.run(repo.root, "update-ref", os.fsdecode(name), repo.store.git.head() or "")
    process.run(repo.root, "pack-refs", "--all")
    found = ref_names_from_files(repo.root / ".git", "refs/memfs/backup/")
    assert found == {os.fsdecode(name)}
    assert not repo.store.git.no_refs_under("refs/memfs/backup/")
