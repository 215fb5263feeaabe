"""The ``[judge] conflict`` of ``.memfs.toml`` at every door (#27), as a matrix of judges x doors.

Each cell configures one judge, writes Kai's city ("Kai works in Berlin." then "Kai works in
Paris now.", a probable conflict by the offline rules) through one door, then a second pair in
another scope. The remember doors (library, CLI, MCP ``memory_remember``) apply the judge's
ruling (``replace``: SUPERSEDE, ``keep-both``: KEEP_BOTH, ``unrelated``: INSERT, each naming the
judge); the file tools (``memfs tool`` in the library and the CLI, MCP ``memory_create``, the
Anthropic adapter) write what the model wrote and put the ruling in the notice. A judge that is
missing, raises, times out or answers nonsense leaves the offline rules' decision (SUPERSEDE;
the plain notice), and the door says so once: the second pair gets no second notice. The judge
is asked only about pairs the rules found, with the typed question; nothing is written on its
word that the gate or the guard refuses.
"""

from __future__ import annotations

import json
import threading
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import anyio
import pytest

from memfs import MemoryRepo
from memfs.agents.context import assemble
from memfs.errors import WriteRefused
from memfs.ops import judge
from memfs.policy.candidate import Candidate
from memfs.policy.conflicts import RULINGS
from memfs.policy.guard import Grants
from tests.helpers import Clock, cli

OLD, NEW = "Kai works in Berlin.", "Kai works in Paris now."
VOUCHED = Grants(vouch_user_source=True)
FIELDS = {"source": "conversation:C1", "source_kind": "user", "type": "fact"}
ASKED: list[judge.ConflictQuestion] = []
_release = threading.Event()


def replace(question: judge.ConflictQuestion) -> str:
    ASKED.append(question)
    return "Replace"


def keep_both(question: judge.ConflictQuestion) -> str:
    ASKED.append(question)
    return " keep-both\n"


def unrelated(question: judge.ConflictQuestion) -> str:
    ASKED.append(question)
    return "UNRELATED"


def raises(question: judge.ConflictQuestion) -> str:
    ASKED.append(question)
    raise RuntimeError("model overloaded")


def nonsense(question: judge.ConflictQuestion) -> str:
    ASKED.append(question)
    return "both, probably"


def hangs(question: judge.ConflictQuestion) -> str:
    ASKED.append(question)
    _release.wait()
    return "replace"


HERE = "tests.cli.test_judge_conflict_doors"


@dataclass(frozen=True)
class Judge:
    spec: str
    #: what the remember doors do (Memfs op) and the words their reason or notice must hold
    op: str
    said: str


JUDGES = {
    "replace": Judge(f"{HERE}:replace", "SUPERSEDE", "reads it as replacing"),
    "keep-both": Judge(f"{HERE}:keep_both", "KEEP_BOTH", "reads both as true at once"),
    "unrelated": Judge(f"{HERE}:unrelated", "INSERT", "reads it as unrelated"),
    "missing": Judge("tests.cli.no_such_judge:conflict", "SUPERSEDE", "cannot be used ("),
    "raises": Judge(f"{HERE}:raises", "SUPERSEDE", "raised RuntimeError: model overloaded"),
    "timeout": Judge(f"{HERE}:hangs", "SUPERSEDE", "gave no answer within 0.05 s"),
    "nonsense": Judge(f"{HERE}:nonsense", "SUPERSEDE", "answered 'both, probably', not one of replace"),
}
#: What the file tools' notice says for each ruling (a failing judge: the rules' own notice).
NOTICE = {"replace": "reads this as replacing", "keep-both": "as true at once", "unrelated": "as unrelated"}
FAILING = ("missing", "raises", "timeout", "nonsense")


