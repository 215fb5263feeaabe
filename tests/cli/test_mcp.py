"""``memfs mcp --list-tools``, and the MCP package stays out of every other verb."""

from __future__ import annotations

import json
import sys

import pytest

from memfs import MemoryRepo
from tests.helpers import cli

#: --list-tools imports the MCP package (about half a second); the other test starts Python.
pytestmark = pytest.mark.slow


def test_list_tools_flag(repo: MemoryRepo):
    done = cli(repo, "--actor", "agent:host", "mcp", "--scope", "user:U5", "--list-tools")
    assert done.returncode == 0, done.stderr
    agent_tools = {
        "memory_view", "memory_create", "memory_str_replace", "memory_insert", "memory_append",
        "memory_replace_section", "memory_delete", "memory_rename", "memory_update_description", "memory_log",
        "memory_history", "memory_search", "memory_context", "memory_remember", "memory_retract", "search", "fetch",
    }
    assert set(json.loads(done.stdout)) == agent_tools
    person = cli(repo, "--actor", "user:U5", "mcp", "--scope", "user:U5", "--list-tools")
    assert set(json.loads(person.stdout)) == agent_tools | {"memory_reinstate"}


def test_http_needs_a_real_port(repo: MemoryRepo):
    done = cli(repo, "mcp", "--scope", "user:U5", "--http", "0")
    assert done.returncode == 2 and "--http: 0: give a port from 1 to 65535" in done.stderr


def test_mcp_is_not_imported_by_other_verbs(repo: MemoryRepo):
    code = "import sys, memfs.cli.agent, memfs.agents.tools, memfs.agents.watch; print('mcp' in sys.modules)"
    done = cli(repo, "--help")
    assert done.returncode == 0
    import subprocess

    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_without_a_file_watcher_mcp_serves_on_the_direct_path(repo: MemoryRepo, monkeypatch: pytest.MonkeyPatch,
                                                               capsys: pytest.CaptureFixture[str]):
    from memfs.agents.live.server import LiveIndex
    from memfs.cli.agent import hosted_live

    def refused(self: LiveIndex) -> None:
        raise OSError(28, "inotify watch limit reached")

    monkeypatch.setattr(LiveIndex, "_start_observer", refused)
    assert hosted_live(repo, "MCP")[0] is None
    assert not (repo.store.cache_dir / "live.json").exists()
    assert "serving MCP without a live index ([Errno 28] inotify watch limit reached)" in capsys.readouterr().err
