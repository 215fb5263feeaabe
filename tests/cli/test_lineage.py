"""``memfs impact``, ``retract``, ``review``, ``reinstate`` and ``graph`` on the lineage chain."""

from __future__ import annotations

import json
from pathlib import Path

from memfs import MemoryRepo
from tests.helpers import run_cli


def test_cli_retract_review_reinstate(chain: MemoryRepo) -> None:
    cwd: Path = chain.root
    out = run_cli("impact", "facts/source.md", cwd=cwd)
    assert out.returncode == 0, out.stderr
    assert "└── notes/note.md  active → needs_review" in out.stdout and "3 downstream memories" in out.stdout
    out = run_cli("retract", "facts/source.md", "--reason", "rolled back", "--json", cwd=cwd)
    data = json.loads(out.stdout)
    assert data["count"] == 3 and data["commit"]
    out = run_cli("retract", "facts/source.md", "--reason", "rolled back", cwd=cwd)
    assert out.returncode == 0 and "nothing changed" in out.stdout
    out = run_cli("review", cwd=cwd)
    assert "facts/source.md [retracted]: rolled back" in out.stdout and "  notes/note.md" in out.stdout
    queue = json.loads(run_cli("review", "--json", cwd=cwd).stdout)["queue"]
    assert [i["path"] for i in queue[0]["items"]] == ["answers/cached.md", "index/entry.md", "notes/note.md"]
    out = run_cli("reinstate", "notes/note.md", "--reason", "x", cwd=cwd)
    assert out.returncode == 3 and "no independent active source" in out.stderr
    out = run_cli("graph", "notes/note.md", cwd=cwd)
    assert "facts/source.md  [retracted]" in out.stdout
    assert "digraph memfs" in run_cli("graph", "notes/note.md", "--dot", cwd=cwd).stdout
    assert json.loads(run_cli("graph", "notes/note.md", "--json", cwd=cwd).stdout)["path"] == "notes/note.md"
    out = run_cli("retract", "facts/source.md", cwd=cwd)
    assert out.returncode != 0 and "--reason" in out.stderr


def test_cli_review_range_summarises_the_range(chain: MemoryRepo) -> None:
    chain.retract(["facts/source.md"], reason="rolled back")
    out = run_cli("review", "HEAD~1..HEAD", "--json", cwd=chain.root)
    assert out.returncode == 0, out.stderr
    summary = json.loads(out.stdout)
    assert [e["path"] for e in summary["retracted"]] == ["facts/source.md"]
    assert summary["retracted"][0]["downstream"] == 3 and summary["counts"]["flagged"] == 3
    bad = run_cli("review", "..HEAD", cwd=chain.root)
    assert bad.returncode == 2 and "BASE..HEAD" in bad.stderr
