"""``memfs watch`` in its own process: commits a save and stops cleanly on SIGTERM."""

from __future__ import annotations

import signal
import subprocess
import sys

import pytest

from memfs import MemoryRepo
from tests.helpers import TIMEOUT, git, memory_text, wait_for

pytestmark = pytest.mark.slow



def test_cli_watch_commits_and_stops_on_sigterm(repo: MemoryRepo):
    proc = subprocess.Popen(
        [sys.executable, "-m", "memfs", "-C", str(repo.root), "watch", "--json", "--no-index", "--debounce", "0.05"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        (repo.root / "cli.md").write_text(memory_text("via the CLI watcher", id="cli"))
        assert wait_for(lambda: "cli.md" in git(repo.root, "ls-files"))
    finally:
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=TIMEOUT)
    assert proc.returncode == 0, err
    assert '"outcome": "committed"' in out and "stopped watching" in err
