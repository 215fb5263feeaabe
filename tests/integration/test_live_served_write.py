"""A ``remember`` the live server makes itself: its live index takes the write's ``git status``
from the writing git's kept probe (one status of the written paths, shared by the live update
and the next write's guard) instead of asking git again, and what it then says of every path,
committed or not, is what a fresh whole-tree ``git status`` says, a hand edit racing the
write's commit included."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from typing import Any

import pytest

from memfs import MemoryRepo
from memfs.agents.live import answers
from memfs.agents.live.listener import SocketServer
from memfs.format.declare import CLI, to_wire
from memfs.index.catchup import _probe
from memfs.ops.verbs.lifecycle import Remember
from memfs.store.gitcli import process
from memfs.store.gitcli.watch import TreeWatch
from tests.helpers import ACTOR, TIMEOUT, git, memory_text

pytestmark = [pytest.mark.filterwarnings("ignore:Callback with id:RuntimeWarning"),
              pytest.mark.usefixtures("live_run_dir")]


def remember_args(i: int) -> dict[str, Any]:
    """A served ``remember`` as the CLI sends it: an insert under a new key, then a supersede."""
    candidate = {"type": "preference", "scope": ACTOR, "key": f"served.{i - i % 2}", "source": ACTOR,
                 "source_kind": "user", "body": f"Prefers option {i} for the served write."}
    return {"request": to_wire(Remember(candidate=candidate), CLI), "actor": ACTOR, "json": True}


@pytest.fixture
def served(repo: MemoryRepo) -> Iterator[SocketServer]:
    gc.collect()  # watches of earlier tests' repositories count against this process's limit
    probe = TreeWatch.open(repo.root)
    if probe is None:
        pytest.skip("no inotify watch here: every probe is a whole-tree git status")
    probe.close()
    (repo.root / ".gitignore").write_text(".memfs/\n")
    git(repo.root, "add", "-A")
    git(repo.root, "commit", "-qm", "ignore the cache")
    server = repo.live_server(debounce=0.01)
    server.start()
    try:
        yield server
    finally:
        server.stop()


def statuses(monkeypatch: pytest.MonkeyPatch, before_commit: Any = None) -> list[tuple[str, ...]]:
    """Record every ``git status`` memfs runs from now on (its arguments); ``before_commit``
    runs just before each ``git commit`` (a hand edit racing the write)."""
    seen: list[tuple[str, ...]] = []
    real = process.run

    def run(cwd: Any, *args: str, **kw: Any) -> Any:
        if "status" in args[:2]:
            seen.append(args)
        if args[:1] == ("commit",) and before_commit is not None:
            before_commit()
        return real(cwd, *args, **kw)

    monkeypatch.setattr(process, "run", run)
    return seen


def settled_probe_is_fresh(server: SocketServer) -> None:
    live = server.live
    assert live.wait_barrier(live.barrier(), timeout=TIMEOUT) is not None
    fresh = MemoryRepo.open(live.repo.root, ACTOR).store
    assert _probe(live.repo) == _probe(fresh)


def test_a_served_write_runs_one_git_status_of_its_paths(served: SocketServer, monkeypatch: pytest.MonkeyPatch) -> None:
    live = served.live
    for i in range(3):  # the writing git keeps its probe from its second whole-tree one on
        assert answers.remember(live, remember_args(i))["ok"]
    settled_probe_is_fresh(served)
    seen = statuses(monkeypatch)
    for i in range(3, 7):
        since = len(seen)
        reply = answers.remember(live, remember_args(i))
        assert reply["ok"], reply
        assert live.wait_barrier(live.barrier(), timeout=TIMEOUT) is not None
        assert _probe(live.repo) is not None
        asked = seen[since:]
        assert len(asked) <= 1, asked  # in one process remember runs one too: the same one here
        assert all(a[-1].startswith(":(literal)prefs/") for a in asked), asked
        settled_probe_is_fresh(served)


@pytest.mark.parametrize("edit", ["new file", "edited committed file", "deleted committed file"])
def test_a_hand_edit_racing_a_served_write_is_uncommitted_in_the_live_index(
        served: SocketServer, monkeypatch: pytest.MonkeyPatch, edit: str) -> None:
    live = served.live
    root = live.repo.root
    (root / "notes").mkdir(exist_ok=True)
    (root / "notes" / "kept.md").write_text(memory_text("Kept by hand.", created="2026-01-01T00:00:00Z"))
    git(root, "add", "-A")
    git(root, "commit", "-qm", "by hand")
    for i in range(2):
        assert answers.remember(live, remember_args(i))["ok"]
    settled_probe_is_fresh(served)

    def hand() -> None:
        if edit == "new file":
            (root / "notes" / "racing.md").write_text(memory_text("Racing the commit.", created="2026-01-01T00:00:00Z"))
        elif edit == "edited committed file":
            (root / "notes" / "kept.md").write_text(memory_text("Edited by hand.", created="2026-01-01T00:00:00Z"))
        else:
            (root / "notes" / "kept.md").unlink()

    statuses(monkeypatch, before_commit=hand)
    assert answers.remember(live, remember_args(2))["ok"]
    statuses(monkeypatch)
    settled_probe_is_fresh(served)
    probe = live.repo.git.probe(".")
    assert probe is not None
    assert ("notes/racing.md" if edit == "new file" else "notes/kept.md") in probe.listed
