"""Ctrl-C ends the verbs that serve until stopped with 130, as it ends every other verb, in a real
process: ``watch``, ``serve`` and ``mcp`` on stdio (whose transport reads stdin in a thread that a
host keeping stdin open never wakes). SIGTERM, a service manager's stop, stays a normal exit
(tests/smoke/test_watch.py, test_live.py). Each process is signalled once it says it is ready."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from collections.abc import Callable
from typing import IO

import pytest

from memfs import MemoryRepo
from tests.helpers import TIMEOUT, git, memory_text, wait_for

pytestmark = pytest.mark.slow


def _start(repo: MemoryRepo, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "memfs", "-C", str(repo.root), *args], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _said_on_stderr(words: str) -> Callable[[subprocess.Popen[str]], None]:
    def ready(proc: subprocess.Popen[str]) -> None:
        assert proc.stderr is not None
        first = proc.stderr.readline()
        assert words in first, first

    return ready


def _answered_initialize(proc: subprocess.Popen[str]) -> None:
    stdin: IO[str] | None = proc.stdin
    assert stdin is not None and proc.stdout is not None
    asked = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}}
    stdin.write(json.dumps(asked) + "\n")
    stdin.flush()
    assert json.loads(proc.stdout.readline())["id"] == 1


CASES = {
    "watch": (("watch", "--no-index"), _said_on_stderr("memfs: watching")),
    "serve": (("serve",), _said_on_stderr("memfs: serving the live index")),
    "mcp-stdio": (("mcp", "--scope", "user:U5"), _answered_initialize),
    "mcp-stdio-no-live": (("mcp", "--scope", "user:U5", "--no-live"), _answered_initialize),
}


@pytest.mark.parametrize("case", CASES)
def test_ctrl_c_exits_130(repo: MemoryRepo, case: str) -> None:
    args, ready = CASES[case]
    proc = _start(repo, *args)
    try:
        ready(proc)
        proc.send_signal(signal.SIGINT)
        code = proc.wait(timeout=TIMEOUT)  # stdin stays open, as a host's or a terminal's does
    finally:
        if proc.poll() is None:
            proc.kill()
        _, err = proc.communicate()
    assert code == 130, err
    assert err.splitlines()[-1] == "memfs: error: interrupted", err


def test_watch_still_commits_what_was_saved_before_ctrl_c(repo: MemoryRepo) -> None:
    proc = _start(repo, "watch", "--no-index", "--debounce", "0.05")
    try:
        _said_on_stderr("memfs: watching")(proc)
        (repo.root / "saved.md").write_text(memory_text("saved before Ctrl-C", id="saved"))
        assert wait_for(lambda: "saved.md" in git(repo.root, "ls-files"))
        proc.send_signal(signal.SIGINT)
        code = proc.wait(timeout=TIMEOUT)
    finally:
        if proc.poll() is None:
            proc.kill()
        _, err = proc.communicate()
    assert code == 130 and "stopped watching" in err, err
    assert git(repo.root, "status", "--porcelain") == ""
