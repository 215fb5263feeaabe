"""The live index's kept ``git status`` probe: what says which hits are uncommitted, kept between
queries and brought up to date path by path after the changes the live index hears of."""

from __future__ import annotations

import threading
from pathlib import Path

from memfs.store import gitcli

#: the most changed paths one update asks ``git status`` about alone (more: the whole tree)
REFRESH_PATHS = 200


class CachedProbeGit(gitcli.Git):
    """The repository's git, with the ``git status`` probe kept until the live index says the
    files or ``.git`` changed: the per-query scan the live index exists to skip.

    ``shared``: the git the server writes through. A whole-tree probe is then that git's
    (:meth:`~memfs.store.gitcli.status.WorkTree.shared_whole_probe`): one kept probe, exact at
    every call, carried over the server's own commits (``advance_kept``) and brought up to date
    from the work tree's events; so after a write the server made, the live update asks git
    about the written paths once, and the guard's check of the next write asks nothing again."""

    def __init__(self, workdir: Path, git_dir: Path, shared: gitcli.Git | None = None) -> None:
        super().__init__(workdir, git_dir)
        self._shared = shared
        self._probe: tuple[str, gitcli.Probe | None] | None = None
        self._probe_lock = threading.Lock()
        #: a refresh asked for and not yet taken in (:meth:`refresh_probe`); taken in by the next
        #: :meth:`probe`, under :attr:`_settle_lock` so no caller sees the probe before it
        self._refresh: tuple[tuple[str, gitcli.Probe | None], list[str], _Asked] | None = None
        self._settle_lock = threading.Lock()

    def probe(self, pathspec: str) -> gitcli.Probe | None:
        """With a ``shared`` git, the whole tree's probe is asked of it at every call: it is exact
        then (its watch is read as the call is made), where the kept one lags an edit until its
        event is processed, and a hit read from an edited file taken as committed would be
        injected; when nothing changed, that git asks nothing of git either."""
        self._settle()
        if self._shared is not None and pathspec == ".":
            found = self._shared.shared_whole_probe()
            with self._probe_lock:
                self._probe = (pathspec, found)
            return found
        with self._probe_lock:
            if self._probe is not None and self._probe[0] == pathspec:
                return self._probe[1]
        found = self._whole(pathspec)
        with self._probe_lock:
            self._probe = (pathspec, found)
        return found

    def _whole(self, pathspec: str) -> gitcli.Probe | None:
        if self._shared is not None and pathspec == ".":
            return self._shared.shared_whole_probe()
        return super().probe(pathspec)

    def forget_probe(self) -> None:
        with self._probe_lock:
            self._probe = None
            self._refresh = None

    def refresh_probe(self, pathspec: str, paths: list[str]) -> None:
        """Bring the kept probe up to date after a change to ``paths`` (git paths) and nothing
        else (no event on ``.git``): ``git status`` of those paths alone replaces what the kept
        probe listed of them, instead of one of the whole tree (an lstat of every tracked file:
        ~130 ms at 50k). That ``git status`` runs in a thread while the caller indexes the files
        (git reads its whole index, ~30 ms of its CPU at 100k, which the indexing overlaps); the
        next :meth:`probe` takes its answer in. Forgotten instead (the next probe is whole) when
        there is nothing kept, too many paths, HEAD differs, or git-ignored files are involved
        (git lists an ignored folder whole, not its files), and for a memory root below the
        repository's top (a ``.gitignore`` above it is not watched). No paths (a barrier alone):
        the kept probe stands. With a ``shared`` git, the thread takes that git's whole-tree probe
        (:meth:`_whole`), which asks about the changed paths alone, and it replaces the kept one."""
        self._settle()
        with self._probe_lock:
            kept = self._probe
        if kept is not None and not paths:
            return
        limit = len(paths) > REFRESH_PATHS and self._shared is None
        if kept is None or kept[0] != pathspec or kept[1] is None or limit or pathspec != ".":
            self.forget_probe()
            return
        asked = _Asked(self, paths)
        with self._probe_lock:
            self._refresh = (kept, paths, asked)

    def _settle(self) -> None:
        """Take in the refresh asked for last, if any (waiting for its ``git status``)."""
        with self._settle_lock:
            with self._probe_lock:
                pending, self._refresh = self._refresh, None
            if pending is None:
                return
            kept, paths, asked = pending
            old, found = kept[1], asked.result()
            assert old is not None
            if self._shared is not None:
                with self._probe_lock:
                    if self._probe is kept:
                        self._probe = (kept[0], found) if found is not None else None
                return
            if found is None or found.head != old.head or found.ignored or _under_any(paths, old.ignored):
                with self._probe_lock:
                    if self._probe is kept:
                        self._probe = None
                return
            changed = set(paths)
            listed = tuple(sorted({*(p for p in old.listed if p not in changed), *found.listed}))
            with self._probe_lock:
                if self._probe is kept:
                    self._probe = (kept[0], gitcli.Probe(old.head, listed, old.ignored, old.staged or found.staged))


class _Asked:
    """``git status`` of some paths, run in a thread of its own (the wait for git releases the
    interpreter to the caller's indexing). Any failure is an answer of ``None``: the kept probe
    is then forgotten and the next one is whole."""

    def __init__(self, git: CachedProbeGit, paths: list[str]) -> None:
        self.found: gitcli.Probe | None = None
        self._thread = threading.Thread(target=self._run, args=(git, paths), name="memfs-live-status", daemon=True)
        self._thread.start()

    def _run(self, git: CachedProbeGit, paths: list[str]) -> None:
        try:
            self.found = git._whole(".") if git._shared is not None else gitcli.Git.probe_paths(git, paths)
        except Exception:  # any failure means: ask the whole tree next time
            self.found = None

    def result(self) -> gitcli.Probe | None:
        self._thread.join()
        return self.found


def _under_any(paths: list[str], entries: tuple[str, ...]) -> bool:
    """Whether a path is one of ``entries`` or inside one of its folders (``drafts/``)."""
    folders = tuple(e for e in entries if e.endswith("/"))
    exact = set(entries)
    return any(p in exact or p.startswith(folders) for p in paths) if entries else False
