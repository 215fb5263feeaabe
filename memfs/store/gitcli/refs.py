"""Refs, commits and configuration: HEAD (read from files where it can be), names resolved, branches
and refs moved, the repository's config and remotes."""

from __future__ import annotations

import zlib
from collections.abc import Mapping, Sequence
from pathlib import Path

from memfs.errors import GitError
from memfs.store.gitcli import process
from memfs.store.gitcli.files import branch_from_files, ref_from_files, ref_names_from_files
from memfs.store.gitcli.process import Base, Identity

#: How many ancestor pairs :meth:`Refs.is_ancestor` keeps before starting over (a long-lived server).
_ANCESTRY_KEPT = 1024


class Refs(Base):
    """HEAD, refs, branches and configuration."""

    def _common_dir(self) -> Path:
        """Where refs and objects shared by every work tree live (the git directory itself unless
        this is a linked work tree). Raises :class:`OSError`."""
        if (self.git_dir / "commondir").is_file():
            return self.git_dir / (self.git_dir / "commondir").read_text(encoding="ascii").strip()
        return self.git_dir

    def head_and_parents(self) -> tuple[str, tuple[str, ...]]:
        """HEAD and its parents, right after a commit: read from the files when HEAD is a loose ref
        and the commit a loose object (as ``git commit`` leaves them; no process), else from one
        ``rev-parse``. Raises :class:`GitError` without HEAD."""
        head = self.head()
        if head is not None:
            try:
                data = (self._common_dir() / "objects" / head[:2] / head[2:]).read_bytes()
                return head, _commit_parents(zlib.decompress(data))
            except (OSError, zlib.error, ValueError):
                pass
        sha, *parents = self._text("rev-parse", "HEAD", "HEAD^@").split()
        return sha, tuple(parents)

    def rev(self, name: str) -> str | None:
        """The commit ``name`` points to, or ``None`` if there is no such ref/commit."""
        proc = self._run("rev-parse", "--verify", "-q", "--end-of-options", name + "^{commit}", check=False)
        return proc.stdout.decode().strip() or None

    def resolve(self, rev: str) -> str:
        """The commit ``rev`` names; :class:`GitError` if there is none."""
        sha = self.rev(rev)
        if not sha:
            raise GitError(f"{rev!r} is not a commit in this repository")
        return sha

    def rev_before(self, epoch: float) -> str | None:
        """The commit HEAD pointed to at Unix time ``epoch`` (first-parent history), if any.

        Compared in Python rather than with ``--before``, whose date parser misreads small and
        far-future timestamps.
        """
        if self.head() is None:
            return None
        for entry in self._text("log", "--first-parent", "--format=%H %ct", "HEAD").splitlines():
            sha, _, seconds = entry.partition(" ")
            if int(seconds) <= epoch:
                return sha
        return None

    def branch(self) -> str | None:
        """The checked-out branch's short name; ``None`` on a detached HEAD. From the files where
        they are git's answer (:func:`~.files.branch_from_files`), else ``git symbolic-ref``."""
        found = branch_from_files(self.git_dir)
        if found is not None:
            return found or None
        proc = self._run("symbolic-ref", "-q", "--short", "HEAD", check=False)
        return proc.stdout.decode().strip() or None

    def is_ancestor(self, older: str, newer: str) -> bool:
        """Whether ``older`` is ``newer`` or in its history (``git merge-base --is-ancestor``).
        Between two commit ids the answer never changes while both exist, so what git has shown
        here (this answer, or a :meth:`merge_base` that was one of the two) is not asked again;
        a rewrite of history (:meth:`forget_ancestry`) forgets it."""
        if (older, newer) in self._ancestry:
            return True
        found = self._ok("merge-base", "--is-ancestor", older, newer)
        if found:
            self._learn(older, newer)
        return found

    def merge_base(self, a: str, b: str) -> str | None:
        base = self._text("merge-base", a, b, check=False).strip() or None
        if base is not None and base in (a, b):
            self._learn(base, b if base == a else a)
        return base

    def count_over(self, older: str, newer: str) -> int | None:
        """The number of commits in ``newer``'s history that ``older``'s lacks (``rev-list --count
        older..newer``) when ``older`` is ``newer`` or its ancestor, else ``None`` (as
        :meth:`is_ancestor` would say ``False``). One ``rev-list --left-right --count`` over
        ``older...newer`` answers both: ``older`` is an ancestor exactly when nothing of its
        history is missing from ``newer``'s."""
        if (older, newer) in self._ancestry:
            return self.count(f"{older}..{newer}")
        proc = self._run("rev-list", "--left-right", "--count", f"{older}...{newer}", check=False)
        counts = proc.stdout.decode().split()
        if proc.returncode != 0 or len(counts) != 2 or counts[0] != "0":
            return None
        self._learn(older, newer)
        return int(counts[1])

    def _learn(self, older: str, newer: str) -> None:
        """Note that commit ``older`` is in commit ``newer``'s history (full ids only: a name moves)."""
        if _is_sha(older) and _is_sha(newer):
            if len(self._ancestry) >= _ANCESTRY_KEPT:
                self._ancestry.clear()
            self._ancestry.add((older, newer))

    def forget_ancestry(self) -> None:
        """Forget what :meth:`is_ancestor` learned: after history was rewritten and objects pruned,
        a commit it knew may be gone, and git would then say it is nobody's ancestor."""
        self._ancestry.clear()

    def count(self, revision_range: str) -> int:
        return int(self._text("rev-list", "--count", revision_range).strip() or 0)

    def count_all(self) -> int:
        """Commits reachable from any ref."""
        return int(self._text("rev-list", "--all", "--count").strip() or 0) if self.head() else 0

    def ref_from_files(self, ref: str) -> str | None:
        """The commit id the branch or remote-tracking ref ``ref`` holds, read from git's files
        (:func:`~.files.ref_from_files`; ``""``: no such ref), or ``None`` when the files cannot
        say: for a caller that only saves a process when it knows."""
        return ref_from_files(self.git_dir, ref)

    def no_refs_under(self, prefix: str, but: Sequence[str] = ()) -> bool:
        """Whether git's files show no ref under ``prefix`` besides ``but``
        (:func:`~.files.ref_names_from_files`); ``False`` when they cannot say."""
        named = ref_names_from_files(self.git_dir, prefix)
        return named is not None and not named - set(but)

    def update_ref(self, ref: str, sha: str, message: str = "memfs") -> None:
        self._text("update-ref", "-m", message, ref, sha)

    def refs(self, prefix: str, *, merged: str | None = None) -> list[tuple[str, str]]:
        """(ref, commit) of every ref under ``prefix``, sorted by name; with ``merged``, only those
        whose commit is reachable from it."""
        where = (f"--merged={merged}",) if merged is not None else ()
        out = self._text("for-each-ref", "--sort=refname", "--format=%(refname) %(objectname)", *where, prefix)
        return [(ref, sha) for ref, _, sha in (line.partition(" ") for line in out.splitlines() if line)]

    def changes_on(self, tip: str, commit: str) -> bool:
        """Whether each commit of ``commit``'s history that ``tip`` lacks has an equal change on
        ``tip`` (``git cherry``: the same patch id, as after a rebase)."""
        out = self._text("cherry", tip, commit)
        return all(line.startswith("-") for line in out.splitlines() if line)

    def update_refs(self, moves: Mapping[str, str], message: str = "memfs") -> None:
        """Point each ref of ``moves`` at its commit, in one transaction (all or none)."""
        lines = "".join(f"update {ref} {sha}\n" for ref, sha in moves.items())
        self._run("update-ref", "-m", message, "--stdin", stdin=lines.encode())

    def delete_refs(self, refs: Sequence[str]) -> None:
        """Delete ``refs`` in one transaction."""
        self._run("update-ref", "--stdin", stdin="".join(f"delete {ref}\n" for ref in refs).encode())

    def read_tag(self, sha: str) -> bytes | None:
        """The raw annotated tag object ``sha`` (``None`` for a lightweight tag's commit)."""
        proc = self._run("cat-file", "tag", sha, check=False)
        return proc.stdout if proc.returncode == 0 else None

    def blobs_reachable(self, rev: str) -> list[str]:
        """Every blob in the history of ``rev``."""
        out = self._text("rev-list", "--objects", "--filter=object:type=blob", rev)
        return [line.split()[0] for line in out.splitlines() if len(line.split(maxsplit=1)) == 2]  # commits: no path

    def tree_entries(self, rev: str) -> list[tuple[str, str, str, str]]:
        """(mode, type, sha, path) of every file in ``rev``'s tree, recursively."""
        out = self._text("ls-tree", "-r", "-z", rev)
        entries = []
        for item in process.nul_list(out):
            meta, _, path = item.partition("\t")
            mode, kind, sha = meta.split()
            entries.append((mode, kind, sha, path))
        return entries

    def replace_ref_with_tree(
        self, ref: str, entries: list[tuple[str, str, str, str]], message: str, identity: Identity
    ) -> None:
        """Point ``ref`` at a new parentless commit of a tree holding ``entries`` (its old history dropped)."""
        listing = "".join(f"{mode} {kind} {sha}\t{path}\0" for mode, kind, sha, path in entries)
        tree = self._run("mktree", "-z", "--missing", stdin=listing.encode("utf-8")).stdout.decode().strip()
        commit = self._text("commit-tree", tree, "-F", "-", stdin=message.encode("utf-8"), identity=identity).strip()
        self._text("update-ref", ref, commit)

    def reaches_any(self, rev: str, commits: Sequence[str]) -> bool:
        """Whether any of ``commits`` is ``rev`` or in its history."""
        if not commits:
            return False
        proc = self._run("rev-list", rev, check=False)
        return proc.returncode == 0 and not set(proc.stdout.decode().split()).isdisjoint(commits)

    def valid_branch_name(self, name: str) -> bool:
        return self._ok("check-ref-format", "--branch", name)

    def create_branch(self, name: str, start: str) -> None:
        self._text("branch", "--no-track", name, start)

    def delete_branch(self, name: str) -> None:
        self._text("branch", "-D", name)

    def config_get(self, key: str) -> str | None:
        proc = self._run("config", "--get", key, check=False)
        return proc.stdout.decode("utf-8", "replace").strip() if proc.returncode == 0 else None

    def config_matching(self, pattern: str) -> dict[str, str]:
        """Every config entry whose key matches ``pattern`` (git's extended regex), in one
        process: key (section and name in lower case, as git prints them) -> value, the last one
        where a key is set more than once (as ``--get`` answers)."""
        proc = self._run("config", "-z", "--get-regexp", pattern, check=False)
        found = {}
        for item in proc.stdout.decode("utf-8", "replace").split("\0"):
            key, _, value = item.partition("\n")
            if key:
                found[key] = value
        return found

    def config_set(self, key: str, value: str) -> None:
        self._text("config", key, value)

    def remotes(self) -> list[str]:
        return self._text("remote").split()

    def remote_url(self, name: str) -> str | None:
        return self._text("remote", "get-url", name, check=False).strip() or None


def _commit_parents(raw: bytes) -> tuple[str, ...]:
    """The parents named by a loose commit object (header, NUL, then ``tree``/``parent`` lines);
    :class:`ValueError` if it is not a commit."""
    header, _, body = raw.partition(b"\0")
    if not header.startswith(b"commit "):
        raise ValueError("not a commit")
    parents = []
    for line in body.split(b"\n"):
        if line.startswith(b"parent "):
            parents.append(line[len(b"parent "):].decode("ascii"))
        elif not line.startswith(b"tree "):
            break
    if not all(_is_sha(p) for p in parents):
        raise ValueError("bad parent")
    return tuple(parents)


def _is_sha(text: str) -> bool:
    return len(text) in (40, 64) and all(c in "0123456789abcdef" for c in text)
