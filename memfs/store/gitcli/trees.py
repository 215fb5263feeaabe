"""Reading committed files and trees, and ``git grep`` over the work tree or a commit."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from memfs.store.gitcli import process
from memfs.store.gitcli.process import Base


class Trees(Base):
    """Blobs, trees and grep."""

    def read_blobs(self, rev: str, paths: list[str]) -> dict[str, bytes]:
        """The contents of ``paths`` at ``rev`` in one ``git cat-file --batch`` (missing paths left out)."""
        if not paths:
            return {}
        request = "".join(f"{rev}:{p}\n" for p in paths).encode("utf-8")
        return _blobs(paths, self._run("cat-file", "--batch", stdin=request).stdout)

    def read_objects(self, shas: Sequence[str]) -> dict[str, bytes]:
        """The contents of the blobs ``shas`` in one ``git cat-file --batch`` (missing ones left out)."""
        wanted = list(dict.fromkeys(shas))
        if not wanted:
            return {}
        out = self._run("cat-file", "--batch", stdin="".join(f"{s}\n" for s in wanted).encode()).stdout
        return _blobs(wanted, out)

    def read_versions(self, wanted: Sequence[tuple[str, str]]) -> dict[tuple[str, str], bytes]:
        """The contents of each (rev, path) of ``wanted`` that is a file at that commit, in one
        ``git cat-file --batch`` (what :meth:`show_file` answers for each; the others left out).
        A path with a line break, which the batch protocol cannot carry, is asked alone."""
        plain = list(dict.fromkeys(pair for pair in wanted if "\n" not in pair[1]))
        found: dict[tuple[str, str], bytes] = {}
        if plain:
            keys = [f"{rev}:{path}" for rev, path in plain]
            out = self._run("cat-file", "--batch", stdin="".join(f"{k}\n" for k in keys).encode("utf-8")).stdout
            contents = _blobs(keys, out)
            found = {pair: contents[key] for pair, key in zip(plain, keys, strict=True) if key in contents}
        for rev, path in wanted:
            if "\n" in path and (data := self.show_file(rev, path)) is not None:
                found[(rev, path)] = data
        return found

    def blob_ids(self, rev: str, folders: Sequence[str]) -> dict[str, str]:
        """Path -> blob id of every file at ``rev`` in ``folders`` and below, one ``git ls-tree``
        (it walks only those trees): which committed copies a caller already holds, by hashing
        its bytes (:func:`blob_id`), before it reads the others."""
        if not folders:
            return {}
        out = self._text("ls-tree", "-r", "-z", rev, "--", *process.literal(*folders))
        ids = {}
        for item in process.nul_list(out):
            meta, _, path = item.partition("\t")
            _, kind, sha = meta.split(" ")
            if kind == "blob":
                ids[path] = sha
        return ids

    def show_file(self, rev: str, path: str) -> bytes | None:
        proc = self._run("cat-file", "blob", f"{rev}:{path}", check=False)
        return proc.stdout if proc.returncode == 0 else None

    def head_file(self, path: str) -> bytes | None:
        """``path`` as committed at HEAD (``None`` without HEAD or without the file)."""
        return self.show_file("HEAD", path) if self._has_head() else None

    def tree_files(self, rev: str, pathspec: str) -> list[str]:
        """Every file under ``pathspec`` at ``rev`` (``ls-tree -r``)."""
        return process.nul_list(self._text("ls-tree", "-r", "-z", "--name-only", rev, "--", *process.literal(pathspec)))

    def grep_files(self, pattern: str, pathspec: str, *, fixed: bool) -> list[str]:
        """Files under ``pathspec`` (working tree, untracked too) with a line matching ``pattern``
        (a fixed string, or a POSIX extended regex)."""
        mode = "-F" if fixed else "-E"
        out = self._text("grep", "-l", "-z", "--untracked", mode, "-e", pattern, "--", pathspec, check=False)
        return process.nul_list(out)

    def grep_files_at(self, rev: str, patterns: Sequence[str], pathspec: str) -> list[str]:
        """Files committed at ``rev`` under ``pathspec`` that contain any of the fixed strings
        ``patterns`` (one ``git grep`` over the tree, no checkout)."""
        if not patterns:
            return []
        args = [arg for p in patterns for arg in ("-e", p)]
        out = self._text("grep", "-l", "-z", "-F", *args, rev, "--", pathspec, check=False)
        return [name.split(":", 1)[1] if name.startswith(rev + ":") else name for name in process.nul_list(out)]

    def grep_lines(self, patterns: Sequence[str], pathspec: str, *, fixed: bool) -> list[tuple[str, str]]:
        """(file, line) for each line matching any of ``patterns`` (working tree, untracked too)."""
        mode = "-F" if fixed else "-E"
        args = [arg for p in patterns for arg in ("-e", p)]
        out = self._text("grep", "-z", "--untracked", mode, *args, "--", pathspec, check=False)
        found = []
        for entry in out.split("\n"):
            name, sep, text = entry.partition("\0")
            if sep:
                found.append((name, text))
        return found


def blob_id(data: bytes, like: str) -> str:
    """The id git gives a blob of ``data``, in the hash of the id ``like`` (SHA-1, or SHA-256 in a
    repository made with ``--object-format=sha256``)."""
    digest = hashlib.sha256() if len(like) == 64 else hashlib.sha1(usedforsecurity=False)
    digest.update(b"blob %d\0" % len(data))
    digest.update(data)
    return digest.hexdigest()


def _blobs(keys: Sequence[str], out: bytes) -> dict[str, bytes]:
    """``git cat-file --batch`` output for the requests ``keys``: the blobs' contents by key."""
    return batch_contents(keys, out, b"blob")


def batch_contents(keys: Sequence[str], out: bytes, kind: bytes | None = None) -> dict[str, bytes]:
    """``git cat-file --batch`` output for the requests ``keys``, in order: the objects' contents
    by key (with ``kind``, only objects of that type). Every object's content is stepped over,
    whatever its type (a tree or commit answering a blob request is skipped, not read as the next
    header); missing objects have no content."""
    found: dict[str, bytes] = {}
    pos = 0
    for key in keys:
        end = out.index(b"\n", pos)
        header = out[pos:end].split()
        pos = end + 1
        if len(header) == 3 and header[2].isdigit():
            size = int(header[2])
            if kind is None or header[1] == kind:
                found[key] = out[pos : pos + size]
            pos += size + 1
    return found
