"""The ``user-source`` rule on changes, not only on new memories (#27), at every door.

``source_kind: user`` says the user said it. An agent without the host's vouching may not insert
such a memory, and it may not make one say something new either: a SUPERSEDE of the user's
memory (a probable conflict without a key, or ``--supersedes``) or an edit of its body through the
file tools is refused by the core guard, whichever door it came through, and nothing is
committed. The legitimate paths stay open: the user's own change, a host that vouches, a person
who forces it, and changes that leave what the user said as it was (a retraction's status).
"""

from __future__ import annotations

import json
from collections.abc import Callable

import anyio
import pytest

from memfs import MemoryRepo
from memfs.errors import WriteRefused
from memfs.policy.candidate import Candidate
from memfs.policy.guard import Grants
from tests.helpers import Clock, cli, git

SCOPE, OLD, NEW, PATH = "user:kai", "Kai works in Berlin.", "Kai works in Paris now.", "facts/kai-city.md"
FIELDS = {"source": "conversation:C1", "source_kind": "user", "type": "fact"}
VOUCHED = Grants(vouch_user_source=True)


@pytest.fixture
def said(repo: MemoryRepo, clock: Clock) -> MemoryRepo:
    """The user's own statement, stored by the user; the clock moves on for the next write."""
    done = repo.remember(Candidate(SCOPE, OLD, path=PATH, **FIELDS), actor=SCOPE)
    assert done.op.value == "INSERT"
    clock.at(5)
    return repo


def _mcp(repo: MemoryRepo, tool: str, arguments: dict[str, object], grants: Grants) -> str:
    from mcp.server.mcpserver.exceptions import ToolError

    from memfs.mcp_server import build_server

    server = build_server(repo.session(SCOPE, actor="agent:mcp", grants=grants))
    try:
        result = anyio.run(server.call_tool, tool, arguments)
    except ToolError as refused:  # what the model reads
        return str(refused)
    structured = getattr(result, "structured_content", None)
    if structured is not None:
        return json.dumps(structured, ensure_ascii=False)
    return "\n".join(getattr(c, "text", "") for c in getattr(result, "content", result))


def _library_remember(repo: MemoryRepo, grants: Grants) -> str:
    try:
        done = repo.session(SCOPE, actor="agent:sneaky", grants=grants).remember(Candidate(SCOPE, NEW, **FIELDS))
    except WriteRefused as refused:
        return f"REFUSED {refused}"
    return done.op.value


def _cli_remember(repo: MemoryRepo, grants: Grants) -> str:
    vouch = ["--vouch-user-source"] if grants.vouch_user_source else []
    ran = cli(repo, "--actor", "agent:sneaky", "remember", "--scope", SCOPE, "--body", NEW, "--type", "fact",
              "--source", "conversation:C2", "--source-kind", "user", *vouch)
    return ran.stdout + ran.stderr


def _cli_supersedes(repo: MemoryRepo, grants: Grants) -> str:
    vouch = ["--vouch-user-source"] if grants.vouch_user_source else []
    ran = cli(repo, "--actor", "agent:sneaky", "remember", "--scope", SCOPE, "--body", "Kai lives in Rome.",
              "--type", "fact", "--source", "conversation:C2", "--source-kind", "user", "--supersedes", PATH, *vouch)
    return ran.stdout + ran.stderr


def _mcp_remember(repo: MemoryRepo, grants: Grants) -> str:
    return _mcp(repo, "memory_remember", {"body": NEW, **FIELDS}, grants)


def _tool_edit(repo: MemoryRepo, grants: Grants) -> str:
    done = repo.session(SCOPE, actor="agent:tool", grants=grants).tool(
        {"command": "str_replace", "path": PATH, "old_str": "Berlin", "new_str": "Paris"})
    return done.output if done.ok else f"REFUSED {done.output}"


def _cli_tool_edit(repo: MemoryRepo, grants: Grants) -> str:
    vouch = ["--vouch-user-source"] if grants.vouch_user_source else []
    request = {"command": "str_replace", "path": PATH, "old_str": "Berlin", "new_str": "Paris"}
    ran = cli(repo, "--actor", "agent:tool", "tool", "--scope", SCOPE, *vouch, "--text", input=json.dumps(request))
    return ran.stdout + ran.stderr


