"""``memfs sync`` through real servers on 127.0.0.1 (:mod:`tests.servers`): ``git daemon``, smart
HTTP (``git http-backend`` behind lighttpd) and SSH (``sshd``). One round trip per server: a
memory remembered in one clone reaches a second clone through the server; a push the server
refuses (a protected branch) stops sync with the server's own words and loses nothing.

Without lighttpd or sshd a test is skipped saying what to install, except in CI (``CI`` set), where
``.ci/run`` installs them and a missing server fails."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from memfs import MemoryRepo
from memfs.errors import GitError
from memfs.ops.sync import sync
from memfs.store.init import configure_merge_driver
from tests import servers
from tests.helpers import copy_repo, git

FACT = {"type": "fact", "scope": "project:P8", "source": "tool:tracker", "source_kind": "tool"}
PROTECTED = "main is protected on this server: open a pull request"


@pytest.fixture(params=servers.KINDS)
def served(request: pytest.FixtureRequest, tmp_path: Path, template_remote: Path) -> Iterator[servers.Served]:
    """Each server, holding ``memory.git`` (a fresh memory repository)."""
    absent = servers.missing(request.param)
    if absent and os.environ.get("CI"):
        pytest.fail(f"{absent}: CI runs every server (.ci/run installs them)")
    if absent:
        pytest.skip(absent)
    with servers.serve(request.param, tmp_path) as server:
        copy_repo(template_remote, server.root / "memory.git")
        yield server


def _clone(server: servers.Served, path: Path, actor: str) -> MemoryRepo:
    server.clone("memory.git", path)
    repo = MemoryRepo.open(path, actor=actor)
    configure_merge_driver(repo.store.git)
    return repo


def _refuse_pushes(bare: Path) -> None:
    hook = bare / "hooks" / "pre-receive"
    hook.parent.mkdir(exist_ok=True)
    hook.write_text(f"#!/bin/sh\necho '{PROTECTED}' >&2\nexit 1\n")
    hook.chmod(0o755)


@pytest.mark.slow
def test_sync_round_trip_and_a_refused_push(served: servers.Served, tmp_path: Path) -> None:
    a, b = _clone(served, tmp_path / "a", "agent:a"), _clone(served, tmp_path / "b", "agent:b")
    first = a.remember({**FACT, "key": "release-day", "body": "P8 ships on Thursdays."})
    assert sync(a.store).pushed == 1
    assert sync(b.store).pulled == 1
    assert b.store.read(first.paths[0]).body == "P8 ships on Thursdays.\n"

    bare = served.root / "memory.git"
    _refuse_pushes(bare)
    on_server = git(bare, "rev-parse", "main")
    second = a.remember({**FACT, "key": "freeze", "body": "Code freeze is on Mondays."})
    with pytest.raises(GitError, match=f"pushing to origin/main failed: .*{PROTECTED}") as refused:
        sync(a.store)
    assert not re.search(r" $", str(refused.value), re.M), "the server's lines keep git's padding"
    assert a.store.git.head() == second.commit and git(bare, "rev-parse", "main") == on_server
