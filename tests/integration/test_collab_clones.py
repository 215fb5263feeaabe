"""Several clones writing and syncing against one remote lose nothing: over a file path and over
``git://`` (a real ``git daemon`` on 127.0.0.1, started and stopped here)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from memfs import MemoryRepo
from memfs.errors import MemfsError
from memfs.ops.sync import sync
from tests import servers
from tests.helpers import PERSON, clone_repo, copy_repo, git

CLONES = 3
OPS = 30
#: Over git:// each sync costs a network round trip or three; the file-remote test does the long run.
OPS_OVER_GIT = 12
SYNC_CHANCE = 0.3


@dataclass
class World:
    """What the clones did, to check against the end state."""

    created: set[str] = field(default_factory=set)
    retracted: set[str] = field(default_factory=set)
    tagged: dict[str, set[str]] = field(default_factory=dict)
    syncs: int = 0
    rebases: int = 0


def _retract(repo: MemoryRepo, rel: str) -> None:
    repo.retract([rel], reason=f"{repo.actor} says {rel} was wrong")


def _operate(repo: MemoryRepo, me: int, n: int, rng: random.Random, world: World) -> None:
    memories = repo.store.scan().memories
    mine = [m for m in memories if m.path.startswith(f"c{me}/") and m.status == "active"]
    others = [m for m in memories if not m.is_system and m.status != "retracted"]
    roll = rng.random()
    if roll < 0.15 and others:
        target = rng.choice(others).path
        _retract(repo, target)
        world.retracted.add(target)
    elif roll < 0.35 and others:
        target = rng.choice(others)
        tag = f"t{me}-{n}"
        repo.write(target.path, fields={"tags": [*target.tags, tag]})
        world.tagged.setdefault(target.path, set()).add(tag)
    elif roll < 0.5 and mine:
        old = rng.choice(mine)
        new = f"c{me}/m{n}.md"
        with repo.store.transaction("remember", reason="changed value") as tx:
            tx.write(old.path, fields={"status": "superseded"})
            tx.write(new, fields={**_fields(me, n), "key": old.key or old.id}, body=f"value {n}\n")
        world.created.add(new)
    elif roll < 0.6 and mine:
        target = rng.choice(mine)
        repo.write(target.path, body=target.body + f"edit {n}\n")
    else:
        new = f"c{me}/m{n}.md"
        deps = [rng.choice(others).path] if others and rng.random() < 0.4 else []
        repo.write(new, fields={**_fields(me, n), "depends_on": deps}, body=f"memory {n} of clone {me}\n")
        world.created.add(new)


def _fields(me: int, n: int) -> dict[str, object]:
    return {
        "type": "fact",
        "scope": f"user:U{me}",
        "key": f"k{me}-{n}",
        "source": f"test:c{me}-{n}",
        "description": f"clone {me} memory {n}",
    }


def _sync(repo: MemoryRepo, world: World) -> None:
    result = sync(repo.store)
    world.syncs += 1
    world.rebases += result.integrated == "rebase"


def run_clones(tmp_path: Path, url: str, seed: int, ops: int = OPS) -> World:
    rng = random.Random(seed)
    repos = [clone_repo(url, tmp_path / f"clone{i}", actor=f"agent:clone{i}") for i in range(CLONES)]
    world = World()
    schedule = [i for i in range(CLONES) for _ in range(ops)]
    rng.shuffle(schedule)
    done = [0] * CLONES
    for me in schedule:
        _operate(repos[me], me, done[me], rng, world)
        done[me] += 1
        if rng.random() < SYNC_CHANCE:
            _sync(repos[rng.randrange(CLONES)], world)
    for _ in range(2):
        for repo in repos:
            _sync(repo, world)
    heads = {repo.store.git.head() for repo in repos}
    assert len(heads) == 1, "clones did not converge"
    for repo in repos:
        final = {m.path: m for m in repo.store.scan().memories}
        assert world.created <= set(final), f"lost: {sorted(world.created - set(final))}"
        for rel in world.retracted:  # in force, or held for a person when a clone changed it meanwhile
            assert final[rel].status in ("retracted", "needs_review"), rel
        for rel, tags in world.tagged.items():
            assert tags <= set(final[rel].tags), rel
        assert [p for p in repo.validate() if p.severity == "error"] == []
    assert world.rebases > 0
    return world


@pytest.mark.slow
def test_three_clones_over_a_file_remote(tmp_path: Path, remote: Path) -> None:
    run_clones(tmp_path, str(remote), seed=7)


# --- git:// ------------------------------------------------------------------------------------
@pytest.fixture
def git_daemon(tmp_path: Path) -> Iterator[tuple[Path, str]]:
    """``git daemon`` serving ``<tmp>/served`` on 127.0.0.1 with push enabled (:mod:`tests.servers`); its base URL."""
    if servers.missing("daemon"):
        pytest.skip(servers.missing("daemon") or "")
    with servers.serve("daemon", tmp_path) as served:
        yield served.root, served.base


@pytest.mark.slow
def test_three_clones_over_git_protocol(tmp_path: Path, git_daemon: tuple[Path, str], template_remote: Path) -> None:
    served, base_url = git_daemon
    copy_repo(template_remote, served / "memory.git")
    world = run_clones(tmp_path, base_url + "memory.git", seed=11, ops=OPS_OVER_GIT)
    assert world.syncs >= 2 * CLONES


@pytest.mark.slow
def test_git_protocol_push_is_fast_forward_only(
    tmp_path: Path, git_daemon: tuple[Path, str], template_remote: Path
) -> None:
    served, base_url = git_daemon
    copy_repo(template_remote, served / "memory.git")
    path = tmp_path / "c"
    repo = clone_repo(base_url + "memory.git", path, actor="agent:c", merge_driver=False)
    repo.write("facts/a.md", fields=_fields(0, 0), body="a\n")
    assert sync(repo.store).pushed == 1
    git(path, "reset", "-q", "--hard", "HEAD~1")
    git(path, *PERSON, "commit", "-q", "--allow-empty", "-m", "diverge")
    result = sync(repo.store)
    assert result.integrated == "rebase" and "facts/a.md" in repo.store.memory_paths()
    with pytest.raises(MemfsError, match="share no history"):
        other = MemoryRepo.init(tmp_path / "other", actor="agent:o")
        git(other.root, "remote", "add", "origin", base_url + "memory.git")
        sync(other.store)
