"""The merge driver: installing it in a clone, and the entry point git runs (``memfs merge-driver``).

What registration means (the per-clone git config, the ``.gitattributes`` line) is the store's
(:mod:`memfs.store.init`); the merge itself is policy (:mod:`memfs.policy.merge`). Git runs the
driver while it holds its own index lock, in the middle of a merge or rebase, so :func:`run`
only rewrites the one file git hands it and never commits.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from memfs.format.model import utcnow
from memfs.policy import concurrent, merge
from memfs.store import gitcli
from memfs.store.init import ATTRIBUTES_FILE, DRIVER, attributes_text, configure_merge_driver
from memfs.store.repo import Store


@dataclass(frozen=True)
class Installed:
    command: str
    attributes: str
    commit: str | None

    def to_json(self) -> dict[str, Any]:
        return {"driver": DRIVER, "command": self.command, "attributes": self.attributes, "commit": self.commit}


def install(repo: Store, command: str | None = None) -> Installed:
    """Configure the driver in this clone and make sure ``.gitattributes`` routes memories to it
    (committing that one file if it had to change)."""
    command = configure_merge_driver(repo.git, command)
    path = repo.root / ATTRIBUTES_FILE
    with repo.transaction("install-merge-driver", subject=ATTRIBUTES_FILE) as tx:
        new = attributes_text(path.read_text(encoding="utf-8") if path.exists() else "")
        if new is not None:
            tx.write_file(ATTRIBUTES_FILE, new.encode("utf-8"))
    return Installed(command, repo.git_path(ATTRIBUTES_FILE), tx.result.commit)


def run(base: Path, ours: Path, theirs: Path, path: str, marker_size: int = 7) -> bool:
    """What git's ``%O %A %B %P`` call does: merge into ``ours`` in place; ``True`` if clean.

    A withdrawal on one side against a new value on the other is held for review, as sync holds it
    (:mod:`memfs.policy.concurrent`), never merged into a retracted file with the new value."""
    base_data = base.read_bytes()
    mine, other = ours.read_bytes(), theirs.read_bytes()
    now = utcnow()
    held = concurrent.settle(path, base_data or None, concurrent.Side(mine), concurrent.Side(other), now, DRIVER)
    if held.rule == "review" and held.content is not None:
        ours.write_bytes(held.content)
        return True
    result = merge.merge_memory(
        path,
        base_data or None,
        mine,
        other,
        partial(gitcli.merge_text, labels=merge.LABELS, marker_size=marker_size),
        marker_size=marker_size,
    )
    ours.write_bytes(result.content)
    return result.clean
