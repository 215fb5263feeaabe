"""The gate's meaning rules hold at every door that writes a preference: a generated matrix of
doors (the library's remember, the CLI's remember, the Anthropic memory tool: the file door
that applies the gate) x cases
(one-off requests by what they refer to, in English and Chinese; inferred wording; a lasting
near-miss). remember holds an inferred preference for review; a file door, which cannot, refuses it."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from memfs import MemoryRepo
from memfs.agents.memory_tool import MemoryTool, MemoryToolError
from memfs.errors import WriteRefused
from memfs.format.parse import parse
from memfs.policy.candidate import from_mapping
from tests.helpers import cli

SCOPE = "user:U5"
FIELDS = {"type": "preference", "scope": SCOPE, "source": "conversation:C1#msg-1", "source_kind": "user"}
#: (body, what remember does, what a file door does): stored, held (needs_review) or refused by a rule.
CASES = [
    ("Reply to this thread in French.", "one-off-preference", "one-off-preference"),
    ("本周的报告先不要放图表。", "one-off-preference", "one-off-preference"),
    ("For the call with the auditors tomorrow, use British spelling.", "one-off-preference", "one-off-preference"),
    ("User seems to prefer Python over Java.", "held", "inferred-preference"),
    ("看起来用户喜欢简短的回答。", "held", "inferred-preference"),
    ("For this project, use tabs for indentation.", "stored", "stored"),
]


def _status(repo: MemoryRepo) -> str:
    [path] = [p for p in repo.store.memory_paths() if p.startswith("prefs/")]
    memory = parse(path, repo.store.read_bytes(path) or b"")
    return "held" if memory.status == "needs_review" else "stored"


def library(repo: MemoryRepo, body: str) -> str:
    try:
        repo.remember(from_mapping({**FIELDS, "body": body}))
    except WriteRefused as exc:
        return exc.refusals[0].rule
    return _status(repo)


def command_line(repo: MemoryRepo, body: str) -> str:
    options = [x for name, value in FIELDS.items() for x in (f"--{name.replace('_', '-')}", value)]
    done = cli(repo, "--actor", "user:U5", "remember", *options, "--body", body)
    if done.returncode:
        return next((rule for rule in ("one-off-preference", "inferred-preference") if rule in done.stderr),
                    done.stderr)
    return _status(repo)


def memory_tool(repo: MemoryRepo, body: str) -> str:
    text = "---\n" + "".join(f"{k}: {v}\n" for k, v in FIELDS.items()) + f"---\n{body}\n"
    try:
        MemoryTool(repo.session(SCOPE, actor="user:U5").store).create("/memories/prefs/p.md", text)
    except MemoryToolError as exc:
        return next((rule for rule in ("one-off-preference", "inferred-preference") if rule in str(exc)), str(exc))
    return _status(repo)


DOORS: list[tuple[str, Callable[[MemoryRepo, str], str], int]] = [
    ("library remember", library, 1), ("cli remember", command_line, 1), ("anthropic memory tool", memory_tool, 2),
]


@pytest.mark.parametrize(("door", "body"), [(d, c[0]) for d in DOORS for c in CASES],
                         ids=[f"{d[0]}-{n}" for d in DOORS for n in range(len(CASES))])
def test_the_meaning_rules_hold_at_every_door(
    repo: MemoryRepo, door: tuple[str, Callable[[MemoryRepo, str], str], int], body: str
) -> None:
    _, write, column = door
    expected = next(case[column] for case in CASES if case[0] == body)
    assert write(repo, body) == expected
