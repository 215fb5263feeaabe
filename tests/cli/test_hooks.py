"""Hand commits under memfs's hooks: ``memfs init`` installs them, ``memfs install-hooks`` installs
them into an existing clone without clobbering the user's hooks, and a token in a staged memory,
in any other file under the memory root, in a file name, in the message or in a trailer refuses
the commit with a clear message, while ordinary commits pass.

The matrix runs the hooks' command (``memfs hook``) in this process on a real index; one slow test
runs the installed hook scripts under real ``git commit``s (a refused one and an ordinary one:
each hook starts Python).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from memfs import MemoryRepo
from memfs.errors import ConflictError
from memfs.store import hooks
from tests.helpers import PERSON, git, memory_text, new_repo, run_cli

TOKEN = "ghp_" + "aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6"

#: (case, files to stage, commit message, the hook that refuses it or None).
CASES = [
    ("memory", {"notes/t.md": memory_text(f"the ci token is {TOKEN}\n", type="fact", scope="user:U5",
                                          source="tool:ci")}, "add a note", "pre-commit"),
    ("other-file", {"notes/todo.txt": f"call the api with {TOKEN}\n"}, "todo", "pre-commit"),
    ("readme", {"README.md": f"# memory\nGITHUB_TOKEN={TOKEN}\n"}, "readme", "pre-commit"),
    ("file-name", {f"notes/{TOKEN}.txt": "x\n"}, "a file", "pre-commit"),
    ("binary", {"notes/image.png": "\x89PNG\x00\x00" + TOKEN + "\x00"}, "an image", None),  # by name only
    ("message", {"notes/ok.txt": "fine\n"}, f"use {TOKEN} for the bot", "commit-msg"),
    ("trailer", {"notes/ok2.txt": "fine\n"}, f"fix\n\nwhy\n\nMemfs-Idempotency-Key: {TOKEN}\n", "commit-msg"),
    ("ordinary", {"notes/plain.md": memory_text("the build is green\n", type="fact", scope="user:U5",
                                                source="tool:ci")}, "a plain note\n\nMemfs-Op: write", None),
]


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return new_repo(tmp_path_factory.mktemp("hooks") / "repo").root


def _stage(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    git(root, "add", "--", *files)


@pytest.mark.parametrize(("case", "files", "message", "refused_by"), CASES, ids=[c[0] for c in CASES])
def test_the_hooks_refuse_a_secret_anywhere_a_hand_commit_puts_it(
    template: Path, tmp_path: Path, case: str, files: dict[str, str], message: str, refused_by: str | None
) -> None:
    root = tmp_path / "r"
    subprocess.run(["cp", "-a", str(template), str(root)], check=True)
    _stage(root, files)
    pre = run_cli("-C", str(root), "hook", "pre-commit", cwd=root)
    (root / ".git" / "COMMIT_EDITMSG").write_text(message + "\n# Please enter the commit message\n")
    msg = run_cli("-C", str(root), "hook", "commit-msg", ".git/COMMIT_EDITMSG", cwd=root)
    codes = {"pre-commit": pre.returncode, "commit-msg": msg.returncode}
    assert codes == {name: int(name == refused_by) for name in codes}, (pre.stderr, msg.stderr)
    if refused_by is not None:
        said = (pre if refused_by == "pre-commit" else msg).stderr
        assert "commit refused" in said and "secret/github-token" in said
        assert ("commit message" in said) == (refused_by == "commit-msg")
        assert TOKEN[4:14] not in said  # the secret is never shown, not even in a file name


def test_init_installs_both_hooks_and_reinstalling_keeps_the_users_own(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "r")
    folder = repo.store.git.hooks_dir()
    assert all(hooks.MARKER in (folder / name).read_text() for name in hooks.HOOKS)
    (folder / "pre-commit").write_text("#!/bin/sh\necho mine\n")
    done = repo.install_hooks()
    assert done.chained == ["pre-commit"] and done.installed == list(hooks.HOOKS)
    assert (folder / "pre-commit.memfs-chained").read_text() == "#!/bin/sh\necho mine\n"
    assert repo.install_hooks().chained == []  # memfs's own hooks are rewritten, the user's stays kept
    (folder / "pre-commit").write_text("#!/bin/sh\necho another\n")
    with pytest.raises(ConflictError, match=r"pre-commit\.memfs-chained too"):
        repo.install_hooks()
    assert (folder / "pre-commit").read_text() == "#!/bin/sh\necho another\n"


def test_the_cli_shows_paths_in_the_repository_relative_to_it(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "r")
    folder = repo.store.git.hooks_dir()
    (folder / "pre-commit").write_text("#!/bin/sh\necho mine\n")
    (folder / "pre-commit.memfs-chained").write_text("#!/bin/sh\necho older\n")
    ran = run_cli("-C", str(repo.root), "install-hooks", cwd=tmp_path)
    assert ran.returncode != 0 and ".git/hooks/pre-commit: a pre-commit hook memfs did not write" in ran.stderr
    assert str(tmp_path) not in ran.stderr


def test_install_hooks_goes_where_core_hooks_path_points(tmp_path: Path) -> None:
    repo = MemoryRepo.init(tmp_path / "r", hooks=False)
    assert not (repo.store.git.hooks_dir() / "pre-commit").exists()
    git(repo.root, "config", "core.hooksPath", ".githooks")
    ran = run_cli("-C", str(repo.root), "install-hooks", "--json", cwd=repo.root)
    assert ran.returncode == 0, ran.stderr
    assert (repo.root / ".githooks" / "commit-msg").exists() and (repo.root / ".githooks" / "pre-commit").exists()
    git(repo.root, "add", ".githooks")
    git(repo.root, "-c", "user.name=P", "-c", "user.email=p@x", "commit", "-qm", "shared hooks")
    ran = run_cli("-C", str(repo.root), "install-hooks", cwd=repo.root)
    assert ran.returncode != 0 and "a folder this repository tracks" in ran.stderr  # shared hooks: refused


def test_a_memory_root_in_a_sub_folder_checks_only_its_own_files_and_commits(tmp_path: Path) -> None:
    top = tmp_path / "project"
    top.mkdir()
    git(top, "init", "-q")
    repo = MemoryRepo.init(top / "memory")
    _stage(top, {"src/config.py": f"TOKEN = '{TOKEN}'\n"})
    assert run_cli("-C", "memory", "hook", "pre-commit", cwd=top).returncode == 0
    (top / "msg").write_text(f"code change with {TOKEN}\n")
    assert run_cli("-C", "memory", "hook", "commit-msg", "msg", cwd=top).returncode == 0
    _stage(top, {"memory/notes/x.txt": f"{TOKEN}\n"})
    assert run_cli("-C", "memory", "hook", "pre-commit", cwd=top).returncode == 1
    assert run_cli("-C", "memory", "hook", "commit-msg", "msg", cwd=top).returncode == 1
    assert "-C memory hook pre-commit" in (repo.store.git.hooks_dir() / "pre-commit").read_text()


@pytest.mark.slow
def test_real_hand_commits_under_the_installed_hooks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MEMFS_HOOKS")
    repo = MemoryRepo.init(tmp_path / "r", hooks=False)
    folder = repo.store.git.hooks_dir()
    folder.mkdir(exist_ok=True)
    (folder / "pre-commit").write_text("#!/bin/sh\necho ran >> \"$(git rev-parse --git-dir)/mine\"\n")
    (folder / "pre-commit").chmod(0o755)
    repo.install_hooks()
    root, head = repo.root, repo.store.git.head()

    def commit(message: str) -> subprocess.CompletedProcess[str]:
        env = {k: v for k, v in os.environ.items() if k != "MEMFS_HOOKS"}
        return subprocess.run(["git", *PERSON, "commit", "-qm", message], cwd=root, capture_output=True,
                              text=True, env=env)

    _stage(root, {"notes/t.txt": f"{TOKEN}\n"})
    refused = commit("notes")
    assert refused.returncode != 0 and "notes/t.txt" in refused.stderr and "commit refused" in refused.stderr
    assert (root / ".git" / "mine").read_text() == "ran\n"  # the user's own hook ran first
    assert repo.store.git.head() == head
    _stage(root, {"notes/t.txt": "nothing secret\n"})
    passed = commit("notes\n\nMemfs-Idempotency-Key: k-1")
    assert passed.returncode == 0, passed.stderr
    assert repo.store.git.head() != head


def _clone_with_incoming(tmp_path: Path, files: dict[str, str], message: str) -> tuple[Path, str, str]:
    """A clone of a memory repository whose origin then gets one commit (``files``, ``message``),
    fetched but not merged: (the clone, its HEAD, the fetched commit)."""
    origin = MemoryRepo.init(tmp_path / "origin", hooks=False).root
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(origin), str(clone))
    _stage(origin, files)
    git(origin, *PERSON, "commit", "-qm", message)
    git(clone, "fetch", "-q")
    return clone, git(clone, "rev-parse", "HEAD").strip(), git(clone, "rev-parse", "FETCH_HEAD").strip()


@pytest.mark.parametrize(("files", "message"), [({"notes/t.txt": f"{TOKEN}\n"}, "notes"),
                                                ({"notes/ok.txt": "fine\n"}, f"use {TOKEN}")],
                         ids=["file", "message"])
def test_the_reference_transaction_hook_refuses_fetched_commits_a_branch_would_take(
    tmp_path: Path, files: dict[str, str], message: str
) -> None:
    clone, head, fetched = _clone_with_incoming(tmp_path, files, message)
    moved = f"{head} {fetched} refs/heads/main\n"
    ran = run_cli("-C", str(clone), "hook", "reference-transaction", "prepared", input=moved, cwd=clone)
    assert ran.returncode == 1 and "branch update refused" in ran.stderr and "secret/github-token" in ran.stderr
    assert TOKEN[4:14] not in ran.stderr
    assert f"commit {fetched[:10]}" in ran.stderr
    # other states, other refs (the remote-tracking ref), and what a branch already has pass
    for state, lines in (("committed", moved), ("prepared", f"{head} {fetched} refs/remotes/origin/main\n"),
                         ("prepared", f"{fetched} {head} refs/heads/main\n")):
        ran = run_cli("-C", str(clone), "hook", "reference-transaction", state, input=lines, cwd=clone)
        assert ran.returncode == 0, (state, lines, ran.stderr)


def test_the_pre_merge_commit_hook_judges_the_merge_result(tmp_path: Path) -> None:
    clone, _head, fetched = _clone_with_incoming(tmp_path, {"notes/t.txt": f"{TOKEN}\n"}, "notes")
    git(clone, *PERSON, "merge", "--no-commit", "--no-ff", "-q", fetched)
    ran = run_cli("-C", str(clone), "hook", "pre-merge-commit", cwd=clone)
    assert ran.returncode == 1 and "merge refused" in ran.stderr and "notes/t.txt" in ran.stderr


@pytest.mark.slow
def test_a_hand_fast_forward_pull_is_refused_and_the_users_own_hook_still_sees_every_update(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MEMFS_HOOKS")
    clone, head, fetched = _clone_with_incoming(tmp_path, {"notes/t.txt": f"{TOKEN}\n"}, "notes")
    folder = clone / ".git" / "hooks"
    (folder / "reference-transaction").write_text("#!/bin/sh\ncat >> \"$(git rev-parse --git-dir)/mine\"\n")
    (folder / "reference-transaction").chmod(0o755)
    assert MemoryRepo.open(clone).install_hooks().chained == ["reference-transaction"]
    env = {k: v for k, v in os.environ.items() if k != "MEMFS_HOOKS"}
    pulled = subprocess.run(["git", "merge", "-q", "--ff-only", fetched], cwd=clone, capture_output=True, text=True,
                            env=env)
    assert pulled.returncode != 0 and "branch update refused" in pulled.stderr, pulled.stderr
    assert git(clone, "rev-parse", "HEAD").strip() == head
    assert f"{head} {fetched} refs/heads/main" in (clone / ".git" / "mine").read_text()
    git(clone, "reset", "-q", "--merge")
    assert not (clone / "notes" / "t.txt").exists()
