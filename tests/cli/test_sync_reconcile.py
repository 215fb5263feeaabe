"""Sync reconciles memory, not text: concurrent remembers of one subject, retractions against new
values, keys shared by scopes, and clones that never block (several clones, one bare remote)."""

from __future__ import annotations

import random
import subprocess
from pathlib import Path
from typing import Any

import pytest

from memfs import MemoryRepo
from memfs.format.model import Memory
from memfs.ops.sync import sync
from memfs.policy import lineage
from tests.helpers import Clone, cli, git, remote_head


def fact(scope: str, key: str, value: str, **extra: Any) -> dict[str, Any]:
    return {"type": "fact", "scope": scope, "key": key, "body": value, "source": f"doc:{value}",
            "source_kind": "document", **extra}


def test_the_same_key_in_two_scopes_never_shares_a_file(clone: Clone, remote: Path) -> None:
    a, b = clone("a"), clone("b")
    (path_a,) = a.remember(fact("agent:a", "format", "markdown")).paths
    (path_b,) = b.remember(fact("agent:b", "format", "plain text")).paths
    assert path_a == "facts/format--agent-a.md" and path_b == "facts/format--agent-b.md"
    sync(a.store)
    assert sync(b.store).integrated == "rebase"
    assert {m.scope for m in b.store.scan().memories if m.key == "format"} == {"agent:a", "agent:b"}


def test_a_clone_an_older_memfs_left_stuck_on_one_path_for_two_scopes_syncs(clone: Clone, remote: Path) -> None:
    """The issue's reproduction, as an older memfs named the files: both clones wrote
    facts/format.md, for agent:a and for agent:b. Sync used to stop with exit 3 on every try; now
    both memories are kept (KEEP_BOTH), the local one at its scope's default path."""
    a, b = clone("a"), clone("b")
    for repo, scope in ((a, "agent:a"), (b, "agent:b")):
        repo.write("facts/format.md", fields={"type": "fact", "scope": scope, "key": "format", "source": "doc:1"},
                   body=f"{scope} format\n")
    sync(a.store)
    (moved,) = sync(b.store).reconciled
    assert (moved.rule, moved.moved_to) == ("keep-both", "facts/format--agent-b.md")
    kept = {m.path: (m.scope, m.id) for m in b.store.scan().memories if m.key == "format"}
    assert kept == {"facts/format.md": ("agent:a", "facts/format"),
                    "facts/format--agent-b.md": ("agent:b", "facts/format--agent-b")}
    assert b.validate() == [] and remote_head(remote) == b.store.git.head()


def test_concurrent_supersedes_become_revisions_and_unrelated_changes_flow(clone: Clone, remote: Path) -> None:
    """The clone that would have stopped on a text conflict (exit 3, every later sync too) syncs:
    one value wins by precedence, the other is a revision in history, and the clone's unrelated
    memory reaches the remote in the same sync."""
    a, b = clone("a"), clone("b")
    a.remember(fact("team:x", "lang", "english"))
    sync(a.store)
    sync(b.store)
    a.remember(fact("team:x", "lang", "german"))
    b.remember(fact("team:x", "lang", "spanish"))
    b.remember(fact("team:x", "lang", "french"))  # revision 3 against a's 2: b's value wins
    b.remember(fact("team:x", "unrelated", "kept"))
    sync(a.store)
    result = sync(b.store)
    assert [(s.rule, s.winner) for s in result.reconciled] == [("supersede", "local")]
    assert remote_head(remote) == b.store.git.head()
    active = [m for m in b.store.scan().memories if m.key == "lang" and m.status == "active"]
    assert [m.body for m in active] == ["french\n"] and active[0].revision == 4
    assert {"german", "spanish"} <= set(_history(remote).split())
    assert "kept" in {m.body.strip() for m in b.store.scan().memories}
    assert sync(a.store).integrated == "fast-forward"


def test_a_retraction_against_a_supersede_is_a_review_item_at_the_cli(clone: Clone) -> None:
    a, b = clone("a"), clone("b")
    (path,) = a.remember(fact("team:x", "lang", "english")).paths
    sync(a.store)
    sync(b.store)
    a.retract([path], reason="english was wrong")
    b.remember(fact("team:x", "lang", "french"))
    sync(a.store)
    ran = cli(b, "sync")
    assert ran.returncode == 0, ran.stderr
    assert f"needs review (memfs review): {path}: held for review" in ran.stdout
    assert path in cli(b, "review").stdout
    comment = cli(b, "review", "HEAD^2..HEAD").stdout  # what the pull-request comment shows
    assert path in comment and "held for a person" in comment
    assert b.store.read(path).status == "needs_review"
    assert "status: retracted" in git(b.root, "log", "-p", "--format=", "--", path)


