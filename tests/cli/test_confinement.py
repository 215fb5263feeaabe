"""Confinement holds at every door: matrices of doors x hostile layouts.

A path is judged by what it *is*, not how it is spelled (:mod:`memfs.store.paths`): every door
that takes a path refuses one that goes through a symlink, resolves into ``.git/`` or out of the
root, or names something that is not a plain file (a FIFO, ``/dev/zero``) or is too big to read;
every door that reads the whole repository skips such entries (and says so where it lists
problems) without hanging and without reading what lies behind them. Each cell checks the door's
answer, that the secret text behind the layout never comes out, that nothing was committed and
that no file in the tree, in ``.git/`` or outside the root changed.

Each door runs in a worker thread with a generous timeout: a safety net that fails the cell (and
unblocks a FIFO reader) if a door hangs, never a timing assertion.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import anyio
import pytest

from memfs import MemoryRepo
from memfs.agents.tools import ToolContext
from memfs.store.paths import MAX_READ_BYTES
from tests.guard_matrix import head_of
from tests.helpers import FACT, TIMEOUT, Prepared, cli, commit_all, memory_text, options

#: Text behind every hostile layout: no door may ever print it.
SECRET = "zebrasecret"
#: The memory every repository starts with: doors that edit a file edit it, listings find it.
KNOWN = "facts/known.md"


@dataclass(frozen=True)
class Said:
    """What a door answered: whether it did what was asked, and all it said."""

    ok: bool
    text: str


Door = Callable[[MemoryRepo, str], Said]


# --- the doors ------------------------------------------------------------------------------
def _cli(*args: str, allowed: tuple[int, ...] = (0,)) -> Door:
    def run(repo: MemoryRepo, path: str) -> Said:
        done = cli(repo, *(path if arg == "PATH" else arg for arg in args))
        return Said(done.returncode in allowed, done.stdout + done.stderr)

    return run


def _filled(value: object, path: str) -> object:
    """``value`` with every ``"PATH"`` in it (in lists and objects too) replaced by ``path``."""
    if value == "PATH":
        return path
    if isinstance(value, dict):
        return {k: _filled(v, path) for k, v in value.items()}
    if isinstance(value, list):
        return [_filled(v, path) for v in value]
    return value


def _tool(command: str, **request: object) -> Door:
    def run(repo: MemoryRepo, path: str) -> Said:
        filled = _filled(request, path)
        assert isinstance(filled, dict)
        result = repo.tool({"command": command, **filled}, ToolContext(actor="agent:x", scope="user:U5"))
        return Said(result.ok, result.output)

    return run


def _mcp(tool: str, **arguments: object) -> Door:
    def run(repo: MemoryRepo, path: str) -> Said:
        from mcp.server.mcpserver.exceptions import ToolError

        from memfs.mcp_server import build_server

        server = build_server(repo.session("user:U5", actor="agent:x"))
        filled = _filled(arguments, path)
        assert isinstance(filled, dict)
        try:
            result = anyio.run(server.call_tool, tool, filled)
        except ToolError as exc:
            return Said(False, str(exc))
        content = getattr(result, "content", [])
        structured = getattr(result, "structured_content", None)
        text = "\n".join(getattr(c, "text", "") for c in content) + json.dumps(structured, ensure_ascii=False)
        return Said(not getattr(result, "is_error", False), text)

    return run


FIELDS = options(FACT)
#: Doors that act on the one path they are given: each must refuse it.
ON_THE_PATH: dict[str, Door] = {
    "cli write": _cli("write", "PATH", *FIELDS, "--body", "pwned"),
    "cli add": _cli("add", "PATH", *FIELDS, "--body", "pwned"),
    "cli new": _cli("new", "fact", "PATH", "--scope", "user:U5", "--source", "s", "--body", "pwned"),
    "cli remember --path": _cli("remember", "--path", "PATH", *FIELDS, "--body", "pwned fact"),
    "cli rm": _cli("rm", "PATH"),
    "cli show": _cli("show", "PATH"),
    "tool view": _tool("view", path="PATH"),
    "tool create": _tool("create", path="PATH", file_text="pwned", overwrite=True),
    "tool str_replace": _tool("str_replace", path="PATH", old_str="---", new_str="--- "),
    "tool insert": _tool("insert", path="PATH", insert_line=0, insert_text="pwned"),
    "tool delete": _tool("delete", path="PATH"),
    "tool rename from": _tool("rename", old_path="PATH", new_path="facts/stolen.md"),
    "tool rename to": _tool("rename", old_path=KNOWN, new_path="PATH"),
    "tool update_description": _tool("update_description", path="PATH", description="pwned"),
    "mcp memory_view": _mcp("memory_view", path="PATH"),
    "mcp memory_create": _mcp("memory_create", path="PATH", file_text="pwned", overwrite=True),
    "mcp memory_str_replace": _mcp("memory_str_replace", path="PATH", old_str="---", new_str="--- "),
    "mcp memory_insert": _mcp("memory_insert", path="PATH", insert_line=0, insert_text="pwned"),
    "mcp memory_delete": _mcp("memory_delete", path="PATH"),
    "mcp memory_rename": _mcp("memory_rename", old_path=KNOWN, new_path="PATH"),
    "mcp memory_update_description": _mcp("memory_update_description", path="PATH", description="pwned"),
}
#: Doors that read every memory: each must skip the hostile entry and still answer.
OVER_EVERYTHING: dict[str, Door] = {
    "cli ls": _cli("ls", "-a"),
    "cli validate": _cli("validate", allowed=(0, 1)),
    "cli search": _cli("search", "zebra"),
    "cli search --scope": _cli("search", "zebra", "--scope", "user:U5"),
    "cli context": _cli("context", "zebra", "--scope", "user:U5"),
    "cli reindex": _cli("reindex"),
    "tool view listing": _tool("view", path="/memories"),
    "mcp memory_view listing": _mcp("memory_view", path="/memories"),
    "mcp memory_search": _mcp("memory_search", query="zebra"),
    "mcp memory_context": _mcp("memory_context", task="zebra"),
}
#: Which listing doors name a skipped entry, by kind: unreadable files, symlinked folders.
REPORTS: dict[str, set[str]] = {
    "cli ls": {"file", "folder"},
    "cli validate": {"file", "folder"},
    "cli search": {"file"},
    "cli reindex": {"file"},
    "tool view listing": {"file"},
}
#: ``--scope`` and the MCP doors run bound to user:U5: an entry memfs cannot read has no scope it can check, so a
#: bound session is not told of it (it might be another scope's); it is skipped all the same.


# --- the hostile layouts ----------------------------------------------------------------------
@dataclass(frozen=True)
class Layout:
    """A hostile arrangement of the tree, the path doors are given, and what a refusal says.
    ``entry`` is what the layout puts inside the root (listings skip it), with its kind."""

    build: Callable[[MemoryRepo, Path], None]
    path: Callable[[Path], str]
    says: str
    entry: tuple[str, str] | None = None


def _secret_file(where: Path) -> None:
    where.parent.mkdir(parents=True, exist_ok=True)
    where.write_text(memory_text(f"{SECRET} zebra\n", id="leak", description=SECRET))


def _link_to_git(repo: MemoryRepo, outside: Path) -> None:
    _secret_file(repo.root / ".git/leak.md")
    os.symlink(".git", repo.root / "g")


def _link_out(repo: MemoryRepo, outside: Path) -> None:
    _secret_file(outside / "leak.md")
    os.symlink(outside, repo.root / "out")


def _linked_file(repo: MemoryRepo, outside: Path) -> None:
    _secret_file(outside / "leak.md")
    os.symlink(outside / "leak.md", repo.root / "facts/link.md")


def _hard_link(repo: MemoryRepo, outside: Path) -> None:
    _secret_file(outside / "leak.md")
    os.link(outside / "leak.md", repo.root / "facts/hard.md")


def _dev_zero(repo: MemoryRepo, outside: Path) -> None:
    os.symlink("/dev/zero", repo.root / "facts/zero.md")


def _fifo(repo: MemoryRepo, outside: Path) -> None:
    os.mkfifo(repo.root / "facts/fifo.md")


def _oversize(repo: MemoryRepo, outside: Path) -> None:
    text = memory_text(f"{SECRET} zebra\n", id="big", description=SECRET)
    (repo.root / "facts/big.md").write_text(text + "x" * (MAX_READ_BYTES + 1 - len(text)))


#: A file name with a byte that is not UTF-8 (as Python shows it: a lone surrogate), and as memfs reports it.
NOT_UTF8 = os.fsdecode(b"facts/b\xffd.md")
NOT_UTF8_SHOWN = "facts/b\\xffd.md"


def _not_utf8(repo: MemoryRepo, outside: Path) -> None:
    _secret_file(repo.root / NOT_UTF8)


#: A folder that folds (NFKC, case) to ``system``: not core memory, and never recalled as if it were.
LOOK_ALIKE = "\uff33\uff39\uff33\uff34\uff25\uff2d/leak.md"


def _look_alike(repo: MemoryRepo, outside: Path) -> None:
    _secret_file(repo.root / LOOK_ALIKE)


def _beside_root(repo: MemoryRepo, outside: Path) -> None:
    _secret_file(repo.root.parent / "leak.md")


LAYOUTS: dict[str, Layout] = {
    "symlinked folder to .git": Layout(_link_to_git, lambda o: "g/leak.md", "symlink", ("g", "folder")),
    "symlinked folder out of the root": Layout(_link_out, lambda o: "out/leak.md", "symlink", ("out", "folder")),
    "symlinked memory file": Layout(_linked_file, lambda o: "facts/link.md", "symlink", ("facts/link.md", "file")),
    "hard link out of the root": Layout(_hard_link, lambda o: "facts/hard.md", "hard link", ("facts/hard.md", "file")),
    "symlink to /dev/zero": Layout(_dev_zero, lambda o: "facts/zero.md", "symlink", ("facts/zero.md", "file")),
    "FIFO": Layout(_fifo, lambda o: "facts/fifo.md", "FIFO", ("facts/fifo.md", "file")),
    "oversize file": Layout(_oversize, lambda o: "facts/big.md", "limit", ("facts/big.md", "file")),
    "name not UTF-8": Layout(_not_utf8, lambda o: NOT_UTF8, "valid", (NOT_UTF8_SHOWN, "file")),
    "folder named like system/": Layout(_look_alike, lambda o: LOOK_ALIKE, "reserved name", (LOOK_ALIKE, "file")),
    "dot-dot path": Layout(_beside_root, lambda o: "../leak.md", "outside"),
    "absolute path": Layout(_link_out, lambda o: str(o / "leak.md"), "outside"),
}


# --- running a door safely, and what must not change -------------------------------------------
def _known(repo: MemoryRepo) -> None:
    (repo.root / "facts").mkdir()
    (repo.root / KNOWN).write_text(memory_text("B17 shipped, zebra crossing.\n", id="known"))
    commit_all(repo.root, "a known memory")


@pytest.fixture
def base(prepared: Prepared, tmp_path: Path) -> MemoryRepo:
    """A repository with one committed memory, and an empty folder outside it."""
    (tmp_path / "outside").mkdir()
    return prepared("confinement", _known)


def _fingerprint(path: Path) -> str:
    st = os.lstat(path)
    if stat.S_ISLNK(st.st_mode):
        return "link " + os.readlink(path)
    if stat.S_ISREG(st.st_mode):
        with open(path, "rb") as handle:
            return "file " + hashlib.sha256(handle.read()).hexdigest()
    return f"mode {stat.S_IFMT(st.st_mode):o}"


def snapshot(repo: MemoryRepo, tmp_path: Path) -> dict[str, str]:
    """Every entry under ``tmp_path`` (the root, its parent, the outside folder) by what it is,
    without following links or opening FIFOs; in ``.git/`` only Markdown files and the hooks
    (memfs itself keeps its lock and git its index there). Paths are joined as strings: two
    snapshots around each of ~460 cells walk every file of ``.git``."""
    found: dict[str, str] = {}
    top, cache, git_dir = str(tmp_path), str(repo.store.cache_dir), str(repo.root / ".git")
    for folder, dirs, files in os.walk(top):
        if folder == cache:
            dirs[:] = []
            continue
        in_git = folder == git_dir or folder.startswith(git_dir + os.sep)
        prefix = folder[len(top) + 1 :].replace(os.sep, "/")
        for name in [*files, *(d for d in dirs if os.path.islink(os.path.join(folder, d)))]:
            rel = f"{prefix}/{name}" if prefix else name
            inside = in_git or os.path.join(folder, name) == git_dir
            if not inside or name.endswith(".md") or "/hooks/" in rel:
                found[rel] = _fingerprint(Path(folder, name))
    return found


def _unblock_fifos(repo: MemoryRepo) -> None:
    for path in repo.root.rglob("*.md"):
        if stat.S_ISFIFO(os.lstat(path).st_mode):
            fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
            os.close(fd)


def guarded(door: Door, repo: MemoryRepo, path: str) -> Said:
    """``door(repo, path)`` in a worker thread; fails the test if it does not finish in time."""
    answer: list[Said] = []
    failure: list[BaseException] = []

    def work() -> None:
        try:
            answer.append(door(repo, path))
        except BaseException as exc:
            failure.append(exc)

    worker = threading.Thread(target=work, daemon=True)
    worker.start()
    worker.join(TIMEOUT)
    if worker.is_alive():
        _unblock_fifos(repo)
        worker.join(TIMEOUT)
        pytest.fail(f"the door did not answer within {TIMEOUT} s (it hung on {path or 'the whole repository'})")
    if failure:
        raise failure[0]
    return answer[0]


# --- the matrices -----------------------------------------------------------------------------
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("door", ON_THE_PATH)
def test_every_door_refuses_a_hostile_path(base: MemoryRepo, tmp_path: Path, door: str, layout: str) -> None:
    case = LAYOUTS[layout]
    case.build(base, tmp_path / "outside")
    head, before = head_of(base), snapshot(base, tmp_path)
    said = guarded(ON_THE_PATH[door], base, case.path(tmp_path / "outside"))
    assert not said.ok, said.text
    assert case.says.lower() in said.text.lower(), said.text
    assert SECRET not in said.text
    assert str(base.root) not in said.text, said.text  # no host paths
    assert head_of(base) == head
    assert snapshot(base, tmp_path) == before


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("door", OVER_EVERYTHING)
def test_every_listing_skips_a_hostile_entry(base: MemoryRepo, tmp_path: Path, door: str, layout: str) -> None:
    case = LAYOUTS[layout]
    case.build(base, tmp_path / "outside")
    head, before = head_of(base), snapshot(base, tmp_path)
    said = guarded(OVER_EVERYTHING[door], base, "")
    assert said.ok, said.text
    assert SECRET not in said.text
    assert str(base.root) not in said.text, said.text  # no host paths
    if case.entry is not None and case.entry[1] in REPORTS.get(door, set()):
        assert case.entry[0] in said.text, said.text
    if door not in ("cli validate", "cli reindex"):
        assert KNOWN in said.text or "zebra crossing" in said.text, said.text
    assert head_of(base) == head
    assert snapshot(base, tmp_path) == before


def test_the_matrices_cover_every_door_and_layout() -> None:
    assert len(ON_THE_PATH) * len(LAYOUTS) >= 160
    assert len(OVER_EVERYTHING) * len(LAYOUTS) >= 60


@pytest.mark.parametrize("layout", [name for name, case in LAYOUTS.items() if case.entry])
def test_validate_names_the_entry_when_a_hook_passes_it(base: MemoryRepo, tmp_path: Path, layout: str) -> None:
    """``memfs validate FILE`` (a pre-commit hook) reports what the path is instead of skipping it."""
    case = LAYOUTS[layout]
    case.build(base, tmp_path / "outside")
    done = guarded(_cli("validate", "PATH", allowed=(1,)), base, case.path(tmp_path / "outside"))
    assert done.ok and case.says.lower() in done.text.lower(), done.text
    assert SECRET not in done.text


# --- depends_on ---------------------------------------------------------------------------------
def _hostile_targets(repo: MemoryRepo, outside: Path) -> None:
    _link_to_git(repo, outside)
    _link_out(repo, outside)
    _linked_file(repo, outside)
    _beside_root(repo, outside)


#: depends_on entries that land in .git/, .memfs/ or outside the root, however they are spelled.
DEPENDENCIES: dict[str, Callable[[Path], str]] = {
    ".git/config": lambda o: ".git/config",
    ".git/leak.md": lambda o: ".git/leak.md",
    ".memfs/state.json": lambda o: ".memfs/state.json",
    "through a symlink to .git": lambda o: "g/leak.md",
    "through a symlink out of the root": lambda o: "out/leak.md",
    "a symlinked memory file": lambda o: "facts/link.md",
    "dot-dot": lambda o: "../leak.md",
    "absolute": lambda o: str(o / "leak.md"),
}
NEW = "facts/derived.md"


def _set_dependency(command: str) -> Door:
    """A door that gives the known memory's text a frontmatter block of the model's own that
    depends on the given path (the text a file tool shows of it is its body)."""
    line = "depends_on: ['{dep}']\n"

    def run(repo: MemoryRepo, dep: str) -> Said:
        text = line.format(dep=dep.replace("'", "''"))
        if command == "str_replace":
            body = "B17 shipped, zebra crossing.\n"
            request = {"command": command, "path": KNOWN, "old_str": body, "new_str": f"---\n{text}---\n{body}"}
        else:
            request = {"command": command, "path": KNOWN, "insert_line": 0, "insert_text": f"---\n{text}---"}
        result = repo.tool(request, ToolContext(actor="agent:x"))
        return Said(result.ok, result.output)

    return run


def _library_write(repo: MemoryRepo, dep: str) -> Said:
    from memfs.errors import MemfsError

    try:
        repo.write(NEW, fields={**FACT, "depends_on": [dep]}, body="derived")
    except MemfsError as exc:
        return Said(False, str(exc))
    return Said(True, "")


WITH_DEPENDENCY: dict[str, Door] = {
    "cli write": _cli("write", NEW, *FIELDS, "--depends-on", "PATH", "--body", "derived"),
    "cli add": _cli("add", NEW, *FIELDS, "--depends-on", "PATH", "--body", "derived"),
    "cli new": _cli("new", "fact", NEW, "--scope", "user:U5", "--source", "s", "--depends-on", "PATH"),
    "cli remember": _cli("remember", "--path", NEW, *FIELDS, "--depends-on", "PATH", "--body", "derived fact"),
    "library write": _library_write,
    "tool create": _tool("create", path=NEW, file_text="derived", fields={**FACT, "depends_on": ["PATH"]}),
    "tool str_replace": _set_dependency("str_replace"),
    "tool insert": _set_dependency("insert"),
    "mcp memory_create": _mcp("memory_create", path=NEW, file_text="derived", fields={**FACT, "depends_on": ["PATH"]}),
    "mcp memory_remember": _mcp(
        "memory_remember", scope="user:U5", body="derived fact", source="s", type="fact", depends_on=["PATH"]
    ),
}


@pytest.mark.parametrize("dependency", DEPENDENCIES)
@pytest.mark.parametrize("door", WITH_DEPENDENCY)
def test_every_door_refuses_a_dependency_outside_the_memories(
    base: MemoryRepo, tmp_path: Path, door: str, dependency: str
) -> None:
    _hostile_targets(base, tmp_path / "outside")
    head, before = head_of(base), snapshot(base, tmp_path)
    said = guarded(WITH_DEPENDENCY[door], base, DEPENDENCIES[dependency](tmp_path / "outside"))
    assert not said.ok, said.text
    assert "depends_on" in said.text, said.text
    assert head_of(base) == head
    assert snapshot(base, tmp_path) == before


@pytest.mark.parametrize("dependency", DEPENDENCIES)
def test_validate_reports_a_committed_dependency_outside_the_memories(
    base: MemoryRepo, tmp_path: Path, dependency: str
) -> None:
    _hostile_targets(base, tmp_path / "outside")
    dep = DEPENDENCIES[dependency](tmp_path / "outside")
    (base.root / NEW).write_text(memory_text("derived\n", id="derived", depends_on=[dep]))
    done = guarded(_cli("validate", "--json", allowed=(1,)), base, "")
    assert done.ok, done.text
    found = [p for p in json.loads(done.text)["problems"] if p["path"] == NEW and p["field"] == "depends_on"]
    assert len(found) == 1 and found[0]["severity"] == "error", found


# --- what validate rejects is never recalled -----------------------------------------------------
#: Memories ``memfs validate`` rejects though every eligibility field reads well: each is refused by
#: the same rule (``memfs.format.validate.rejected``) at every door that recalls.
REJECTED: dict[str, str] = {
    "confidence 7": "confidence: 7",
    "confidence NaN": "confidence: .nan",
    "malformed invalidated_by": "invalidated_by: facts/known.md",
    "tags not a list of strings": "tags: [1, 2]",
}
RECALLING: dict[str, Door] = {name: OVER_EVERYTHING[name] for name in (
    "cli search", "cli search --scope", "cli context", "mcp memory_search", "mcp memory_context")}


@pytest.mark.parametrize("case", REJECTED)
@pytest.mark.parametrize("door", [*RECALLING, "cli validate"])
def test_what_validate_rejects_is_never_recalled(base: MemoryRepo, door: str, case: str) -> None:
    text = memory_text(f"{SECRET} zebra\n", id="bad").replace("---\n", f"---\n{REJECTED[case]}\n", 1)
    (base.root / "facts/bad.md").write_text(text)
    commit_all(base.root, "a memory validate rejects")
    if door == "cli validate":
        said = guarded(_cli("validate", "facts/bad.md", allowed=(1,)), base, "")
        assert said.ok and "facts/bad.md" in said.text, said.text
        return
    said = guarded(RECALLING[door], base, "")
    assert said.ok, said.text
    assert SECRET not in said.text
    assert str(base.root) not in said.text, said.text  # no host paths
    assert "zebra crossing" in said.text or KNOWN in said.text, said.text
