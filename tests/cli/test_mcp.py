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
    done = cli(repo, "mcp", "--scope", "user:U5", "--list-tools")
    assert done.returncode == 0, done.stderr
    assert set(json.loads(done.stdout)) == {
        "memory_view", "memory_create", "memory_str_replace", "memory_insert", "memory_delete", "memory_rename",
        "memory_update_description", "memory_log", "memory_search", "memory_context", "memory_remember",
        "memory_retract",
    }


def test_mcp_is_not_imported_by_other_verbs(repo: MemoryRepo):
    code = "import sys, memfs.cli.agent, memfs.agents.tools, memfs.agents.watch; print('mcp' in sys.modules)"
    done = cli(repo, "--help")
    assert done.returncode == 0
    import subprocess

    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
