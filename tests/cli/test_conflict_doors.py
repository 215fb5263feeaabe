"""Probable conflicts without a key at every door (#27), as a matrix of doors x cases.

Each case writes an old memory, then a new one, through one door, in a scope of its own. Writing
doors: ``remember`` (library and CLI) answers SUPERSEDE for a probable conflict, so one value is
left; the file tools (``memfs tool``, MCP, the Anthropic adapter) reply with a notice naming the
old memory. The model here ignores the notice, so the pair stays, and the reading doors must
still handle it: ``validate`` and ``memfs review`` list it (``--json`` too, and the pull request
comment of the range), ``context`` injects only the newer and
says so. Near-misses (a duplicate worded differently, another person, an additive fact) get none
of this; those the wider net finds similar (memfs.policy.conflict_net) are named in the file
tools' reply ("similar memory X: if this one replaces it, edit or delete it"), and stay.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

import anyio
import pytest

from memfs import MemoryRepo
from memfs.agents.context import assemble
from memfs.errors import UsageError
from memfs.integrations.anthropic import open_tool
from memfs.policy.candidate import Candidate
from memfs.policy.guard import Grants
from tests.helpers import Clock, cli


@dataclass(frozen=True)
class Case:
    name: str
    type: str
    old: str
    new: str
    conflict: bool
    task: str
    #: a near miss of the wider net (memfs.policy.conflict_net): named by the file tools for the
    #: model, never superseded or left out without a judge
    near: bool = False


CASES = [
    Case("language", "preference", "Always answer me in Portuguese.",
         "From now on answer me in Spanish, not Portuguese.", True, "answer language"),
    Case("city", "fact", "Kai works in Berlin.", "Kai works in Paris now.", True, "where does Kai work"),
    Case("chinese", "preference", "以后P8的发布说明请用中文", "P8 release notes in English from now on", True,
         "P8 release notes"),
    Case("paraphrase", "preference", "Always answer me in Portuguese.", "Please reply to me in Portuguese.", False,
         "answer Portuguese", near=True),
    Case("other person", "fact", "Kai works in Berlin.", "Mia works in Paris.", False, "works Berlin Paris"),
    Case("additive", "fact", "Kai speaks German.", "Kai also speaks French.", False, "Kai speaks", near=True),
    Case("near miss", "fact", "Mia keeps her bike in the garage.", "Mia's bike now lives in the hallway.", False,
         "Mia bike", near=True),
    Case("near miss zh", "fact", "我负责前端组的招聘。", "前端组的招聘现在由小周负责。", False, "前端组 招聘",
         near=True),
]

#: The host vouches that what its agent writes as the user's is (preferences need the user's word).
VOUCHED = Grants(vouch_user_source=True)
FIELDS = {"source": "conversation:C1", "source_kind": "user"}
#: A door writes ``body`` as a memory of ``type`` in ``scope`` at ``path`` and returns what it answers.
Write = Callable[[MemoryRepo, str, str, str, str], str]


def _remember(repo: MemoryRepo, scope: str, path: str, type_: str, body: str) -> str:
    done = repo.remember(Candidate(scope, body, type=type_, source="conversation:C1", source_kind="user",
                                   path=path), actor=scope)
    return f"{done.op.value} {done.reason}"


def _cli_remember(repo: MemoryRepo, scope: str, path: str, type_: str, body: str) -> str:
    ran = cli(repo, "--actor", scope, "remember", "--scope", scope, "--body", body, "--type", type_,
              "--source", "conversation:C1", "--source-kind", "user", "--path", path)
    assert ran.returncode == 0, ran.stderr
    return ran.stdout


def _tool(repo: MemoryRepo, scope: str, path: str, type_: str, body: str) -> str:
    done = repo.session(scope, actor="agent:tool", grants=VOUCHED).tool(
        {"command": "create", "path": path, "file_text": body, "fields": FIELDS | {"type": type_}})
    assert done.ok, done.output
    return done.output


def _mcp(repo: MemoryRepo, scope: str, path: str, type_: str, body: str) -> str:
    from memfs.mcp_server import build_server

    server = build_server(repo.session(scope, actor="agent:mcp", grants=VOUCHED))
    arguments = {"path": path, "file_text": body, "fields": FIELDS | {"type": type_}}
    result = anyio.run(server.call_tool, "memory_create", arguments)
    structured = getattr(result, "structured_content", None)
    if structured is not None:
        return json.dumps(structured, ensure_ascii=False)
    return "\n".join(getattr(c, "text", "") for c in getattr(result, "content", result))


def _anthropic(repo: MemoryRepo, scope: str, path: str, type_: str, body: str) -> str:
    tool = open_tool(repo, scope=scope, actor="agent:claude", source="conversation:C1", grants=VOUCHED,
                     defaults={"type": type_, "source_kind": "user"})
    return tool.create(f"/memories/{path}", body)


REMEMBER: dict[str, Write] = {"remember": _remember, "cli remember": _cli_remember}
FILE_TOOLS: dict[str, Write] = {"tool": _tool, "mcp": _mcp, "anthropic": _anthropic}
DOORS = {**REMEMBER, **FILE_TOOLS}


def _write_all(repo: MemoryRepo, clock: Clock, write: Write) -> list[tuple[Case, str, str, str, str]]:
    """Every case through ``write``: (case, scope, old path, new path, the door's answer to the new one)."""
    done = []
    for number, case in enumerate(CASES):
        scope = f"user:case{number}"
        old, new = f"notes/case{number}-old.md", f"notes/case{number}-new.md"
        clock.at(number * 10)
        write(repo, scope, old, case.type, case.old)
        clock.at(number * 10 + 5)
        done.append((case, scope, old, new, write(repo, scope, new, case.type, case.new)))
    return done


@pytest.mark.parametrize("door", list(DOORS))
def test_every_door_handles_every_case(repo: MemoryRepo, clock: Clock, door: str) -> None:
    base = repo.store.git.head()
    written = _write_all(repo, clock, DOORS[door])
    listed = {(p.older, p.newer) for p in repo.conflicts()}
    warned = {(p.path, p.message) for p in repo.validate() if "probable conflict" in p.message}
    review = cli(repo, "review").stdout
    as_json = {(p["older"], p["newer"]) for p in json.loads(cli(repo, "review", "--json").stdout)["conflicts"]}
    summary = repo.review(base, "HEAD")  # the pull request comment of the range
    in_comment, comment = {(p.older, p.newer) for p in summary.conflicts}, summary.render()
    for case, scope, old, new, answer in written:
        label = f"{door} x {case.name}: {answer}"
        if door in REMEMBER:  # without a judge a near miss is never superseded
            assert answer.startswith("SUPERSEDE") is case.conflict, label
            if case.conflict:
                assert not (repo.root / new).exists() and case.new in (repo.root / old).read_text("utf-8")
            continue
        assert ("looks like another value" in answer and old in answer) is case.conflict, label
        assert (f"add distinct_from: [{old}]" in answer) is (case.conflict and door != "anthropic"), label
        named = f"/memories/{old}" if door == "anthropic" else old
        assert (f"similar memory {named}: if this one replaces it, edit or delete it" in answer) is case.near, label
        assert ("Note:" in answer) is (case.conflict or case.near), label
        assert ((old, new) in listed) is case.conflict, label
        assert any(path == old and new in message for path, message in warned) is case.conflict, label
        assert (f"{old} -> {new}" in review) is case.conflict, label
        assert ((old, new) in as_json) is case.conflict and ((old, new) in in_comment) is case.conflict, label
        assert (f"`{old}` → `{new}`" in comment) is case.conflict, label
        ctx = assemble(repo.store, case.task, scope=scope)
        injected = {b.path for b in ctx.blocks if b.kind == "recalled"}
        if case.conflict:
            assert injected == {new}, label
            assert (old, new) in ctx.conflicts and any(old in w and new in w for w in ctx.warnings), label
        else:
            assert not ctx.conflicts, label
            assert (repo.root / old).exists() and (repo.root / new).exists(), label  # a near miss stays


def test_keep_both_keeps_a_probable_conflict(repo: MemoryRepo, clock: Clock) -> None:
    case = CASES[1]
    _remember(repo, "user:kai", "facts/old.md", case.type, case.old)
    clock.at(5)
    done = repo.remember(Candidate("user:kai", case.new, type=case.type, source="conversation:C2",
                                   source_kind="user", path="facts/new.md", keep_both=True), actor="user:kai")
    assert done.op.value == "KEEP_BOTH" and "facts/old.md" in done.reason
    assert "distinct_from: [facts/old.md]" in (repo.root / "facts/new.md").read_text("utf-8")
    assert repo.conflicts() == []  # the caller decided that both hold: no door pairs them again
    ctx = assemble(repo.store, case.task, scope="user:kai")
    assert {b.path for b in ctx.blocks if b.kind == "recalled"} == {"facts/old.md", "facts/new.md"}
    assert not ctx.conflicts and not ctx.warnings


@pytest.mark.parametrize("door", ["tool", "mcp"])
def test_a_model_that_follows_the_notice_keeps_both(repo: MemoryRepo, clock: Clock, door: str) -> None:
    """At the doors whose model writes frontmatter the notice says how to record that both hold;
    written so, the pair is no probable conflict: no notice, and context injects both."""
    case = CASES[1]
    write = FILE_TOOLS[door]
    write(repo, "user:kai", "facts/old.md", case.type, case.old)
    clock.at(5)
    session = repo.session("user:kai", actor="agent:tool", grants=VOUCHED)
    done = session.tool({"command": "create", "path": "facts/new.md", "file_text": case.new,
                         "fields": FIELDS | {"type": case.type, "distinct_from": ["facts/old.md"]}})
    assert done.ok and "Note:" not in done.output, done.output
    assert repo.conflicts() == []
    ctx = assemble(repo.store, case.task, scope="user:kai")
    assert {b.path for b in ctx.blocks if b.kind == "recalled"} == {"facts/old.md", "facts/new.md"}


def test_a_supersede_drops_distinct_from_and_the_pair_is_found_again(repo: MemoryRepo, clock: Clock) -> None:
    """``distinct_from`` spoke of the value it was written with: a SUPERSEDE of that file drops it."""
    case = CASES[1]
    _remember(repo, "user:kai", "facts/old.md", case.type, case.old)
    clock.at(5)
    repo.remember(Candidate("user:kai", case.new, type=case.type, source="conversation:C2", source_kind="user",
                            path="facts/new.md", keep_both=True), actor="user:kai")
    clock.at(10)
    done = repo.remember(Candidate("user:kai", "Kai works in Rome now.", type=case.type, source="conversation:C3",
                                   source_kind="user", supersedes="facts/new.md"), actor="user:kai")
    assert done.op.value == "SUPERSEDE" and done.paths == ("facts/new.md",)
    assert "distinct_from" not in (repo.root / "facts/new.md").read_text("utf-8")
    assert [(p.older, p.newer) for p in repo.conflicts()] == [("facts/old.md", "facts/new.md")]


@pytest.mark.parametrize("where", ["new", "old"])
def test_distinct_from_written_by_hand_on_either_side_keeps_a_pair_apart(repo: MemoryRepo, clock: Clock,
                                                                         where: str) -> None:
    """A person (or a model writing frontmatter) records the decision in either file."""
    case = CASES[0]
    _remember(repo, "user:kai", "facts/old.md", case.type, case.old)
    clock.at(5)
    _remember(repo, "user:kai", "facts/other.md", "fact", "Kai's team meets on Tuesdays.")
    (repo.root / "facts/new.md").write_text(
        f"---\ntype: {case.type}\nscope: user:kai\nsource: conversation:C2\nstatus: active\n---\n{case.new}\n")
    assert [{p.older, p.newer} for p in repo.conflicts()] == [{"facts/old.md", "facts/new.md"}]
    side = repo.root / f"facts/{where}.md"
    other = "facts/old.md" if where == "new" else "facts/new.md"
    side.write_text(side.read_text("utf-8").replace("status: active\n", f"status: active\ndistinct_from: [{other}]\n"))
    assert repo.conflicts() == []
    assert not [p for p in repo.validate() if p.field == "distinct_from" or "conflict" in p.message]


def test_context_without_a_scope_refuses_two_people(repo: MemoryRepo) -> None:
    """#27 item 3a: user:maria and user:mariana are two people; --all-scopes is the way to ask."""
    for scope, body in (("user:maria", "Maria is allergic to peanuts."), ("user:mariana", "Mariana is allergic "
                                                                                        "to cats.")):
        _remember(repo, scope, f"facts/{scope[5:]}.md", "fact", body)
    refused = cli(repo, "context", "what am I allergic to")
    assert refused.returncode == 2 and "user:maria, user:mariana" in refused.stderr and "--all-scopes" in refused.stderr
    allowed = cli(repo, "context", "what am I allergic to", "--all-scopes")
    assert allowed.returncode == 0 and "peanuts" in allowed.stdout and "cats" in allowed.stdout
    one = cli(repo, "context", "what am I allergic to", "--scope", "user:maria")
    assert one.returncode == 0 and "cats" not in one.stdout


def test_the_matrix_covers_both_outcomes() -> None:
    assert {c.conflict for c in CASES} == {True, False}
    assert {c.near for c in CASES if not c.conflict} == {True, False}
    assert set(DOORS) == {"remember", "cli remember", "tool", "mcp", "anthropic"}


def _supersede_library(repo: MemoryRepo, body: str, target: str) -> tuple[int, str]:
    try:
        done = repo.remember(Candidate("user:kai", body, type="fact", source="conversation:C3", source_kind="user",
                                       supersedes=target), actor="user:kai")
    except UsageError as exc:
        return 2, str(exc)
    return 0, f"{done.op.value} {done.paths}"


def _supersede_cli(repo: MemoryRepo, body: str, target: str) -> tuple[int, str]:
    ran = cli(repo, "--actor", "user:kai", "remember", "--scope", "user:kai", "--body", body, "--type", "fact",
              "--source", "conversation:C3", "--source-kind", "user", "--supersedes", target)
    return ran.returncode, ran.stdout + ran.stderr


def _supersede_mcp(repo: MemoryRepo, body: str, target: str) -> tuple[int, str]:
    from memfs.mcp_server import build_server

    server = build_server(repo.session("user:kai", actor="user:kai"))
    arguments = {"body": body, "type": "fact", "source": "conversation:C3", "source_kind": "user",
                 "supersedes": target}
    try:
        result = anyio.run(server.call_tool, "memory_remember", arguments)
    except Exception as exc:  # a tool error
        return 2, str(exc)
    return 0, json.dumps(getattr(result, "structured_content", None) or str(result))


SUPERSEDE_DOORS = {"remember": _supersede_library, "cli remember": _supersede_cli, "mcp": _supersede_mcp}


@pytest.mark.parametrize("door", list(SUPERSEDE_DOORS))
def test_supersedes_names_what_a_new_memory_replaces(repo: MemoryRepo, clock: Clock, door: str) -> None:
    """#27 item 1: ``--supersedes PATH`` is the explicit decision (beside ``--keep-both``), at every
    door from the one declaration. Kai's team is no probable conflict of Kai's city by the rules,
    so only the caller's word makes it SUPERSEDE; a path that is not an active memory of the
    scope (missing, another person's, withdrawn) is refused by name, nothing written."""
    write = SUPERSEDE_DOORS[door]
    _remember(repo, "user:kai", "facts/kai-team.md", "fact", "Kai is on the payments team.")
    _remember(repo, "user:ana", "facts/ana.md", "fact", "Ana works in Rome.")
    _remember(repo, "user:kai", "facts/kai-old.md", "fact", "Kai had a desk on floor 2.")
    repo.forget("facts/kai-old.md", reason="moved", actor="user:kai")
    head = repo.store.git.head()
    for target in ("facts/nothing.md", "facts/ana.md", "facts/kai-old.md"):
        code, answer = write(repo, "Kai moved to the search team.", target)
        assert code != 0 and "supersedes" in answer and target in answer, (door, target, answer)
        assert repo.store.git.head() == head, (door, target)
    clock.at(5)
    code, answer = write(repo, "Kai moved to the search team.", "facts/kai-team.md")
    assert code == 0 and "SUPERSEDE" in answer, (door, answer)
    text = (repo.root / "facts/kai-team.md").read_text("utf-8")
    assert "search team" in text and "revision: 2" in text
