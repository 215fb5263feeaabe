"""Every door meets every credential kind in every disguise: the drivers the thin cross-section
(``tests/smoke/test_secret_doors.py``) and the full matrix (``bench/bench_secret_doors.py``) share.

A *cell* is one text of :mod:`tests.secret_corpus` (a credential of one kind in one disguise, or
a line of prose about credentials, which must go through). Each door offers a list of cells the
way its users do (the CLI verbs and ``memfs tool`` in this process, MCP over stdio through the
official client, the Anthropic adapter, LangGraph's store, a save under ``memfs watch``, a real
``git commit`` under the installed hooks, ``memfs import``, ``memfs sync`` from another clone) and
says which cells got in:

* a door that commits cell by cell puts cell ``i`` at its own path; what got in is what HEAD has
  there afterwards (one ``git ls-tree`` per door, not one per cell);
* a door that takes the cells in one go (a hand commit, a sync) refuses them all if one is bad,
  so a cell counts as refused only when the refusal names it; the others would have got in.

Every door here writes into its own folder of one shared repository, so they can share it: a
refused cell changes nothing, and a prose cell adds one file in the door's folder.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memfs import MemoryRepo
from memfs.errors import MemfsError, SyncRefused
from tests import secret_corpus as corpus
from tests.helpers import PERSON, git, memory_text, run_cli

AGENT = "agent:doors"
SCOPE = "user:U5"
FIELDS: dict[str, Any] = {"type": "fact", "scope": SCOPE, "source": "conversation:C1#msg-1", "source_kind": "agent"}
PROSE = "prose"


@dataclass(frozen=True)
class Cell:
    """One text a door is offered: ``kind`` (a credential kind, or :data:`PROSE`), ``disguise``."""

    kind: str
    disguise: str
    text: str

    @property
    def secret(self) -> bool:
        return self.kind != PROSE


def cross_section(offset: int = 0, seed: int = 26) -> list[Cell]:
    """As few cells as let every credential kind and every disguise appear at least once: the
    kinds in an order shuffled by ``offset``, the disguises in turn (so doors given different
    offsets see different pairs)."""
    rng = random.Random(f"{seed}/{offset}")
    kinds, disguises = sorted(corpus.KINDS), list(corpus.DISGUISES)
    rng.shuffle(kinds)
    out = []
    for i in range(max(len(kinds), len(disguises))):
        kind, name = kinds[i % len(kinds)], disguises[i % len(disguises)]
        out.append(Cell(kind, name, corpus.DISGUISES[name](*corpus.KINDS[kind](rng))))
    return out


def full(per_kind: int, seed: int = 26) -> list[Cell]:
    """Every kind in every disguise, ``per_kind`` samples each, then the prose corpus."""
    cells = [Cell(kind, name, text) for kind, name, text in corpus.samples(per_kind, seed)]
    return cells + prose()


def prose() -> list[Cell]:
    return [Cell(PROSE, "plain", text) for text in corpus.PROSE]


def body(cell: Cell, folder: str) -> str:
    """The memory's body: the cell's text under a line naming the door's folder (so two doors'
    identical prose are two memories, not a restatement that remember would skip)."""
    return f"Note for {folder}:\n{cell.text}\n"


@dataclass
class Env:
    """The repository every door writes into, a scratch folder, and servers kept open."""

    repo: MemoryRepo
    scratch: Path

    def in_head(self, folder: str) -> set[str]:
        """The file names HEAD has in ``folder`` (root-relative)."""
        out = git(self.repo.root, "ls-tree", "-z", "--name-only", "HEAD", f"{folder}/")
        return {Path(name).name for name in out.split("\0") if name}


def _by_path(env: Env, folder: str, cells: Sequence[Cell], suffix: str = ".md") -> set[int]:
    present = env.in_head(folder)
    return {i for i in range(len(cells)) if f"c{i}{suffix}" in present}


# --- doors that commit cell by cell ---------------------------------------------------------------
def _cli_verb(verb: str) -> Callable[[Env, Sequence[Cell]], set[int]]:
    def run(env: Env, cells: Sequence[Cell]) -> set[int]:
        folder = f"doors/cli-{verb}"
        merged = set()  # remembered into another memory (a restatement reconciled): in, if committed
        for i, cell in enumerate(cells):
            path = f"{folder}/c{i}.md"
            if verb == "remember":
                request = {**FIELDS, "body": body(cell, folder), "path": path, "reason": "note"}
                done = run_cli("-C", str(env.repo.root), "--actor", AGENT, "remember", "--json", "-",
                               input=json.dumps(request))
                if done.returncode == 0 and json.loads(done.stdout).get("commit"):
                    merged.add(i)
                continue
            options = [f"--{k.replace('_', '-')}={v}" for k, v in FIELDS.items()]
            extra = ["note"] if verb == "new" else []
            run_cli("-C", str(env.repo.root), "--actor", AGENT, verb, *extra, path, *options,
                    "--body", body(cell, folder), "--reason", "note")
        return _by_path(env, folder, cells) | merged

    return run


def tool(env: Env, cells: Sequence[Cell]) -> set[int]:
    """``memfs tool --scope user:U5``: one JSON request per call, as a host's model sends it."""
    folder = "doors/tool"
    for i, cell in enumerate(cells):
        request = {"command": "create", "path": f"{folder}/c{i}.md", "file_text": body(cell, folder), "fields": FIELDS,
                   "reason": "note"}
        run_cli("-C", str(env.repo.root), "--actor", AGENT, "tool", "--scope", SCOPE, input=json.dumps(request))
    return _by_path(env, folder, cells)


