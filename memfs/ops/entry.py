"""Every entry: the core guard's secret rule for what reaches memory without passing through
memfs's own commit path: commits made by hand (the hooks, :mod:`memfs.store.hooks`), commits a
hand ``git merge`` or ``git pull`` brings onto a branch (the pre-merge-commit and
reference-transaction hooks) and commits other clones made (``memfs sync``, :mod:`memfs.ops.incoming`).

What is judged is the same at both doors: every file the commit changes under the memory root
(memories as the guard judges their changes, any other file by its added lines and its name) and
the commit message, trailers included. A binary file (a NUL byte among its first 8,000, git's own
test) is judged by its name only. Nobody can force past it: git keeps what it is given.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path

from memfs.policy import guard
from memfs.policy.refusal import Refusal
from memfs.store import gitcli, hooks, paths
from memfs.store.hooks import HooksInstalled
from memfs.store.repo import Store

#: A file with a NUL byte in its first bytes is binary, as git's diff decides it.
_BINARY_PROBE = 8000
#: The line below which ``git commit -v`` puts the diff in the message file (git drops it).
_SCISSORS = re.compile(r"^# -+ >8 -+$", re.MULTILINE)


def blobs_needed(repo: Store, changes: Sequence[gitcli.Change]) -> list[str]:
    """The blobs :func:`changed_files` reads for ``changes``: both sides of each file changed under
    the memory root."""
    return [sha for c in changes if c.after and repo.from_git_path(c.path) is not None
            for sha in (c.before, c.after) if sha]


def changed_files(
    repo: Store, changes: Sequence[gitcli.Change], objects: tuple[Path, Path] | None = None,
    blobs: dict[str, bytes] | None = None,
) -> list[str]:
    """``path: refusal`` for each secret the ``changes`` (paths from the work tree's top) bring
    into the memory root; files outside it are not judged. The blobs are ``blobs`` if the caller
    read them (:func:`blobs_needed`, for many commits at once), else read here in one batch."""
    inside = [(c, rel) for c in changes if (rel := repo.from_git_path(c.path)) is not None and c.after]
    if blobs is None:
        shas = blobs_needed(repo, changes)
        blobs = repo.git.read_typed(shas, objects) if shas else {}
    found = []
    for change, rel in inside:
        after = blobs.get(change.after or "")
        if after is None:
            found.append(f"{rel}: its content could not be read, so it cannot be checked")
            continue
        before = blobs.get(change.before) if change.before else None
        memory = paths.is_memory_name(rel) and not paths.is_ignored(repo.root, rel)
        if not memory and b"\0" in after[:_BINARY_PROBE]:
            before, after = None, b""  # binary (an image, an archive): only its name is text to judge
        refusals = guard.file_secrets(rel, _text(before), _text(after), memory=memory)
        found += [_line(rel, r) for r in refusals]
    return found


def commits(
    repo: Store, found: Sequence[gitcli.Incoming], objects: tuple[Path, Path] | None = None,
    blobs: dict[str, bytes] | None = None,
) -> list[str]:
    """``commit SHA: path: refusal`` for each secret the commits ``found`` carry in their message or
    bring into the memory root; their blobs are ``blobs`` if the caller read them (:func:`judged`),
    else read here in one batch."""
    if blobs is None:
        shas = [sha for commit in found for sha in blobs_needed(repo, commit.changes)]
        blobs = repo.git.read_typed(shas, objects) if shas else {}
    out = []
    for commit in found:
        problems = message(commit.message) + changed_files(repo, commit.changes, objects, blobs)
        out += [f"commit {commit.sha[:10]}: {p}" for p in problems]
    return out


def judged(
    repo: Store, tips: str | Sequence[str], objects: tuple[Path, Path] | None = None,
    known: Sequence[str] = ("--all",),
) -> list[str]:
    """:func:`commits` of the commits reachable from ``tips`` and from none of ``known``
    (:meth:`~memfs.store.gitcli.Git.incoming`), their messages and blobs read in one batch."""
    found, blobs = repo.git.incoming_read(tips, objects, known, lambda changes: blobs_needed(repo, changes))
    return commits(repo, found, objects, blobs)


def merging(repo: Store) -> list[str]:
    """What the pre-merge-commit hook refuses: secrets the merge being committed brings into the
    memory root (its result against HEAD). git names the merged commits to no hook before the
    merge commit exists; their messages are judged when the branch moves (:func:`ref_updates`)."""
    return staged(repo)


def ref_updates(repo: Store, lines: Sequence[str]) -> list[str]:
    """What the reference-transaction hook refuses, in its ``prepared`` state: secrets in the
    commits that a branch update (``OLD NEW REF`` lines, as git passes them) puts on a local branch
    for the first time: a fast-forward ``git pull`` or ``git merge``, a ``git reset`` or
    ``git branch -f`` to fetched commits, a commit made with ``--no-verify``."""
    found = []
    for line in lines:
        parts = line.split()
        if len(parts) == 3 and parts[2].startswith("refs/heads/") and parts[1].strip("0"):
            found += judged(repo, parts[1], known=("--branches",))
    return list(dict.fromkeys(found))


def mark_checked(repo: Store) -> None:
    """Note the tree of the commit the hooks have just passed (pre-commit, then commit-msg), so the
    reference-transaction hook that follows lets that commit onto the branch without starting
    memfs again (:mod:`memfs.store.hooks`)."""
    tree = repo.git.write_tree(_index())
    (repo.git.git_dir / hooks.CHECKED).write_text(tree + "\n", encoding="utf-8")


def message(text: str) -> list[str]:
    """``commit message: refusal`` for each secret in a commit message (trailers included)."""
    return [_line("commit message", r) for r in guard.check_message(text)]


def staged(repo: Store) -> list[str]:
    """What the pre-commit hook refuses: secrets the commit being made (from the index git is
    committing, ``GIT_INDEX_FILE`` during ``git commit -a`` or ``git commit PATHS``) brings into
    the memory root."""
    return changed_files(repo, repo.git.staged(_index(), [repo.pathspec]))


def commit_message(repo: Store, path: Path) -> list[str]:
    """What the commit-msg hook refuses: secrets in the message file git passes (comment lines and
    a ``git commit -v`` diff left out, as git leaves them out), when the commit touches the memory
    root or the memory root is the whole repository."""
    if repo.prefix and not repo.git.staged(_index(), [repo.pathspec]):
        return []
    text = path.read_text(encoding="utf-8", errors="replace")
    cut = _SCISSORS.search(text)
    text = text[: cut.start()] if cut else text
    return message("\n".join(line for line in text.splitlines() if not line.startswith("#")))


def install_hooks(repo: Store) -> HooksInstalled:
    """``memfs install-hooks``: see :mod:`memfs.store.hooks`."""
    return repo.install_hooks()


def _index() -> Path | None:
    name = os.environ.get("GIT_INDEX_FILE")
    return Path(name).resolve() if name else None


def _text(data: bytes | None) -> str | None:
    return None if data is None else data.decode("utf-8", "replace")


def _line(where: str, refusal: Refusal) -> str:
    """One refusal, naming where it is; a secret in a file's name is masked in the name shown."""
    if refusal.message.startswith("file name") and refusal.start is not None and refusal.end is not None:
        where = where[: refusal.start] + where[refusal.start : refusal.start + 4] + "…" + where[refusal.end :]
    text = refusal.message if refusal.message.startswith(where) else f"{where}: {refusal.message}"
    return f"{text} ({refusal.rule})"
