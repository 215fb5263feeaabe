"""The cross-file part of a cached ``memfs validate`` (:mod:`memfs.store.validating`): what the file
system answers about each ``depends_on`` target, asked again only where it can have changed.

A target's answer is ``[why it is refused as a path, whether a plain file is there]``
(:func:`answer`). Asking it means :func:`memfs.store.paths.confine` (the target's spelling, then
one ``lstat`` per folder on its way and of the entry itself) and an existence check: at 30k
memories with a few thousand distinct targets, most of an unchanged validate. :class:`Dependencies`
answers a target without asking when the answer can be proven from what this run has already seen:

- the target was answered ``[None, True]`` before (its spelling passed :func:`paths.lexical_rel`);
- it is in Unicode NFC, so :func:`paths.lexical_rel` judges it by its spelling alone (a pure
  function, whose source is in the findings cache's fingerprint): it passes again, and names the
  target itself, since it is a path the walk found (no ``.``, ``..`` or empty part to normalise);
- this run found it as a memory file and read it, or took its ``lstat`` as a regular file with one
  link (:meth:`memfs.store.findings.Cache.unchanged`; :func:`paths.read_file` refuses anything
  else): so its last entry is no symlink, no hard link and no folder (so not ``.git/``, ``.memfs/``
  or the git directory by identity), and a plain file is there;
- every folder on its way passes :func:`paths.confine` (no symlink, not one of those three
  folders by device and inode), asked once per folder in this run.

Those are all the checks :func:`paths.confine` and :func:`paths.is_plain_file` make, so the answer
is theirs, on the file system as this run saw it (as :class:`paths.Checked` takes a folder as seen
once for one operation). Any other target is asked in full.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from typing import Any, Protocol

from memfs.format import names

#: the answer of a target that passes as a path and is a plain file
PLAIN = [None, True]


class Asking(Protocol):
    """What the answers need of :class:`memfs.store.reading.Reader`."""

    def exists(self, rel: str) -> bool: ...

    def _dependency_refusal(self, dep: str, *, folder: bool = False) -> str | None: ...


def answer(repo: Asking, dep: str) -> list[Any]:
    """What the cross-file checks ask the file system about a ``depends_on`` entry: why it is
    refused as a path, else whether a plain file is there."""
    refused = repo._dependency_refusal(dep)
    return [refused, refused is None and repo.exists(dep)]


class Dependencies:
    """The answer for each target (:func:`answer`), taken as proven (see the module docstring) for
    a target answered :data:`PLAIN` in ``kept`` that is among ``plain``, the memory files this run
    found as regular files with one link."""

    def __init__(self, repo: Asking, plain: set[str], kept: Mapping[str, Any]) -> None:
        self.repo = repo
        self.plain = plain
        self.kept = kept
        self.folders: dict[str, bool] = {}
        #: the targets asked in full (for tests and figures)
        self.asked: list[str] = []

    def __call__(self, dep: str) -> list[Any]:
        if self.kept.get(dep) == PLAIN and dep in self.plain and names.nfc(dep) == dep and self._passes(dep):
            return list(PLAIN)
        self.asked.append(dep)
        return answer(self.repo, dep)

    def _passes(self, dep: str) -> bool:
        folder = posixpath.dirname(dep)
        if not folder:
            return True
        if folder not in self.folders:
            self.folders[folder] = self.repo._dependency_refusal(folder, folder=True) is None
        return self.folders[folder]