def mcp(env: Env, cells: Sequence[Cell]) -> set[int]:
    """``python -m memfs mcp --scope user:U5`` over stdio, through the official client: one server."""
    from anyio.from_thread import start_blocking_portal

    from tests.smoke.test_mcp import session

    folder = "doors/mcp"
    with start_blocking_portal() as portal, portal.wrap_async_context_manager(
        session(env.repo.root, "--scope", SCOPE)
    ) as client:
        for i, cell in enumerate(cells):
            request = {"path": f"{folder}/c{i}.md", "file_text": body(cell, folder), "fields": FIELDS, "reason": "note"}
            portal.call(client.call_tool, "memory_create", request)
    return _by_path(env, folder, cells)


def anthropic(env: Env, cells: Sequence[Cell]) -> set[int]:
    """The Anthropic SDK's memory tool (``memory_20250818``) backed by memfs: the model's create."""
    from anthropic.lib.tools import ToolError
    from anthropic.types.beta import BetaMemoryTool20250818CreateCommand

    from memfs.integrations.anthropic import MemfsMemoryTool

    folder = "doors/anthropic"
    tool = MemfsMemoryTool(env.repo, scope=SCOPE, actor=AGENT, source="conversation:C1#msg-1")
    for i, cell in enumerate(cells):
        command = BetaMemoryTool20250818CreateCommand(command="create", path=f"/memories/{folder}/c{i}.md",
                                                      file_text=body(cell, folder))
        with suppress(ToolError):
            tool.create(command)
    return _by_path(env, folder, cells)


def langgraph(env: Env, cells: Sequence[Cell]) -> set[int]:
    """LangGraph's ``BaseStore.put`` of an item holding the text, in the namespace (user, U5, doors)."""
    from memfs.integrations.langgraph import MemfsStore, _path

    store = MemfsStore(env.repo, actor=AGENT)
    namespace = ("doors", "langgraph")
    for i, cell in enumerate(cells):
        with suppress(MemfsError, ValueError):
            store.put(namespace, f"c{i}", {"note": cell.text})
    folder = _path(namespace, "c0").rsplit("/", 1)[0]
    return _by_path(env, folder, cells)


def watch(env: Env, cells: Sequence[Cell]) -> set[int]:
    """Saves under ``memfs watch`` (an agent's file tool or an editor), picked up in one batch."""
    folder = "doors/watch"
    rels = []
    for i, cell in enumerate(cells):
        rel = f"{folder}/c{i}.md"
        (env.repo.root / folder).mkdir(parents=True, exist_ok=True)
        (env.repo.root / rel).write_text(memory_text(body(cell, folder), **FIELDS), encoding="utf-8")
        rels.append(rel)
    env.repo.watcher(index=False, actor=AGENT).process(rels)
    got = _by_path(env, folder, cells)
    for rel in rels:  # a refused save stays on disk, as the editor left it; the next door starts clean
        if Path(rel).name not in env.in_head(folder):
            (env.repo.root / rel).unlink()
    return got