# --- never blocked: a seeded random run of several clones ----------------------------------------
CLONES = 3
OPS = 20
SCOPES = ("team:x", "agent:{me}")
KEYS = ("lang", "format")


def _operate(repo: MemoryRepo, me: int, n: int, rng: random.Random, values: set[str]) -> None:
    memories = [m for m in repo.store.scan().memories if not m.is_system]
    active = [m for m in memories if m.status == "active"]
    roll = rng.random()
    if roll < 0.15 and active:
        repo.retract([rng.choice(active).path], reason=f"clone {me} says no")
    elif roll < 0.3 and active:
        parent = rng.choice(active)
        value = f"note{me}x{n}"
        repo.remember({**fact(parent.scope or "team:x", f"note{me}x{n}", value), "depends_on": [parent.path]})
        values.add(value)
    else:
        value = f"value{me}x{n}"
        scope = rng.choice(SCOPES).format(me=me)
        repo.remember(fact(scope, rng.choice(KEYS), value))
        values.add(value)


@pytest.mark.slow
@pytest.mark.parametrize(("route", "seed"), [("direct", 25), ("writer-ref", 27)])
def test_several_clones_never_block_and_lose_nothing(clone: Clone, remote: Path, route: str, seed: int) -> None:
    """Writers that race for main (direct), or push to their own refs while an integrator brings
    them into main at random moments (writer-ref): no sync or integration ever stops."""
    rng = random.Random(seed)
    repos = [clone(f"c{i}") for i in range(CLONES)]
    integrator = clone("integrator") if route == "writer-ref" else None
    values: set[str] = set()
    reviews = 0

    def share(repo: MemoryRepo) -> int:
        return len(sync(repo.store, route=route).review)

    def integrate() -> int:
        if integrator is None:
            return 0
        result = integrator.integrate()
        assert result.held == ()
        return sum(1 for w in result.writers for s in w.reconciled if s.review)

    for n in range(OPS):
        me = rng.randrange(CLONES)
        _operate(repos[me], me, n, rng, values)
        if rng.random() < 0.5:
            reviews += share(repos[rng.randrange(CLONES)])
        if integrator and rng.random() < 0.3:
            reviews += integrate()
    for _ in range(2):
        for repo in repos:
            reviews += share(repo)
        reviews += integrate()
    for repo in repos:
        share(repo)
    assert {repo.store.git.head() for repo in repos} == {remote_head(remote)}
    history = _history(remote)
    assert sorted(v for v in values if v not in history) == []
    final = repos[0]
    memories = final.store.scan().memories
    _assert_one_active_per_subject(memories)
    _assert_lineage_consistent(memories)
    assert not any(marker in (final.root / m.path).read_text() for m in memories for marker in ("<<<<<<<", ">>>>>>>"))
    assert [p for p in final.validate() if p.severity == "error"] == []
    held = {m.path for m in memories if m.status == "needs_review"}
    assert held == {i.path for g in final.review_queue() for i in g.items}
    assert reviews > 0 and held, (reviews, held)  # the seed makes at least one change that needs a person


def _history(remote: Path) -> str:
    """Every blob main reaches, as one text."""
    objects = git(remote, "rev-list", "--objects", "main").split("\n")
    shas = "\n".join(line.split()[0] for line in objects if line.strip()) + "\n"
    out = subprocess.run(["git", "cat-file", "--batch"], cwd=remote, input=shas.encode(), capture_output=True,
                         check=True).stdout
    return out.decode("utf-8", "replace")


def _assert_one_active_per_subject(memories: list[Memory]) -> None:
    seen: dict[tuple[Any, ...], str] = {}
    for m in memories:
        if m.status == "active" and m.key:
            subject = (m.scope, m.key, m.version)
            assert subject not in seen, f"{m.path} and {seen[subject]} are both active for {subject}"
            seen[subject] = m.path


def _assert_lineage_consistent(memories: list[Memory]) -> None:
    by_path = {m.path: m for m in memories}
    for m in memories:
        for record in lineage.invalidations(m):
            assert record.root in by_path, f"{m.path} names a root that does not exist: {record.root}"
        if m.status != "active" or lineage.was_reinstated(m):
            continue
        for parent in m.depends_on:
            p = by_path.get(parent)
            assert p is None or p.status != "retracted", f"{m.path} is active but {parent} is retracted"
            assert p is None or not (p.status == "needs_review" and lineage.invalidations(p)), (m.path, parent)
