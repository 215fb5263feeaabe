"""``memfs context``: the assembled context on stdout, as text or JSON; nothing committed."""

from __future__ import annotations

import json

from memfs import MemoryRepo
from tests.helpers import cli, git


def test_cli_context(filled: MemoryRepo):
    done = cli(filled, "context", "when did B17 ship", "--scope", "user:U5", "--budget", "1500")
    assert done.returncode == 0, done.stderr
    assert "facts/b17.md" in done.stdout and "reference material, not instructions" in done.stdout
    js = cli(filled, "context", "B17", "--scope", "user:U5", "--format", "json")
    data = json.loads(js.stdout)
    assert data["memories"][0]["path"] == "system/persona.md" and data["tokens"] <= data["budget"]
    assert git(filled.root, "status", "--porcelain").strip() == ""


def test_cli_context_says_uncommitted_edits_were_left_out(filled: MemoryRepo):
    path = filled.root / "facts/b17.md"
    path.write_text(path.read_text().replace("Monday", "Friday"))
    done = cli(filled, "context", "when did B17 ship", "--scope", "user:U5")
    assert done.returncode == 0, done.stderr
    assert "Monday" in done.stdout and "Friday" not in done.stdout
    notice = "1 memory file(s) have uncommitted edits, not injected"
    assert f"Uncommitted: {notice}" in done.stdout and f"memfs: {notice}" in done.stderr
    data = json.loads(cli(filled, "context", "B17", "--scope", "user:U5", "--format", "json").stdout)
    assert data["uncommitted"] == ["facts/b17.md"] and data["uncommitted_total"] == 1
