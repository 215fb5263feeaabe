"""``memfs tool``: one memory-tool request as JSON on stdin."""

from __future__ import annotations

import json

from memfs import MemoryRepo
from tests.helpers import cli


def test_cli_tool_json_on_stdin(repo: MemoryRepo):
    request = {"command": "create", "path": "notes/cli.md", "file_text": "From the CLI.", "reason": "cli test"}
    done = cli(repo, "tool", "--scope", "user:U5", input=json.dumps(request))
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["ok"] and out["path"] == "notes/cli.md" and out["commit"]
    view = cli(repo, "tool", "--scope", "user:U5", "--text", input='{"command":"view","path":"notes/cli.md"}')
    assert "From the CLI." in view.stdout
    refused = cli(repo, "tool", "--all-scopes", input='{"command":"view","path":"../x.md"}')
    assert refused.returncode == 3 and not json.loads(refused.stdout)["ok"]
    bad = cli(repo, "tool", "--all-scopes", input="{not json")
    assert bad.returncode == 2 and "not valid JSON" in bad.stderr
    unbound = cli(repo, "tool", input='{"command":"view","path":"/memories"}')
    assert unbound.returncode == 2 and "--scope" in unbound.stderr and "--all-scopes" in unbound.stderr
