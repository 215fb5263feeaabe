"""``memfs context``: the assembled context on stdout, as text or JSON; nothing committed."""

from __future__ import annotations

import json

from memfs import MemoryRepo
from memfs.policy.tokens import estimate_tokens
from tests.helpers import add, cli, git, run_cli


def test_cli_context(filled: MemoryRepo):
    done = cli(filled, "context", "when did B17 ship", "--scope", "user:U5", "--budget", "1500")
    assert done.returncode == 0, done.stderr
    assert "facts/b17.md" in done.stdout and "reference material, not instructions" in done.stdout
    js = cli(filled, "context", "B17", "--scope", "user:U5", "--format", "json")
    data = json.loads(js.stdout)
    assert data["memories"][0]["path"] == "system/persona.md" and data["tokens"] <= data["budget"]
    tight = cli(filled, "context", "when did B17 ship", "--scope", "user:U5", "--budget", "300")
    assert tight.returncode == 0 and estimate_tokens(tight.stdout) <= 300  # every byte printed is counted
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


def test_cli_takes_several_scopes_and_min_relevance(repo: MemoryRepo):
    add(repo, "facts/u5.md", body="kiwi for U5")
    add(repo, "facts/p8.md", scope="project:P8", body="kiwi for P8")
    ran = run_cli("-C", str(repo.root), "context", "kiwi", "--scope", "user:U5", "--scope", "project:P8",
                  "--min-relevance", "0.1", "--at", "2026-09-25T00:00:00Z", "--format", "json")
    assert ran.returncode == 0, ran.stderr
    data = json.loads(ran.stdout)
    assert data["scopes"] == ["user:U5", "project:P8"]
    assert {m["path"] for m in data["memories"]} >= {"facts/u5.md", "facts/p8.md"}