@pytest.fixture(autouse=True)
def fresh(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(judge, "_said", set())
    monkeypatch.setattr(judge, "_unread", [])
    ASKED.clear()
    _release.clear()
    yield
    _release.set()


def _configure(repo: MemoryRepo, spec: str) -> None:
    path = repo.root / ".memfs.toml"
    kept = path.read_text(encoding="utf-8").split("\n[judge]")[0]
    path.write_text(f'{kept}\n[judge]\nconflict = "{spec}"\ntimeout = 0.05\n', encoding="utf-8")


# --- the doors: each writes ``body`` at ``path`` in ``scope`` and returns its answer -----------------------
Write = Callable[[MemoryRepo, str, str, str], str]
#: MCP's memory_remember names its files itself (no ``path``): where each scope's first write went.
_named: dict[str, str] = {}
_library_warnings: list[str] = []


def _remember(repo: MemoryRepo, scope: str, path: str, body: str) -> str:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", judge.JudgeFallback)
        done = repo.remember(Candidate(scope, body, path=path, **FIELDS), actor=scope)
    _library_warnings.extend(str(w.message) for w in caught if issubclass(w.category, judge.JudgeFallback))
    judge.drain()  # what a library caller reads is the warning
    return f"{done.op.value} {done.reason}"


def _cli_remember(repo: MemoryRepo, scope: str, path: str, body: str) -> str:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", judge.JudgeFallback)
        ran = cli(repo, "--actor", scope, "remember", "--scope", scope, "--body", body, "--type", "fact",
                  "--source", "conversation:C1", "--source-kind", "user", "--path", path)
    assert ran.returncode == 0, ran.stderr
    return ran.stdout + ran.stderr


def _mcp_call(repo: MemoryRepo, scope: str, tool: str, arguments: dict[str, object]) -> str:
    from memfs.mcp_server import build_server

    server = build_server(repo.session(scope, actor=scope, grants=VOUCHED))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", judge.JudgeFallback)
        result = anyio.run(server.call_tool, tool, arguments)
    structured = getattr(result, "structured_content", None)
    if structured is not None:
        return json.dumps(structured, ensure_ascii=False)
    return "\n".join(getattr(c, "text", "") for c in getattr(result, "content", result))


def _mcp_remember(repo: MemoryRepo, scope: str, path: str, body: str) -> str:
    done = json.loads(_mcp_call(repo, scope, "memory_remember", {"body": body, **FIELDS}))
    _named.setdefault(path, done["paths"][0])
    return f"{done['op']} {done['reason']} {' '.join(done.get('notices', []))}"


def _mcp_create(repo: MemoryRepo, scope: str, path: str, body: str) -> str:
    return _mcp_call(repo, scope, "memory_create", {"path": path, "file_text": body, "fields": FIELDS})


def _tool(repo: MemoryRepo, scope: str, path: str, body: str) -> str:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", judge.JudgeFallback)
        done = repo.session(scope, actor="agent:tool", grants=VOUCHED).tool(
            {"command": "create", "path": path, "file_text": body, "fields": FIELDS})
    assert done.ok, done.output
    return done.output


def _cli_tool(repo: MemoryRepo, scope: str, path: str, body: str) -> str:
    request = {"command": "create", "path": path, "file_text": body, "fields": FIELDS}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", judge.JudgeFallback)
        ran = cli(repo, "--actor", "agent:tool", "tool", "--scope", scope, "--vouch-user-source", "--text",
                  input=json.dumps(request))
    assert ran.returncode == 0, ran.stdout + ran.stderr
    return ran.stdout + ran.stderr


def _anthropic(repo: MemoryRepo, scope: str, path: str, body: str) -> str:
    from memfs.integrations.anthropic import open_tool

    tool = open_tool(repo, scope=scope, actor="agent:claude", source="conversation:C1", grants=VOUCHED,
                     defaults={"type": "fact", "source_kind": "user"})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", judge.JudgeFallback)
        return tool.create(f"/memories/{path}", body)


REMEMBER: dict[str, Write] = {"remember": _remember, "cli remember": _cli_remember, "mcp remember": _mcp_remember}
FILE_TOOLS: dict[str, Write] = {"tool": _tool, "cli tool": _cli_tool, "mcp create": _mcp_create,
                                "anthropic": _anthropic}
DOORS = {**REMEMBER, **FILE_TOOLS}


def _pair(repo: MemoryRepo, clock: Clock, write: Write, number: int) -> tuple[str, str, str]:
    """Kai's two cities through ``write`` in a scope of their own: (old path, new path, the answer
    to the new one)."""
    scope, old, new = f"user:kai{number}", f"facts/kai{number}-old.md", f"facts/kai{number}-new.md"
    clock.at(number * 10)
    write(repo, scope, old, OLD)
    clock.at(number * 10 + 5)
    answer = write(repo, scope, new, NEW)
    return _named.get(old, old), _named.get(new, new), answer


@pytest.mark.parametrize("door", list(DOORS))
@pytest.mark.parametrize("name", list(JUDGES))
def test_every_door_uses_the_conflict_judge_or_falls_back_once(repo: MemoryRepo, clock: Clock, door: str,
                                                               name: str) -> None:
    ruled, write = JUDGES[name], DOORS[door]
    _configure(repo, ruled.spec)
    _library_warnings.clear()
    _named.clear()
    old, new, answer = _pair(repo, clock, write, 1)
    again = _pair(repo, clock, write, 2)[2]
    label = f"{door} x {name}: {answer}"
    if name != "missing":
        assert ASKED, label
        asked = ASKED[0]  # the typed question: both memories, the rules' reading, the allowed answers
        assert (asked.new.text, asked.old.text, asked.old.path, asked.choices) == (NEW, OLD, old, RULINGS), label
        assert asked.new.scope == asked.old.scope == "user:kai1" and asked.old.type == "fact" and asked.offline
    failing = name in FAILING
    shown = _library_warnings if door == "remember" else [answer]
    if failing:
        assert sum(ruled.said in text and "offline rules decide the probable conflict" in text
                   for text in shown) == 1, label
        assert all(ruled.said not in text for text in ([again] if door != "remember" else shown[1:])), label
    if door in REMEMBER:
        assert answer.startswith(ruled.op), label
        assert failing or f"the judge {ruled.spec} {ruled.said}" in answer, label
        texts = [p.read_text("utf-8") for p in (repo.root / "facts").iterdir() if "kai1" in p.name]
        assert len(texts) == (1 if ruled.op == "SUPERSEDE" else 2), label  # one value left, or both kept
        assert any(NEW in t for t in texts) and any(OLD in t for t in texts) is (ruled.op != "SUPERSEDE"), label
        _kept_apart_everywhere(repo, old, new, ruled.op != "SUPERSEDE", label)
        return
    assert "Note:" in answer and old in answer and OLD in (repo.root / old).read_text("utf-8"), label  # nothing
    assert NEW in (repo.root / new).read_text("utf-8"), label                                    # written for it
    if failing:
        assert "If this replaces it" in answer, label
    else:
        assert f"The judge {ruled.spec} reads this" in answer and NOTICE[name] in answer, label
    assert "Note:" in again, label


def _kept_apart_everywhere(repo: MemoryRepo, old: str, new: str, both: bool, label: str) -> None:
    """After a ruling that both hold, the new file names the old one in ``distinct_from``, and no
    reading door pairs them any more: ``validate``/``review`` list no conflict, ``context`` injects both."""
    if not both:
        return
    assert f"distinct_from: [{old}]" in (repo.root / new).read_text("utf-8"), label
    assert not [p for p in repo.conflicts() if old in (p.older, p.newer)], label
    ctx = assemble(repo.store, "where does Kai work", scope="user:kai1")
    assert {old, new} <= {b.path for b in ctx.blocks if b.kind == "recalled"} and not ctx.conflicts, label


NEAR_OLD, NEAR_NEW = "Mia keeps her bike in the garage.", "Mia's bike now lives in the hallway."
#: What a near miss becomes at the remember doors, by judge: only a ``replace`` supersedes it.
NEAR_OP = {"replace": "SUPERSEDE", "unrelated": "INSERT", "raises": "INSERT"}


@pytest.mark.parametrize("door", list(DOORS))
@pytest.mark.parametrize("name", list(NEAR_OP))
def test_every_door_asks_the_judge_about_a_near_miss(repo: MemoryRepo, clock: Clock, door: str, name: str) -> None:
    """A pair the rules do not call a conflict but the wider net finds similar: the judge is
    asked (the question says the rules found no conflict); its ``replace`` supersedes the old
    memory at the remember doors and is said in the file tools' notice; ``unrelated`` keeps both
    and names nothing; a judge that fails keeps both, and the file tools name the near miss."""
    _configure(repo, JUDGES[name].spec)
    _named.clear()
    scope, old, new = "user:mia", "facts/bike-old.md", "facts/bike-new.md"
    write = DOORS[door]
    write(repo, scope, old, NEAR_OLD)
    clock.at(5)
    answer = write(repo, scope, new, NEAR_NEW)
    old = _named.get(old, old)
    label = f"{door} x {name}: {answer}"
    assert [(q.old.text, q.new.text) for q in ASKED] == [(NEAR_OLD, NEAR_NEW)], label
    assert "found no conflict" in ASKED[0].offline and ASKED[0].asks == judge.NEAR_ASKS, label
    texts = [p.read_text("utf-8") for p in (repo.root / "facts").iterdir()]
    if door in REMEMBER:
        assert answer.startswith(NEAR_OP[name]), label
        assert ("a similar memory the rules did not pair" in answer) is (name == "replace"), label
        assert len(texts) == (1 if name == "replace" else 2), label
        return
    assert len(texts) == 2, label  # the file tools write what the model wrote, and say the rest
    named = f"/memories/{old}" if door == "anthropic" else old
    if name == "replace":
        assert f"similar memory {named}: The judge {JUDGES[name].spec} reads this as replacing it" in answer, label
    elif name == "unrelated":
        assert "similar memory" not in answer, label
    else:
        assert f"similar memory {named}: if this one replaces it, edit or delete it" in answer, label


def test_the_judge_is_asked_only_about_what_the_rules_pair(repo: MemoryRepo, clock: Clock) -> None:
    """No probable conflict and no near miss, a key, or a caller's decision (``keep_both``,
    ``supersedes``): the judge is not asked, and the decision is the one it would be without it."""
    _configure(repo, JUDGES["replace"].spec)
    _remember(repo, "user:kai", "facts/city.md", OLD)
    clock.at(5)
    assert _remember(repo, "user:kai", "facts/team.md", "The payments team meets on Tuesdays.").startswith("INSERT")
    kept = repo.remember(Candidate("user:kai", NEW, path="facts/new.md", keep_both=True, **FIELDS), actor="user:kai")
    assert kept.op.value == "KEEP_BOTH" and "as asked" in kept.reason
    keyed = repo.remember(Candidate("user:kai", "Kai works in Rome now.", key="kai-city", **FIELDS), actor="user:kai")
    assert keyed.op.value == "INSERT"
    assert ASKED == []


def test_nothing_is_written_on_a_judges_word_that_the_gate_or_the_guard_refuses(repo: MemoryRepo,
                                                                                clock: Clock) -> None:
    """A ruling only chooses among the rules' decisions: a one-off request the judge says
    ``replace`` (of a lasting preference) is still refused by the gate; a memory it calls
    ``unrelated`` is an INSERT the guard judges as any (an agent may not write the user's words
    unvouched). Nothing is committed either time."""
    _configure(repo, JUDGES["replace"].spec)
    prefs = {"source": "conversation:C1", "source_kind": "user", "type": "preference"}
    repo.remember(Candidate("user:kai", "Always answer me in Portuguese.", path="prefs/lang.md", **prefs),
                  actor="user:kai")
    _remember(repo, "user:kai", "facts/city.md", OLD)
    clock.at(5)
    head = repo.store.git.head()
    with pytest.raises(WriteRefused, match="one-off"):
        repo.remember(Candidate("user:kai", "Answer me in Spanish in this thread, not Portuguese.", **prefs),
                      actor="user:kai")
    assert [q.old.path for q in ASKED] == ["prefs/lang.md"]  # asked, answered replace: refused all the same
    _configure(repo, JUDGES["unrelated"].spec)
    with pytest.raises(WriteRefused, match="user-source"):
        repo.remember(Candidate("user:kai", NEW, path="facts/paris.md", **FIELDS), actor="agent:sneaky")
    assert [q.old.path for q in ASKED] == ["prefs/lang.md", "facts/city.md"]
    assert repo.store.git.head() == head and not (repo.root / "facts/paris.md").exists()


def test_a_batch_asks_the_judge_for_each_candidate(repo: MemoryRepo, clock: Clock) -> None:
    """``remember_batch`` (an import) asks per candidate, against what was there before the batch."""
    _configure(repo, JUDGES["keep-both"].spec)
    _remember(repo, "user:kai", "facts/city.md", OLD)
    _remember(repo, "user:kai", "facts/car.md", "The family car is a Volvo.")
    clock.at(5)
    done = repo.remember_batch([Candidate("user:kai", NEW, path="facts/paris.md", **FIELDS),
                                Candidate("user:kai", "The family car is a Tesla now.", path="facts/tesla.md",
                                          **FIELDS)],
                               actor="user:kai")
    assert [o.op.value for o in done.outcomes if o is not None] == ["KEEP_BOTH", "KEEP_BOTH"]
    assert [q.old.path for q in ASKED] == ["facts/city.md", "facts/car.md"]


def test_the_matrix_covers_every_answer_and_failure() -> None:
    assert set(JUDGES) == {*RULINGS, *FAILING}
    assert set(DOORS) == {"remember", "cli remember", "mcp remember", "tool", "cli tool", "mcp create", "anthropic"}