def import_(env: Env, cells: Sequence[Cell]) -> set[int]:
    """``memfs import markdown`` of a folder of plain notes, one per cell, applied by a person."""
    source, folder = env.scratch / "import", "doors/import"
    source.mkdir(parents=True, exist_ok=True)
    for i, cell in enumerate(cells):
        (source / f"c{i}.md").write_text(body(cell, folder), encoding="utf-8")
    with suppress(MemfsError):
        env.repo.import_("markdown", source, scope=SCOPE, prefix=folder, apply=True)
    return _by_path(env, folder, cells)


# --- doors that take every cell at once ------------------------------------------------------------
def hand_commit(env: Env, cells: Sequence[Cell]) -> set[int]:
    """A real ``git commit`` of one file per cell under the hooks ``memfs init`` installed: the
    pre-commit hook names every file it refuses."""
    root, folder = env.repo.root, "doors/hand"
    (root / folder).mkdir(parents=True, exist_ok=True)
    for i, cell in enumerate(cells):
        (root / folder / f"c{i}.md").write_text(memory_text(body(cell, folder), **FIELDS), encoding="utf-8")
    git(root, "add", "--", folder)
    environment = {k: v for k, v in os.environ.items() if k != "MEMFS_HOOKS"}
    done = subprocess.run(["git", *PERSON, "commit", "-qm", "notes by hand"], cwd=root, capture_output=True,
                          text=True, env=environment)
    if done.returncode == 0:
        return set(range(len(cells)))
    git(root, "reset", "-q", "--", folder)
    for i in range(len(cells)):
        (root / folder / f"c{i}.md").unlink()
    return {i for i in range(len(cells)) if f"{folder}/c{i}.md:" not in done.stderr}


def sync(env: Env, cells: Sequence[Cell]) -> set[int]:
    """``memfs sync`` from a remote where another clone committed one file per cell, each in a
    commit of its own (secrets in messages: ``tests/unit/test_entry_matrix.py``): the refusal
    lists every finding."""
    root = env.repo.root
    remote, other = env.scratch / "remote.git", env.scratch / "other"
    git(env.scratch, "init", "-q", "--bare", str(remote))
    git(root, "remote", "add", "doors", str(remote))
    git(root, "push", "-q", "doors", "HEAD:refs/heads/main")
    git(env.scratch, "clone", "-q", "-b", "main", str(remote), str(other))
    folder = "doors/sync"
    (other / folder).mkdir(parents=True, exist_ok=True)
    shas = []
    for i, cell in enumerate(cells):
        (other / folder / f"c{i}.txt").write_text(cell.text + "\n", encoding="utf-8")
        git(other, "add", "--", folder)
        git(other, *PERSON, "commit", "-qm", f"note {i}")
        shas.append(git(other, "rev-parse", "HEAD").strip())
    git(other, "push", "-q", "origin", "main")
    try:
        env.repo.sync(remote="doors", branch="main", push=False)
    except SyncRefused as exc:
        named = "\n".join(exc.problems)
        return {i for i in range(len(cells)) if f"{folder}/c{i}.txt:" not in named}
    finally:
        git(root, "remote", "remove", "doors")
    return _by_path(env, folder, cells, ".txt")


DOORS: dict[str, Callable[[Env, Sequence[Cell]], set[int]]] = {
    "cli add": _cli_verb("add"), "cli write": _cli_verb("write"), "cli new": _cli_verb("new"),
    "cli remember": _cli_verb("remember"), "memfs tool": tool, "mcp (stdio)": mcp, "anthropic adapter": anthropic,
    "langgraph put": langgraph, "memfs watch": watch, "hand commit (hooks)": hand_commit, "memfs import": import_,
    "memfs sync": sync,
}


@contextmanager
def environment(scratch: Path) -> Iterator[Env]:
    """A repository made by ``memfs init`` (so with its hooks), a person's identity for hand commits."""
    repo = MemoryRepo.init(scratch / "repo", actor="user:ana")
    git(repo.root, "config", "user.name", "Ana")
    git(repo.root, "config", "user.email", "ana@example.invalid")
    yield Env(repo, scratch)


def offer(env: Env, door: str, cells: Sequence[Cell]) -> list[tuple[Cell, bool]]:
    """Each cell with whether it got in through ``door``."""
    got = DOORS[door](env, cells)
    return [(cell, i in got) for i, cell in enumerate(cells)]
