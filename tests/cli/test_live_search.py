"""``memfs search`` answered by a running live index prints exactly what it prints without one:
over generated repositories (scopes, versions, types, expired, broken and uncommitted
memories) and generated queries and options."""

from __future__ import annotations

import random
import re

import pytest

from memfs import MemoryRepo
from tests.helpers import cli, git, memory_text

pytestmark = [pytest.mark.filterwarnings("ignore:Callback with id:RuntimeWarning"),
              pytest.mark.usefixtures("live_run_dir")]
WORDS = ["release", "notes", "german", "deploy", "friday", "budget", "coffee", "python", "review", "mirror",
         "invoice", "garden", "rocket", "ticket", "window", "summer", "的", "发布", "说明"]
SCOPES = ["user:U5", "user:U5/project:P8", "user:U7", "team:T1"]
AT = "2026-06-01T00:00:00Z"


def generate(repo: MemoryRepo, rng: random.Random, count: int) -> None:
    for i in range(count):
        fields: dict[str, object] = {
            "type": rng.choice(["fact", "note", "preference", "episode"]), "scope": rng.choice(SCOPES),
            "source": "tool:ci", "created": f"2026-0{rng.randint(1, 5)}-01T00:00:00Z",
        }
        if rng.random() < 0.2:
            fields["version"] = rng.choice(["1.0", "2.0"])
        if rng.random() < 0.1:
            fields["expires"] = "2026-03-01T00:00:00Z"
        if rng.random() < 0.2:
            fields["description"] = " ".join(rng.choice(WORDS) for _ in range(3))
        body = " ".join(rng.choice(WORDS) for _ in range(rng.randint(2, 30))) + "\n\nmore " + rng.choice(WORDS)
        path = repo.root / f"m{i % 4}/n{i}.md"
        path.parent.mkdir(exist_ok=True)
        path.write_text(memory_text(body, **fields))
    (repo.root / "m0/broken.md").write_text("---\ntype: [\n---\nrelease\n")
    git(repo.root, "add", "-A")
    git(repo.root, "commit", "-qm", "generated")
    for i in rng.sample(range(count), 3):
        path = repo.root / f"m{i % 4}/n{i}.md"
        path.write_text(path.read_text() + "\nedited release garden\n")


def options(rng: random.Random) -> list[str]:
    found = ["--at", AT]
    if rng.random() < 0.4:
        found += ["--scope", rng.choice(SCOPES)]
        if rng.random() < 0.5:
            found.append("--inherit")
    for flag, value in (("--version", "1.0"), ("--type", "fact"), ("--limit", str(rng.randint(1, 5)))):
        if rng.random() < 0.2:
            found += [flag, value]
    found += [flag for flag in ("--explain", "--json") if rng.random() < 0.4]
    return found


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_search_output_is_the_same_with_and_without_the_live_index(repo: MemoryRepo, seed: int) -> None:
    rng = random.Random(seed)
    generate(repo, rng, 40)
    server = repo.live_server(debounce=0.01)
    with server:
        server.live.wait_barrier(server.live.barrier())
        for _ in range(12):
            words = rng.sample(WORDS, rng.randint(1, 3))
            args = ["search", *options(rng), *words]
            before = server.live.answered
            live = cli(repo, *args)
            assert server.live.answered == before + 1, "the server did not answer"
            alone = cli(repo, *args, env={"MEMFS_NO_LIVE": "1"})
            assert server.live.answered == before + 1
            assert (live.returncode, live.stdout, live.stderr) == (alone.returncode, alone.stdout, alone.stderr), args
    stopped = cli(repo, "search", "--at", AT, "release")
    assert stopped.returncode == 0 and stopped.stdout == cli(repo, "search", "--at", AT, "release").stdout


def test_usage_errors_are_the_direct_paths(repo: MemoryRepo) -> None:
    with repo.live_server():
        for args in (["--scope", "not a scope", "x"], ["--at", "yesterday", "x"], ["--type", "nope", "x"], ["   "]):
            live = cli(repo, "search", *args)
            alone = cli(repo, "search", *args, env={"MEMFS_NO_LIVE": "1"})
            assert live.returncode == alone.returncode != 0 and live.stderr == alone.stderr, args


def unfenced(text: str) -> str:
    """``text`` with the context's fence nonce (random per call, by design) replaced by ``N``."""
    found = re.search(r"<<<(?:MEMORY|END) (\w+)", text)
    return text if found is None else text.replace(found.group(1), "N")


@pytest.mark.slow
@pytest.mark.parametrize("seed", [4, 5])
def test_context_output_is_the_same_with_and_without_the_live_index(repo: MemoryRepo, seed: int) -> None:
    rng = random.Random(seed)
    generate(repo, rng, 30)
    with repo.live_server(debounce=0.01) as server:
        server.live.wait_barrier(server.live.barrier())
        for _ in range(6):
            scopes = [arg for s in rng.sample(SCOPES, rng.randint(1, 2)) for arg in ("--scope", s)]
            extra = [*(["--inherit"] if scopes and rng.random() < 0.3 else []),
                     *rng.choice([[], ["--format", "xml"], ["--format", "json"], ["--budget", "60"]])]
            args = ["context", "--at", AT, *scopes, *extra, " ".join(rng.sample(WORDS, 3))]
            before = server.live.answered
            live = cli(repo, *args)
            assert server.live.answered == before + 1, "the server did not answer"
            alone = cli(repo, *args, env={"MEMFS_NO_LIVE": "1"})
            assert (live.returncode, unfenced(live.stdout), live.stderr) == (
                alone.returncode, unfenced(alone.stdout), alone.stderr), args


def test_a_stop_ends_the_socket_thread_without_waiting_for_its_tick(repo: MemoryRepo,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """``stop`` wakes the thread waiting for a connection (``shutdown`` does not wake a thread in
    ``accept`` on a Unix socket): with a tick of an hour the thread still ends, instead of being
    left running when the stop gives up joining it."""
    from memfs.agents.live import listener

    monkeypatch.setattr(listener, "TICK_SECONDS", 3600.0)
    server = repo.live_server()
    server.start()
    thread = server._thread
    server.stop()
    assert thread is not None and not thread.is_alive()
    assert not server.path.exists() and server._wake is None
