"""A fresh ``python -m memfs search`` answered by a running live index: the real entry point,
its answer, and what it loads (neither Whoosh nor YAML: the point of asking the server)."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

from memfs import MemoryRepo
from tests.helpers import TIMEOUT, memory_text, run_process, wait_for

pytestmark = [pytest.mark.filterwarnings("ignore:Callback with id:RuntimeWarning"),
              pytest.mark.usefixtures("live_run_dir")]


@pytest.mark.slow
def test_a_fresh_process_answered_by_the_server_loads_no_whoosh_yaml_nor_click(repo: MemoryRepo) -> None:
    """The fast path (:mod:`memfs.cli.fast`): a search, a context and a remember answered by the
    server load neither the index nor YAML, nor click and the verbs' declarations."""
    (repo.root / "facts").mkdir()
    (repo.root / "facts/a.md").write_text(
        memory_text("The rocket launches on friday.", type="fact", scope="user:U5", source="tool:ci"))
    asks = (("search", "rocket"), ("search", "--at", "2099-01-01", "rocket"),  # --at: a time read without YAML
            ("context", "--scope", "user:U5", "rocket"),
            ("remember", "--scope", "user:U5", "--type", "fact", "--source", "conversation:C1", "--source-kind",
             "user", "--body", "The rocket launch moved to monday."))
    with repo.live_server() as server:
        server.live.wait_barrier(server.live.barrier())
        runs = [run_process(*ask, cwd=repo.root, env={"PYTHONPROFILEIMPORTTIME": "1"}) for ask in asks]
        assert server.live.answered == len(asks) - 1  # the remember is counted as a write
    for ask, ran in zip(asks, runs, strict=True):
        assert ran.returncode == 0, ran.stderr
        # the remember gives the launch a new day: the conflict rules replace facts/a.md through the server too
        assert ("facts/a.md" if ask[0] == "search" else "<<<" if ask[0] == "context" else "SUPERSEDE facts/a.md"
                ) in ran.stdout
        loaded = {line.split("|")[-1].strip() for line in ran.stderr.splitlines() if line.startswith("import time:")}
        heavy = ("whoosh", "yaml", "ruamel", "rich", "mcp", "numpy", "click", "detect_secrets")
        assert loaded and not {m for m in loaded if m.split(".")[0] in heavy or m in (
            "memfs.format.validate", "memfs.cli.app", "memfs.ops.verbs.declare", "memfs.api")}, ask


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_memfs_serve_stops_on_a_signal_and_leaves_nothing_behind(repo: MemoryRepo, signum: int) -> None:
    from memfs.agents.live import wire

    server = subprocess.Popen([sys.executable, "-m", "memfs", "serve"], cwd=repo.root, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    try:
        assert wait_for(lambda: repo.live_status() is not None), server.stderr
        status = repo.live_status()
        assert status is not None and status["pid"] == server.pid
        socket_file = Path(status["socket"])
        assert socket_file.exists() and (repo.store.cache_dir / wire.RECORD).exists()
        assert run_process("serve", "--status", cwd=repo.root).returncode == 0
        server.send_signal(signum)
        _, err = server.communicate(timeout=TIMEOUT)
    finally:
        if server.poll() is None:
            server.kill()
            server.communicate()
    assert server.returncode == (130 if signum == signal.SIGINT else 0) and "stopped serving" in err, err
    assert not socket_file.exists() and not (repo.store.cache_dir / wire.RECORD).exists()
    assert run_process("serve", "--status", cwd=repo.root).returncode == 3


@pytest.mark.slow
def test_a_server_started_in_the_background_answers_the_next_command_and_leaves_no_orphan(
        repo: MemoryRepo, tmp_path: Path) -> None:
    """``[serve] start = "auto"``: the first search starts a detached server and answers itself;
    the next is answered by the server; ``memfs serve --stop`` ends it (as its idle timeout does,
    tests/integration/test_live_index.py), leaving no process, socket or record."""
    from memfs.agents.live import wire

    (repo.root / "facts").mkdir()
    (repo.root / "facts/a.md").write_text(
        memory_text("The rocket launches on friday.", type="fact", scope="user:U5", source="tool:ci"))
    config = tmp_path / "config.toml"
    config.write_text('[serve]\nstart = "auto"\nidle_timeout = 600\n')
    env = {"MEMFS_CONFIG": str(config)}
    first = run_process("search", "rocket", cwd=repo.root, env=env)
    assert first.returncode == 0 and "facts/a.md" in first.stdout, first.stderr
    assert wait_for(lambda: repo.live_status() is not None), (repo.store.cache_dir / "serve.log").read_text()
    status = repo.live_status()
    assert status is not None and status["idle_timeout"] == 600
    pid, socket_file = status["pid"], Path(status["socket"])
    second = run_process("search", "rocket", cwd=repo.root, env=env)
    assert second.stdout == first.stdout and (repo.live_status() or {}).get("answered") == 1
    assert run_process("serve", "--stop", cwd=repo.root).returncode == 0
    assert not wire.pid_alive(pid), f"server {pid} still runs"  # --stop waited for it
    assert not socket_file.exists() and not (repo.store.cache_dir / wire.RECORD).exists()
