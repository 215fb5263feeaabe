"""What enters the repository from outside before it is accepted: a fetch into a quarantine
object folder, the commits it brought and what they change, and the staged changes of a commit
being made by hand (the hooks).

A fetch normally writes the objects it receives into the repository at once, so a fetch that is
then refused still leaves them there (in a pack or loose, for ``git cat-file`` and every clone of
this one made before a ``gc``). :meth:`Quarantine.fetch_quarantined` writes them to a folder of
their own instead, reading the repository's objects as alternates (the way ``git receive-pack``
quarantines a push); :meth:`Quarantine.adopt` moves them in once they are accepted, and removing
the folder forgets them: nothing was ever written to the repository's object store or refs.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from memfs.errors import GitError
from memfs.store.gitcli import process
from memfs.store.gitcli.refs import Refs
from memfs.store.gitcli.trees import batch_contents

_NO_BLOB = "0" * 40
#: Fetch settings that would write outside the quarantine (automatic gc and maintenance, the
#: commit-graph) are off for the quarantined fetch.
_QUIET_FETCH = ("-c", "gc.auto=0", "-c", "maintenance.auto=false", "-c", "fetch.writeCommitGraph=false")


@dataclass(frozen=True)
class Change:
    """One file a commit changes: its path from the work tree's top, the blob before (``None``:
    new) and after (``None``: deleted, or a submodule's commit rather than a blob)."""

    path: str
    before: str | None
    after: str | None


@dataclass(frozen=True)
class Incoming:
    """A commit not yet in this repository: its id, its message (trailers included), and the
    files it changes against its first parent (all of them, for a root commit)."""

    sha: str
    message: str
    changes: tuple[Change, ...]


class Quarantine(Refs):
    """Fetching into quarantine, and reading commits and the index before they are accepted."""

    def hooks_dir(self) -> Path:
        """The repository's own hooks folder (shared by linked work trees)."""
        return self._common_dir() / "hooks"

    def quarantine_dir(self) -> tuple[Path, Path]:
        """(a new, empty quarantine folder inside the git directory, the repository's object
        folder): inside it, so :meth:`adopt` moves files by renaming them."""
        objects = self._common_dir() / "objects"
        folder = self._common_dir() / f"memfs-quarantine-{os.getpid()}"
        shutil.rmtree(folder, ignore_errors=True)
        (folder / "pack").mkdir(parents=True)
        (folder / "info").mkdir()
        return folder, objects

    def fetch_quarantined(self, remote: str, branch: str, objects: tuple[Path, Path]) -> str | None:
        """Fetch ``remote``'s ``branch`` with its new objects written only to the quarantine
        ``objects[0]``: its tip, or ``None`` if the branch does not exist. No ref changes (the
        tip is read from ``FETCH_HEAD``, which is then removed; ``--refmap=`` keeps git from updating
        the remote-tracking ref on its own, as it does for a branch named on the command line)."""
        tips = self.fetch_quarantined_many(remote, [branch], objects)
        return None if tips is None else tips[branch]

    def fetch_quarantined_many(
        self, remote: str, branches: Sequence[str], objects: tuple[Path, Path]
    ) -> dict[str, str] | None:
        """:meth:`fetch_quarantined` of several branches in one fetch (one connection, one pack):
        each branch's tip, or ``None`` when any of them does not exist (git fetches none then)."""
        refspecs = [f"refs/heads/{branch}" for branch in branches]
        proc = self._run(*_QUIET_FETCH, "fetch", "--quiet", "--no-tags", "--refmap=", remote, *refspecs,
                         check=False, objects=objects)
        fetch_head = self.git_dir / "FETCH_HEAD"
        named = ", ".join(f"{remote}/{branch}" for branch in branches)
        try:
            if proc.returncode != 0:
                message = process.output(proc)
                if "couldn't find remote ref" in message:
                    return None
                raise GitError(f"fetching {named} failed, nothing was changed: {message}")
            lines = fetch_head.read_text(encoding="utf-8", errors="replace").splitlines()
        finally:
            fetch_head.unlink(missing_ok=True)
        # one line per refspec, in their order: ``SHA<TAB><TAB>branch 'NAME' of URL``
        tips = [line.split("\t", 1)[0].strip() for line in lines if line.strip()]
        if len(tips) != len(branches) or any(len(tip) != 40 for tip in tips):
            raise GitError(f"fetching {named}: git wrote {len(tips)} commit id(s) to FETCH_HEAD for "
                           f"{len(branches)} branch(es)")
        return dict(zip(branches, tips, strict=True))

    def incoming(
        self, tip: str | Sequence[str], objects: tuple[Path, Path] | None = None, known: Sequence[str] = ("--all",)
    ) -> list[Incoming]:
        """The commits reachable from ``tip`` (one commit or several) and from none of ``known``
        (default: no ref of this repository), each with its message and the files it changes (a
        merge: against its first parent, so what the merge itself adds is seen). Two git
        processes: the log, and one batch read of the messages."""
        return self.incoming_read(tip, objects, known)[0]

    def incoming_read(
        self, tip: str | Sequence[str], objects: tuple[Path, Path] | None = None, known: Sequence[str] = ("--all",),
        blobs: Callable[[Sequence[Change]], Sequence[str]] | None = None,
    ) -> tuple[list[Incoming], dict[str, bytes]]:
        """:meth:`incoming`, and the contents of the blobs ``blobs`` names for the changes of all
        those commits (id -> content; missing ones left out), read in the same batch as the
        messages: still two git processes."""
        tips = [tip] if isinstance(tip, str) else list(tip)
        out = self._run("log", "-z", "--format=%H", "--raw", "--no-renames", "--no-abbrev",
                        "--diff-merges=first-parent", *tips, "--not", *known, objects=objects).stdout
        order: list[str] = []
        changes: dict[str, list[Change]] = {}
        tokens = out.decode("utf-8", "surrogateescape").split("\0")
        i = 0
        while i < len(tokens):
            token = tokens[i].lstrip("\n")
            if token.startswith(":") and order and i + 1 < len(tokens):
                meta = token.split()
                before, after = meta[2], meta[3]
                blob = meta[1] != "160000" and after != _NO_BLOB
                changes[order[-1]].append(
                    Change(tokens[i + 1], None if before == _NO_BLOB else before, after if blob else None))
                i += 2
                continue
            if token:
                order.append(token)
                changes[token] = []
            i += 1
        wanted = list(blobs([c for sha in order for c in changes[sha]])) if blobs is not None and order else []
        contents = self.read_typed([*order, *wanted], objects)
        found = [Incoming(sha, _message(contents.get(sha, b"")), tuple(changes[sha])) for sha in order]
        return found, {sha: contents[sha] for sha in wanted if sha in contents}

    def read_typed(self, shas: Sequence[str], objects: tuple[Path, Path] | None = None) -> dict[str, bytes]:
        """The contents of the objects ``shas`` (any type) in one ``git cat-file --batch``."""
        wanted = list(dict.fromkeys(shas))
        if not wanted:
            return {}
        out = self._run("cat-file", "--batch", stdin="".join(f"{s}\n" for s in wanted).encode(),
                        objects=objects).stdout
        return batch_contents(wanted, out)

    def adopt(self, objects: tuple[Path, Path]) -> None:
        """Move the quarantine's objects into the repository (packs before their indexes, so git
        never sees an index without its pack), then remove the quarantine."""
        folder, target = objects
        files = sorted((p for p in folder.rglob("*") if p.is_file() and p.parent.name != "info"),
                       key=lambda p: (p.suffix == ".idx", p.suffix in (".rev", ".bitmap"), str(p)))
        for path in files:
            dest = target / path.relative_to(folder)
            dest.parent.mkdir(parents=True, exist_ok=True)
            if not dest.exists():
                os.replace(path, dest)
        shutil.rmtree(folder, ignore_errors=True)

    def discard(self, objects: tuple[Path, Path]) -> None:
        shutil.rmtree(objects[0], ignore_errors=True)

    def write_tree(self, index: Path | None) -> str:
        """The tree a commit made from ``index`` (``None``: the repository's own) would have."""
        return self._run("write-tree", index=index).stdout.decode().strip()

    def staged(self, index: Path | None, pathspec: Sequence[str]) -> list[Change]:
        """What a commit being made from ``index`` (``None``: the repository's own) changes against
        HEAD under ``pathspec`` (all of it against an empty tree before the first commit)."""
        base = "HEAD" if self.head() is not None else "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
        out = self._run("diff-index", "--cached", "-z", "--no-renames", "--no-abbrev", base, "--", *pathspec,
                        index=index).stdout.decode("utf-8", "surrogateescape").split("\0")
        found = []
        for meta, path in zip(out[0::2], out[1::2], strict=False):
            parts = meta.lstrip(":").split()
            if len(parts) < 5:
                continue
            before, after = parts[2], parts[3]
            blob = parts[1] != "160000" and after != _NO_BLOB
            found.append(Change(path, None if before == _NO_BLOB else before, after if blob else None))
        return found


def _message(commit: bytes) -> str:
    """A commit object's message (after the headers), as text."""
    body = commit.partition(b"\n\n")[2]
    return body.decode("utf-8", "replace")
