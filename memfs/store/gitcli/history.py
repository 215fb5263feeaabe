"""History: the log of a path or of messages, every version of files, renames."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from memfs.errors import GitError
from memfs.store.gitcli import process
from memfs.store.gitcli.process import Base


@dataclass(frozen=True)
class Commit:
    sha: str
    author: str
    email: str
    time: str
    subject: str
    body: str
    files: tuple[str, ...]


class History(Base):
    """Reading history."""

    def file_versions(self, rev_range: str, pathspec: str) -> list[tuple[str, str]]:
        """(path, blob) of every version of every file under ``pathspec`` that a commit in
        ``rev_range`` wrote or replaced (merges against each parent; renames not followed)."""
        out = self._text(
            "log", "-m", "--raw", "-z", "--no-renames", "--no-abbrev", "--format=%x1e", rev_range,
            "--", *process.literal(pathspec),
        )
        found: list[tuple[str, str]] = []
        tokens = out.split("\0")
        i = 0
        while i < len(tokens):
            token = tokens[i].lstrip("\n\x1e")
            if token.startswith(":") and i + 1 < len(tokens):
                fields = token.split()
                for blob in fields[2:4]:
                    if blob.strip("0"):
                        found.append((tokens[i + 1], blob))
                i += 2
            else:
                i += 1
        return found

    def log(
        self,
        *,
        path: str | None = None,
        grep: str | None = None,
        limit: int | None = None,
        rev: str = "HEAD",
        follow: bool = True,
    ) -> list[Commit]:
        """Commits of ``rev`` (of ``path``, matching ``grep``), newest first; none before the
        first commit. One process: whether HEAD exists is asked only when the log fails."""
        if rev != "HEAD" and self.head() is None:
            return []
        args = ["log", "-z", "--name-only", "--format=%x1e%H%x1f%an%x1f%ae%x1f%aI%x1f%s%x1f%b%x1f"]
        if limit:
            args.append(f"-n{limit}")
        if grep:
            args += ["-E", f"--grep={grep}"]
        args.append(rev)
        if path is not None:
            args += (["--follow"] if follow else []) + ["--", *process.literal(path)]
        proc = self._run(*args, check=False)
        if proc.returncode != 0:
            if self.head() is None:
                return []
            raise GitError(f"git log failed: {process.output(proc)}")
        return _parse_log(proc.stdout.decode("utf-8", "replace"))

    def messages(self, rev_range: str, grep: str) -> list[tuple[str, str]]:
        """(commit, full message) of every commit in ``rev_range`` whose message matches the
        extended regex ``grep``, newest first."""
        if self.head() is None:
            return []
        out = self._text("log", "-E", f"--grep={grep}", "--format=%x1e%H%x1f%B", rev_range)
        return [(sha, body) for sha, _, body in (r.partition("\x1f") for r in out.split("\x1e")[1:])]

    def commits_touching(self, paths: Sequence[str]) -> list[str]:
        """Every commit on any ref that touches one of ``paths``, newest first."""
        if self.head() is None:
            return []
        return self._text("log", "--all", "--format=%H", "--", *process.literal(*paths)).split()

    def last_commit_writing(self, path: str) -> str | None:
        """The newest commit on any ref that added or modified ``path``."""
        out = self._text("log", "--all", "-n1", "--format=%H", "--diff-filter=AM", "--", *process.literal(path))
        return out.strip() or None

    def renames(self) -> list[tuple[str, str, str]]:
        """(commit, old path, new path) of every rename git detects on any ref."""
        if self.head() is None:
            return []
        out = self._text("log", "--all", "-M", "--diff-filter=R", "--name-status", "-z", "--format=%x1e%H")
        found = []
        for record in out.split("\x1e")[1:]:
            sha, *fields = record.split("\0")
            i = 0
            while i < len(fields):
                status = fields[i].lstrip("\n")
                if status.startswith(("R", "C")) and i + 2 < len(fields):
                    if status.startswith("R"):
                        found.append((sha.strip(), fields[i + 1], fields[i + 2]))
                    i += 3
                else:
                    i += 1 if not status else 2
        return found


def _parse_log(out: str) -> list[Commit]:
    commits = []
    for record in out.split("\x1e")[1:]:
        sha, author, email, time, subject, body, files = record.split("\x1f", 6)
        names = tuple(f for f in files.strip("\n\0").split("\0") if f.strip("\n"))
        commits.append(Commit(sha, author, email, time, subject, body.strip(), tuple(n.strip("\n") for n in names)))
    return commits
