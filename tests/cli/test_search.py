"""``memfs search`` and ``reindex``: JSON, explanations, unreadable files, bad input, recall counts."""

from __future__ import annotations

import json

import pytest

from memfs import MemoryRepo, index
from tests.helpers import cli, git, hit_paths, put, run_cli, write_file


def test_broken_file_is_reported_not_dropped(repo: MemoryRepo) -> None:
    put(repo, "facts/ok.md", "kiwi fruit")
    write_file(repo.root / "facts/broken.md", "---\nid: [unclosed\n---\nkiwi\n")
    result = index.search(repo.store, "kiwi", scope="user:U5")
    assert hit_paths(result) == ["facts/ok.md"]
    assert [p.path for p in result.broken] == ["facts/broken.md"]
    proc = run_cli("search", "kiwi", cwd=repo.root)
    assert proc.returncode == 0 and proc.stderr.count("facts/broken.md") == 1
    bound = run_cli("search", "kiwi", "--scope", "user:U5", cwd=repo.root)
    assert bound.returncode == 0 and "facts/broken.md" not in bound.stderr
    data = json.loads(run_cli("search", "kiwi", "--json", cwd=repo.root).stdout)
    assert [u["path"] for u in data["unreadable"]] == ["facts/broken.md"]


def test_cli_search_json_explain_and_reindex(repo: MemoryRepo) -> None:
    put(repo, "facts/b17.md", "B17 is fixed", scope="user:U5", source="tracker:B17")
    put(repo, "facts/b17-u50.md", "B17 is open", scope="user:U50")
    proc = run_cli("search", "--json", "--scope", "user:U5", "B17", cwd=repo.root)
    assert proc.returncode == 0, proc.stderr
    hits = json.loads(proc.stdout)["hits"]
    assert [(h["path"], h["scope"], h["source"]) for h in hits] == [("facts/b17.md", "user:U5", "tracker:B17")]
    assert {"id", "score", "relevance", "freshness", "confidence"} <= set(hits[0])
    proc = run_cli("search", "B17", "--scope", "user:U5", "--explain", cwd=repo.root)
    assert "query term(s) covered; relevance" in proc.stdout and "damped by freshness" in proc.stdout
    assert "user:U50" not in proc.stdout and "b17-u50" not in proc.stdout
    proc = run_cli("reindex", "--json", cwd=repo.root)
    assert proc.returncode == 0 and json.loads(proc.stdout)["indexed"] == 3  # + system/persona.md


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["search", ""], "empty"),
        (["search", "x", "--at", "yesterday"], "ISO 8601"),
        (["search", "x", "--at", "2026-01-01T00:00:00"], "time zone"),
        (["search", "x", "--scope", "a b"], "scope"),
        (["search", "x", "--limit", "0"], "0"),
    ],
)
def test_cli_bad_input(repo: MemoryRepo, args: list[str], message: str) -> None:
    proc = run_cli(*args, cwd=repo.root)
    assert proc.returncode == 2
    assert message in proc.stderr and "Traceback" not in proc.stderr


def test_search_and_context_record_recalls_outsidegit(repo) -> None:
    """`memfs stats` counts what search returned and what context injected; reads never commit."""
    repo.write("prefs/lang.md", fields={"type": "preference", "scope": "user:U5", "source": "conversation:C1"},
               body="P8 release notes in English.")
    head = git(repo.root, "rev-parse", "HEAD")
    assert cli(repo, "search", "release notes", "--scope", "user:U5").returncode == 0
    assert cli(repo, "context", "write release notes", "--scope", "user:U5").returncode == 0
    assert cli(repo, "search", "nothing matches this", "--scope", "user:U5").returncode == 0
    stats = json.loads(cli(repo, "stats", "--json").stdout)
    assert stats["usage"]["prefs/lang.md"]["recalls"] == 2
    assert git(repo.root, "rev-parse", "HEAD") == head and git(repo.root, "status", "--porcelain") == ""


def test_uncommitted_hits_are_marked(repo: MemoryRepo) -> None:
    repo.write("facts/kept.md", fields={"type": "fact", "scope": "user:U5", "source": "s"}, body="kiwi kept")
    put(repo, "facts/new.md", "kiwi new")
    proc = cli(repo, "search", "kiwi", "--scope", "user:U5")
    marked = {line.split()[1]: line.endswith("[uncommitted]") for line in proc.stdout.splitlines() if line[0].isdigit()}
    assert marked == {"facts/kept.md": False, "facts/new.md": True}
    assert proc.stderr.count("[uncommitted]") == 1 and "memfs context" in proc.stderr
    hits = json.loads(cli(repo, "search", "kiwi", "--scope", "user:U5", "--json").stdout)["hits"]
    assert {h["path"]: h["uncommitted"] for h in hits} == marked
