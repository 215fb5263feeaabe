"""The wider net by meaning (#27): with ``[semantic] embed`` set, the file tools, MCP and the
Anthropic adapter (and ``memfs tool``) name a similar memory that shares no word with the new one, from the vectors
(hand-made here, keyed by text: tests/semantic_embed.py ``meaning``); without an embedder they do
not (the words-only net, unchanged); an embedder that fails leaves the words-only net and says so."""

from __future__ import annotations

import json

import pytest

from memfs import MemoryRepo
from memfs.ops import judge, semantic
from memfs.policy import conflict_net
from tests.cli.test_conflict_doors import FIELDS, FILE_TOOLS
from tests.helpers import Clock, cli

OLD, NEW = "My editor of choice is VS Code.", "These days I write software in Zed."
OTHER = "My favourite tea is jasmine."
NOTE = "similar memory {}: if this one replaces it, edit or delete it"


def _configure(repo: MemoryRepo, name: str | None) -> None:
    path = repo.root / ".memfs.toml"
    kept = path.read_text(encoding="utf-8").split("\n[semantic]")[0]
    table = "" if name is None else f'\n[semantic]\nembed = "tests.semantic_embed:{name}"\ndims = 4\n'
    path.write_text(kept + table, encoding="utf-8")


def _cli_tool(repo: MemoryRepo, scope: str, path: str, type_: str, body: str) -> str:
    request = {"command": "create", "path": path, "file_text": body, "fields": FIELDS | {"type": type_}}
    ran = cli(repo, "--actor", "agent:tool", "tool", "--scope", scope, "--vouch-user-source", "--text",
              input=json.dumps(request))
    assert ran.returncode == 0, ran.stderr
    return ran.stdout


DOORS = {**FILE_TOOLS, "cli tool": _cli_tool}


def _write(repo: MemoryRepo, clock: Clock, door: str) -> str:
    write = DOORS[door]
    clock.at(0)
    write(repo, "user:ola", "notes/editor.md", "fact", OLD)
    clock.at(1)
    write(repo, "user:ola", "notes/tea.md", "fact", OTHER)
    clock.at(2)
    return write(repo, "user:ola", "notes/zed.md", "fact", NEW)


def _named(door: str, rel: str) -> str:
    return NOTE.format(f"/memories/{rel}" if door == "anthropic" else rel)


@pytest.mark.parametrize("door", list(DOORS))
def test_the_notice_names_the_memory_of_like_meaning(repo: MemoryRepo, clock: Clock, door: str) -> None:
    assert conflict_net.similarity(OLD, NEW) < conflict_net.NEAR_MIN  # no word in common: words miss it
    _configure(repo, "meaning")
    answer = _write(repo, clock, door)
    assert _named(door, "notes/editor.md") in answer, answer
    assert "tea.md" not in answer, answer
    assert (repo.root / "notes/editor.md").exists() and (repo.root / "notes/zed.md").exists()  # named, not replaced


@pytest.mark.parametrize("door", ["tool", "cli tool"])
def test_without_an_embedder_the_net_weighs_words_only(repo: MemoryRepo, clock: Clock, door: str) -> None:
    answer = _write(repo, clock, door)
    assert "similar memory" not in answer and "Note:" not in answer, answer


def test_an_embedder_that_fails_leaves_the_words_and_says_so(repo: MemoryRepo, clock: Clock) -> None:
    _configure(repo, "missing_function")
    judge.drain()
    with pytest.warns(semantic.SemanticFallback, match="weighs words only"):
        answer = _write(repo, clock, "tool")
    assert "similar memory" not in answer, answer
    assert any("[semantic] embed" in line and "weighs words only" in line for line in judge.drain())
    assert (repo.root / "notes/zed.md").exists()