def _mcp_edit(repo: MemoryRepo, grants: Grants) -> str:
    return _mcp(repo, "memory_str_replace", {"path": PATH, "old_str": "Berlin", "new_str": "Paris"}, grants)


DOORS: dict[str, Callable[[MemoryRepo, Grants], str]] = {
    "remember": _library_remember, "cli remember": _cli_remember, "cli --supersedes": _cli_supersedes,
    "mcp remember": _mcp_remember, "tool": _tool_edit, "cli tool": _cli_tool_edit, "mcp str_replace": _mcp_edit,
}


@pytest.mark.parametrize("door", list(DOORS))
def test_an_agent_may_not_change_what_the_user_said_unvouched(said: MemoryRepo, door: str) -> None:
    head = said.store.git.head()
    answer = DOORS[door](said, Grants())
    assert "user-source" in answer, answer
    assert said.store.git.head() == head
    text = (said.root / PATH).read_text(encoding="utf-8")
    assert text.endswith(f"---\n{OLD}\n") and "Paris" not in text and "Rome" not in text
    assert [p.name for p in (said.root / "facts").iterdir()] == ["kai-city.md"]


#: The doors where a host can vouch (``memfs remember`` on the command line has no host: the user
#: acts as themself there, ``--actor user:kai``).
VOUCHABLE = [door for door in DOORS if not door.startswith("cli remember") and door != "cli --supersedes"]


@pytest.mark.parametrize("door", VOUCHABLE)
def test_a_host_that_vouches_may(said: MemoryRepo, door: str) -> None:
    head = said.store.git.head()
    answer = DOORS[door](said, VOUCHED)
    assert "user-source" not in answer, answer
    assert said.store.git.head() != head
    assert not (said.root / PATH).read_text(encoding="utf-8").endswith(f"---\n{OLD}\n")


def test_the_user_may_change_their_own_memory(said: MemoryRepo) -> None:
    done = said.remember(Candidate(SCOPE, NEW, **FIELDS), actor=SCOPE)
    assert done.op.value == "SUPERSEDE" and list(done.paths) == [PATH]
    ran = cli(said, "--actor", SCOPE, "remember", "--scope", SCOPE, "--body", "Kai lives in Rome.", "--type", "fact",
              "--source", "conversation:C4", "--source-kind", "user", "--supersedes", PATH)
    assert ran.returncode == 0 and ran.stdout.startswith("SUPERSEDE"), ran.stdout + ran.stderr
    edited = said.session(SCOPE, actor=SCOPE).tool(
        {"command": "str_replace", "path": PATH, "old_str": "Rome", "new_str": "Lyon"})
    assert edited.ok, edited.output


def test_another_person_needs_force(said: MemoryRepo) -> None:
    with pytest.raises(WriteRefused, match="user-source"):
        said.remember(Candidate(SCOPE, NEW, **FIELDS), actor="user:alice")
    done = said.remember(Candidate(SCOPE, NEW, **FIELDS), actor="user:alice", force=True)
    assert done.op.value == "SUPERSEDE"
    assert git(said.root, "log", "-1", "--format=%an").strip() == "user:alice"
    agent = said.session(SCOPE, actor="agent:sneaky").remember
    with pytest.raises(WriteRefused, match="user-source"):
        agent(Candidate(SCOPE, "Kai works in Oslo now.", **FIELDS), force=True)  # an agent's force is nothing


def test_changes_that_keep_what_the_user_said_need_no_vouching(said: MemoryRepo) -> None:
    """A retraction by an agent changes ``status``, not what the user said; an agent's own
    value beside it (``source_kind: agent``) is its own claim."""
    agent = said.session(SCOPE, actor="agent:cleanup")
    agent.retract([PATH], reason="the user said it was a joke")
    assert "status: retracted" in (said.root / PATH).read_text(encoding="utf-8")
    done = agent.remember(Candidate(SCOPE, "Kai seems to work remotely.", source="conversation:C3",
                                    source_kind="agent", type="fact"))
    assert done.op.value == "INSERT"
