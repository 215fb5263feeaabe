"""The core guard holds at every door: a generated matrix of doors x attacks.

Every door below reaches memory its own way (CLI verbs, ``memfs tool``, a bound library session,
remember, a save under ``memfs watch``, a hand edit checked by ``memfs validate``); every attack
comes from :mod:`tests.guard_matrix` (each secret kind the gate knows, plain and disguised, in
the body, in a nested frontmatter value, in a reason, a description or a file name; protected
fields; ``system/``; other scopes; path escapes). Each cell must be refused with a message that
names the rule, and leave no commit and nothing changed on disk (a watched or hand-made save
stays on disk, as the user's editor left it, but is never committed). The MCP door runs the same
matrix through the official client, in ``tests/smoke/test_guard_mcp.py``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from memfs import MemoryRepo
from memfs.agents.filetext import lines_of, view_text
from memfs.errors import MemfsError
from memfs.format.parse import load_document
from tests import guard_matrix as gm
from tests.helpers import cli, git


def _options(fields: dict[str, Any]) -> list[str]:
    known = {"type", "scope", "source", "source_kind", "status", "description", "key", "version"}
    out: list[str] = []
    for name, value in fields.items():
        if name in known:
            out += [f"--{name.replace('_', '-')}", str(value)]
        else:
            out += ["--set", f"{name}={json.dumps(value, ensure_ascii=False)}"]
    return out


def _ran(done: Any) -> gm.Outcome:
    return gm.Outcome(done.returncode == 0, done.stdout + done.stderr)


def _changes(repo: MemoryRepo, path: str, old: str, new: str) -> tuple[dict[str, Any], str | None] | None:
    """The fields and body an edit of ``old`` into ``new`` makes (``None``: nothing to edit)."""
    data = repo.store.read_bytes(path)
    if data is None:
        return {}, None
    text = data.decode()
    if old not in text:
        return None
    before_doc, before = load_document(path, data)
    after_doc, after = load_document(path, text.replace(old, new, 1).encode())
    fields = {k: v for k, v in after.items() if before.get(k) != v}
    return fields, (after_doc.body if after_doc.body != before_doc.body else None)


class CliDoor(gm.Door):
    """``memfs write/rm`` and ``memfs show`` run by an agent (unbound: the CLI's file verbs are
    administration)."""

    name = "cli write/rm/show"
    carries = frozenset({"reason", "path"})
    verb = "write"

    def create(self, repo: MemoryRepo, path: str, fields: dict[str, Any], body: str, reason: str | None) -> gm.Outcome:
        args = ["--actor", gm.AGENT, self.verb, path, *_options(fields), "--body", body]
        return _ran(cli(repo, *args, *(["--reason", reason] if reason else [])))

    def edit(self, repo: MemoryRepo, path: str, old: str, new: str, reason: str | None) -> gm.Outcome:
        found = _changes(repo, path, old, new)
        if found is None:
            return gm.NA
        fields, body = found
        args = ["--actor", gm.AGENT, "write", path, *_options(fields), *(["--body", body] if body is not None else [])]
        return _ran(cli(repo, *args, *(["--reason", reason] if reason else [])))

    def delete(self, repo: MemoryRepo, path: str, reason: str | None) -> gm.Outcome:
        return _ran(cli(repo, "--actor", gm.AGENT, "rm", path, *(["--reason", reason] if reason else [])))

    def describe(self, repo: MemoryRepo, path: str, text: str, reason: str | None) -> gm.Outcome:
        return _ran(cli(repo, "--actor", gm.AGENT, "write", path, "--description", text, "--reason", reason or "x"))

    def read(self, repo: MemoryRepo, path: str) -> gm.Outcome:
        return _ran(cli(repo, "show", path))


class CliAddDoor(CliDoor):
    name = "cli add"
    verb = "add"


class CliNewDoor(gm.Door):
    name = "cli new"
    carries = frozenset({"reason", "path"})

    def create(self, repo: MemoryRepo, path: str, fields: dict[str, Any], body: str, reason: str | None) -> gm.Outcome:
        args = ["--actor", gm.AGENT, "new", "note", path, *_options(fields), "--body", body]
        return _ran(cli(repo, *args, *(["--reason", reason] if reason else [])))


class CliVerbDoor(gm.Door):
    """``memfs retract/forget`` of a memory: what they carry is the path and the reason."""

    families = frozenset({"secret", "rule"})

    def __init__(self, verb: str) -> None:
        self.verb = verb
        self.name = f"cli {verb}"

    def delete(self, repo: MemoryRepo, path: str, reason: str | None) -> gm.Outcome:
        return _ran(cli(repo, "--actor", gm.AGENT, self.verb, path, "--reason", reason or "x"))


class CliRevertDoor(gm.Door):
    """``memfs revert HEAD --reason``: it carries only its reason."""

    name = "cli revert"
    families = frozenset({"secret"})

    def delete(self, repo: MemoryRepo, path: str, reason: str | None) -> gm.Outcome:
        if path != gm.BASE:
            return gm.NA
        return _ran(cli(repo, "--actor", gm.AGENT, "revert", "HEAD", "--reason", reason or "x"))


class ToolDoor(gm.Door):
    """``memfs tool --scope user:U5``, one JSON request per call (files created as whole text)."""

    name = "memfs tool"
    bound = True
    carries = frozenset({"reason", "path"})
    bare = False

    def call(self, repo: MemoryRepo, request: dict[str, Any]) -> gm.Outcome:
        request = {k: v for k, v in request.items() if v is not None}
        done = cli(repo, "--actor", gm.AGENT, "tool", "--scope", gm.SCOPE, input=json.dumps(request))
        try:
            result = json.loads(done.stdout)
        except json.JSONDecodeError:
            return gm.Outcome(False, done.stderr)
        return gm.Outcome(bool(result["ok"]), result["output"])

    def create(self, repo: MemoryRepo, path: str, fields: dict[str, Any], body: str, reason: str | None) -> gm.Outcome:
        if self.bare:
            return self.call(repo, {"command": "create", "path": path, "file_text": body, "fields": fields,
                                    "reason": reason})
        text = gm.file_text(path, fields, body)
        return self.call(repo, {"command": "create", "path": path, "file_text": text, "reason": reason})

    def edit(self, repo: MemoryRepo, path: str, old: str, new: str, reason: str | None) -> gm.Outcome:
        command, arguments = gm.tool_edit(repo, path, old, new)
        return self.call(repo, {"command": command, **arguments, "reason": reason})

    def delete(self, repo: MemoryRepo, path: str, reason: str | None) -> gm.Outcome:
        return self.call(repo, {"command": "delete", "path": path, "reason": reason})

    def describe(self, repo: MemoryRepo, path: str, text: str, reason: str | None) -> gm.Outcome:
        return self.call(repo, {"command": "update_description", "path": path, "description": text,
                                "reason": reason})

    def move(self, repo: MemoryRepo, old: str, new: str, reason: str | None) -> gm.Outcome:
        return self.call(repo, {"command": "rename", "old_path": old, "new_path": new, "reason": reason})

    def read(self, repo: MemoryRepo, path: str) -> gm.Outcome:
        return self.call(repo, {"command": "view", "path": path})


class ToolBareDoor(ToolDoor):
    """``memfs tool`` creating from a bare body with ``fields``, and editing with ``insert``."""

    name = "memfs tool (bare body, insert)"
    bare = True

    def edit(self, repo: MemoryRepo, path: str, old: str, new: str, reason: str | None) -> gm.Outcome:
        data = repo.store.read_bytes(path)
        if data is None or old not in data.decode().split("---", 2)[-1]:
            return gm.NA
        lines = len(lines_of(view_text(path, data)))  # after the last line of the text the tool shows
        return self.call(repo, {"command": "insert", "path": path, "insert_line": lines, "insert_text": new,
                                "reason": reason})


class SessionDoor(gm.Door):
    """The library: ``repo.session("user:U5", actor=agent)`` and its write/delete/show."""

    name = "library session"
    bound = True
    carries = frozenset({"reason", "path"})

    def _do(self, fn: Any, *args: Any, **kwargs: Any) -> gm.Outcome:
        try:
            fn(*args, **kwargs)
        except MemfsError as exc:
            return gm.Outcome(False, str(exc))
        return gm.Outcome(True)

    def _session(self, repo: MemoryRepo) -> MemoryRepo:
        return repo.session(gm.SCOPE, actor=gm.AGENT)

    def create(self, repo: MemoryRepo, path: str, fields: dict[str, Any], body: str, reason: str | None) -> gm.Outcome:
        return self._do(self._session(repo).write, path, fields=fields, body=body, reason=reason, create_only=True)

    def edit(self, repo: MemoryRepo, path: str, old: str, new: str, reason: str | None) -> gm.Outcome:
        session = self._session(repo)
        try:
            session.store.read_file(path)
        except MemfsError as exc:
            return gm.Outcome(False, str(exc))
        found = _changes(repo, path, old, new)
        if found is None:
            return gm.NA
        fields, body = found
        return self._do(session.write, path, fields=fields, body=body, reason=reason)

    def delete(self, repo: MemoryRepo, path: str, reason: str | None) -> gm.Outcome:
        return self._do(self._session(repo).delete, path, reason=reason)

    def describe(self, repo: MemoryRepo, path: str, text: str, reason: str | None) -> gm.Outcome:
        session = self._session(repo)
        try:
            session.store.read_file(path)
        except MemfsError as exc:
            return gm.Outcome(False, str(exc))
        return self._do(session.write, path, fields={"description": text}, reason=reason)

    def read(self, repo: MemoryRepo, path: str) -> gm.Outcome:
        try:
            _rel, data = self._session(repo).show(path)
        except MemfsError as exc:
            return gm.Outcome(False, str(exc))
        return gm.Outcome(True, data.decode())


class RememberDoor(gm.Door):
    """``memfs remember --json -`` by an agent (a candidate: body, fields, extra values, path)."""

    name = "cli remember"
    carries = frozenset({"reason", "path"})
    families = frozenset({"secret", "rule", "path"})

    def create(self, repo: MemoryRepo, path: str, fields: dict[str, Any], body: str, reason: str | None) -> gm.Outcome:
        if fields.get("status") not in (None, "active") or "created" in fields:
            return gm.NA  # remember sets status itself, and drops a candidate's created (memfs stamps it)
        candidate = {**fields, "body": body, "path": path, "reason": reason}
        done = cli(repo, "--actor", gm.AGENT, "remember", "--json", "-", input=json.dumps(candidate))
        return _ran(done)


class WatchDoor(gm.Door):
    """An agent's file tool (or an editor) saves under ``memfs watch``; the watcher commits as
    the agent. What the save carries is the file; it has no reason."""

    name = "memfs watch"
    carries = frozenset({"path"})
    leaves_disk = True
    families = frozenset({"secret", "rule"})

    def _process(self, repo: MemoryRepo, path: str) -> gm.Outcome:
        events = repo.watcher(index=False, actor=gm.AGENT).process([path])
        said = "; ".join(str(e) for e in events)
        return gm.Outcome(any(e.outcome == "committed" for e in events), said)

    def create(self, repo: MemoryRepo, path: str, fields: dict[str, Any], body: str, reason: str | None) -> gm.Outcome:
        try:
            gm.save(repo, path, gm.file_text(path, fields, body))
        except OSError:
            return gm.NA
        return self._process(repo, path)

    def edit(self, repo: MemoryRepo, path: str, old: str, new: str, reason: str | None) -> gm.Outcome:
        target = repo.root / path
        text = target.read_text()
        if old not in text:
            return gm.NA
        target.write_text(text.replace(old, new, 1))
        return self._process(repo, path)

    def delete(self, repo: MemoryRepo, path: str, reason: str | None) -> gm.Outcome:
        if reason not in (None, "x"):
            return gm.NA
        (repo.root / path).unlink()
        return self._process(repo, path)


class ValidateDoor(gm.Door):
    """A hand edit, then ``memfs validate PATH`` as the pre-commit hook runs it: the secret rule
    is the one a hook can judge without knowing who acts."""

    name = "hand edit + memfs validate"
    carries = frozenset({"path"})
    leaves_disk = True
    families = frozenset({"secret"})

    def create(self, repo: MemoryRepo, path: str, fields: dict[str, Any], body: str, reason: str | None) -> gm.Outcome:
        try:
            gm.save(repo, path, gm.file_text(path, fields, body))
        except OSError:
            return gm.NA
        return _ran(cli(repo, "validate", path))

    def edit(self, repo: MemoryRepo, path: str, old: str, new: str, reason: str | None) -> gm.Outcome:
        target = repo.root / path
        text = target.read_text()
        target.write_text(text.replace(old, new, 1))
        return _ran(cli(repo, "validate", path))


DOORS: list[gm.Door] = [
    CliDoor(), CliAddDoor(), CliNewDoor(), CliVerbDoor("retract"), CliVerbDoor("forget"), CliRevertDoor(),
    ToolDoor(), ToolBareDoor(), SessionDoor(), RememberDoor(), WatchDoor(), ValidateDoor(),
]
ATTACKS = gm.attacks()


def run_matrix(repo: MemoryRepo, door: gm.Door, outside: Path) -> tuple[int, list[str]]:
    """Every attack that applies to ``door``; (cells run, failures described). A cell after which
    nothing was put back starts from the state the previous one ended in: its snapshot is reused
    rather than taken again."""
    door.setup(repo)
    failures: list[str] = []
    cells = 0
    state: gm.Snapshot | None = None
    for attack in ATTACKS:
        if not attack.applies_to(door):
            continue
        before = state or gm.snapshot(repo, outside)
        state = None
        outcome = attack.run(door, repo)
        if outcome is gm.NA:
            continue
        cells += 1
        after = gm.snapshot(repo, outside)
        problem = judge(attack, outcome, before, after, door)
        if problem:
            failures.append(f"{door.name} x {attack.name}: {problem}")
        if after.head != before.head:
            git(repo.root, "reset", "-q", "--hard", before.head)
        if door.leaves_disk or after.status != before.status:
            gm.restore(repo, before)
        elif after.head == before.head:
            state = after
    return cells, failures


def judge(attack: gm.Attack, outcome: gm.Outcome, before: gm.Snapshot, after: gm.Snapshot, door: gm.Door) -> str:
    if outcome.ok:
        return f"went through: {outcome.said[:200]}"
    if after.head != before.head:
        return "made a commit"
    if after.git_files != before.git_files or after.outside != before.outside:
        return "wrote into .git or outside the root"
    if not door.leaves_disk and after.status != before.status:
        return "changed the working tree"
    if not any(phrase in outcome.said for phrase in attack.expect):
        return f"refused without saying why (expected one of {attack.expect}): {outcome.said[:300]}"
    if attack.reads_foreign and (gm.FOREIGN_TEXT in outcome.said or gm.OTHER_SCOPE in outcome.said):
        return "showed another scope's memory"
    return gm.refusal_problem(outcome, before, after)


@pytest.fixture
def attacked(repo: MemoryRepo, tmp_path: Path) -> tuple[MemoryRepo, Path]:
    outside = tmp_path / "outside"
    gm.prepare(repo, outside)
    return repo, outside


@pytest.mark.slow
@pytest.mark.parametrize("door", DOORS, ids=[d.name for d in DOORS])
def test_every_attack_is_refused_at_every_door(door: gm.Door, attacked: tuple[MemoryRepo, Path]) -> None:
    repo, outside = attacked
    cells, failures = run_matrix(repo, door, outside)
    print(f"guard matrix: {door.name}: {cells} cells")
    assert cells > 0
    assert failures == [], f"{len(failures)} of {cells} cells failed:\n" + "\n".join(failures[:40])


def test_the_matrix_is_generated_over_every_secret_kind_and_disguise() -> None:
    kinds = {a.name.split(" (")[0] for a in ATTACKS if a.family == "secret" and a.name.startswith("secret ")}
    assert len(kinds) == len(gm.SECRETS)
    cells = sum(1 for door in DOORS for attack in ATTACKS if attack.applies_to(door))
    assert cells > 2000
    disguised = {a.name.split(" (")[1].split(")")[0] for a in ATTACKS if a.name.startswith("everyday ")}
    assert disguised == set(gm.secret_corpus.DISGUISES)
