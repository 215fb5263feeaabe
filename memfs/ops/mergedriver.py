"""The git side of the merge driver: registering it in a clone, and the entry point git runs.

Registration has two halves. ``.gitattributes`` (committed, shared by every clone) says
``*.md merge=memfs``; the command lives in each clone's own ``.git/config`` (git never takes
commands from a repository's content). A clone without that config still merges: git falls back
to its built-in text merge for a ``merge=`` driver it does not know, so nothing breaks, the
merges are just line-based (see the README's collaboration section).
"""

from __future__ import annotations

import re
import shlex
import sys
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from memfs.policy import merge
from memfs.store import gitcli
from memfs.store.commits import Message
from memfs.store.repo import MemoryRepo

DRIVER = "memfs"
ATTRIBUTES_FILE = ".gitattributes"
ATTRIBUTE_LINE = "*.md merge=memfs"
_ATTRIBUTE = re.compile(r"^\*\.md\s(?:.*\s)?merge=memfs(?:\s|$)", re.MULTILINE)


def default_command() -> str:
    """The driver command git runs: this Python's ``-m memfs``, so it works without ``memfs`` on PATH."""
    return f"{shlex.quote(sys.executable)} -m memfs merge-driver %O %A %B %P --marker-size %L"


@dataclass(frozen=True)
class Installed:
    command: str
    attributes: str
    commit: str | None

    def to_json(self) -> dict[str, Any]:
        return {"driver": DRIVER, "command": self.command, "attributes": self.attributes, "commit": self.commit}


def configure(git: gitcli.Git, command: str | None = None) -> str:
    """Set ``merge.memfs.*`` in this clone's git config (the driver line before the name: git
    refuses to merge at all with a named driver that has no command)."""
    command = command or default_command()
    git.config_set(f"merge.{DRIVER}.driver", command)
    git.config_set(f"merge.{DRIVER}.name", "memfs: merge memory files by frontmatter field semantics")
    return command


def is_configured(git: gitcli.Git) -> bool:
    return bool(git.config_get(f"merge.{DRIVER}.driver"))


def attributes_text(existing: str) -> str | None:
    """``existing`` .gitattributes text with the driver line added, or ``None`` if it is there."""
    if _ATTRIBUTE.search(existing):
        return None
    prefix = existing if not existing or existing.endswith("\n") else existing + "\n"
    return prefix + ATTRIBUTE_LINE + "\n"


def install(repo: MemoryRepo, command: str | None = None) -> Installed:
    """Configure the driver in this clone and make sure ``.gitattributes`` routes memories to it
    (committing that one file if it had to change)."""
    command = configure(repo.git, command)
    path = repo.root / ATTRIBUTES_FILE
    rel = repo.prefix + ATTRIBUTES_FILE
    commit = None
    new = attributes_text(path.read_text(encoding="utf-8") if path.exists() else "")
    if new is not None:
        from memfs.store import atomic, locking

        with locking.exclusive(repo.lock_path):
            atomic.write_bytes(path, new.encode("utf-8"))
            message = Message("install-merge-driver", ATTRIBUTES_FILE, repo.actor, paths=(rel,)).render()
            commit = repo.git.commit_paths([rel], message, gitcli.Identity.for_actor(repo.actor))
    return Installed(command, rel, commit)


def run(base: Path, ours: Path, theirs: Path, path: str, marker_size: int = 7) -> bool:
    """What git's ``%O %A %B %P`` call does: merge into ``ours`` in place; ``True`` if clean."""
    base_data = base.read_bytes()
    result = merge.merge_memory(
        path,
        base_data or None,
        ours.read_bytes(),
        theirs.read_bytes(),
        partial(gitcli.merge_text, labels=merge.LABELS, marker_size=marker_size),
        marker_size=marker_size,
    )
    ours.write_bytes(result.content)
    return result.clean
