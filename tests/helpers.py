"""Shared factories for tests: plain git, repositories and remotes, memory files and fields, and
the CLI in-process or in a real process. Tests import from here; ``conftest.py`` only holds
fixtures (the prepared repositories built from these factories)."""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import shutil
import stat
import subprocess
import sys
import textwrap
import time
import traceback
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from memfs import MemoryRepo
from memfs.index.reader import Handle, handle
from memfs.index.results import SearchResult
from memfs.policy.candidate import Candidate, from_mapping
from memfs.policy.transcript import SummaryRecord
from memfs.store.repo import CommitResult

ACTOR = "user:U5"
Build = Callable[[MemoryRepo], object]
#: The ``prepared`` fixture: ``prepared(name, build)`` -> a copy of the repository ``build`` made.
Prepared = Callable[[str, Build], MemoryRepo]
#: The ``clone`` fixture: ``clone(name)`` -> a clone of the ``remote`` fixture acting as ``agent:NAME``.
Clone = Callable[[str], MemoryRepo]
#: The checkout: pyproject.toml, memfs/, README.md.
PROJECT = Path(__file__).resolve().parents[1]

#: The fields a minimal valid memory needs: a fact of user U5 from a conversation.
FACT: dict[str, Any] = {"type": "fact", "scope": "user:U5", "source": "conversation:C1"}
#: The release-notes preference of the issue's scenario, as the user stated it.
PREFERENCE: dict[str, Any] = {
    "type": "preference",
    "scope": "user:U5/project:P8",
    "key": "release_note_language",
    "source": "conversation:C1#msg-12",
    "source_kind": "user",
}
#: How long to wait for something another thread or process does (generous: CI machines are slow).
TIMEOUT = 30.0
#: A note with :data:`FACT`'s scope and source.
NOTE: dict[str, Any] = {**FACT, "type": "note"}
#: Where ``remember`` keeps :data:`PREFERENCE` (a file per subject, named after its key).
PREFERENCE_PATH = "prefs/release-note-language--user-u5-project-p8-f32854.md"
#: The frontmatter of a valid fact with id ``{id}``, as text: add hand-written (invalid) lines to it.
VALID = "id: {id}\ntype: fact\nscope: user:U5\nsource: tool:ci\nstatus: active\n"
#: ``created`` of memory files written directly (:func:`put`): fixed, so freshness is too.
T0 = "2026-01-01T00:00:00Z"
_TIMES = ("created", "updated", "expires")


# --- git ------------------------------------------------------------------------------------
def git(cwd: Path, *args: str) -> str:
    """Plain git, as a user or another tool would run it."""
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


def count_git_commands(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """From now on in this test, how many git processes memfs starts, by command (``status``,
    ``add``...): what a change that saves git work pins."""
    from memfs.store import gitcli

    started: Counter[str] = Counter()
    real = gitcli.process.run

    def counting(cwd: Path, *args: str, **kwargs: Any) -> Any:
        started[next(a for a in args if not a.startswith("-"))] += 1
        return real(cwd, *args, **kwargs)

    monkeypatch.setattr(gitcli.process, "run", counting)
    return started


def set_identity(path: Path) -> None:
    git(path, "config", "user.name", "Test Person")
    git(path, "config", "user.email", "person@example.invalid")


#: ``git *PERSON commit ...``: a person's identity for one command (clones have none configured).
PERSON = ("-c", "user.name=Test Person", "-c", "user.email=person@example.invalid")


def commit_all(root: Path, message: str) -> None:
    """Stage everything and commit it as a person would."""
    git(root, "add", "-A")
    git(root, *PERSON, "commit", "-qm", message)


def commit_count(repo: MemoryRepo) -> int:
    return int(git(repo.root, "rev-list", "--count", "HEAD"))


def subjects(root: Path) -> list[str]:
    """Commit subjects, newest first."""
    return git(root, "log", "--format=%s").splitlines()


def all_object_texts(root: Path) -> str:
    """Every reachable object (rev-list --all --objects) and every object at all (batch-all-objects)."""
    names = [line.split()[0] for line in git(root, "rev-list", "--all", "--objects").splitlines()]
    reachable = [subprocess.run(["git", "cat-file", "-p", n], cwd=root, capture_output=True).stdout for n in names]
    everything = subprocess.run(
        ["git", "cat-file", "--batch-all-objects", "--batch"], cwd=root, capture_output=True
    ).stdout
    return b"\n".join([*reachable, everything]).decode("utf-8", "replace")


def wait_for(condition: Callable[[], bool], timeout: float = TIMEOUT) -> bool:
    """Poll ``condition`` until it holds or ``timeout`` seconds passed; its last value."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return condition()


# --- repositories and remotes ---------------------------------------------------------------
def new_repo(path: Path, actor: str = ACTOR) -> MemoryRepo:
    """A fresh memory repository (its own git repo) with a per-repo identity for plain git."""
    mem = MemoryRepo.init(path, actor=actor)
    set_identity(mem.root)
    return mem


def isolate(monkeypatch: pytest.MonkeyPatch, home: Path) -> None:
    """Git and memfs isolated from the machine's and the user's config, with ``home`` as HOME and a
    fixed actor (every test, through ``conftest.isolated_git``; session fixtures that build repositories)."""
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(home / "gitconfig"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("MEMFS_ACTOR", ACTOR)
    monkeypatch.delenv("MEMFS_CONFIG", raising=False)
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    # memfs's hooks (installed by init) would start Python twice per hand commit; the tests of
    # the hooks themselves (tests/cli/test_hooks.py) run them
    monkeypatch.setenv("MEMFS_HOOKS", "skip")
    # no flush to disk per write (tens of thousands in a run, each a wait for the disk); a write
    # is still atomic and survives a killed process, which is what the crash tests kill;
    # tests/integration/test_repo.py checks the flushes are made without it
    monkeypatch.setenv("MEMFS_FSYNC", "0")


def copy_repo(source: Path, dest: Path) -> Path:
    """A copy of a prepared repository (work tree, ``.git`` and the ``.memfs`` cache)."""
    shutil.copytree(source, dest, symlinks=True)
    return dest


def bare_repo(path: Path, branch: str | None = "main") -> Path:
    """An empty bare repository (a remote), its HEAD on ``branch``."""
    initial = [f"--initial-branch={branch}"] if branch else []
    subprocess.run(["git", "init", "-q", "--bare", *initial, str(path)], check=True)
    return path


def clone_repo(url: str, path: Path, actor: str, merge_driver: bool = True) -> MemoryRepo:
    """``git clone URL PATH`` opened as ``actor``, with memfs's merge driver configured (as
    ``memfs install-merge-driver`` would) unless ``merge_driver`` is false."""
    from memfs.store.init import configure_merge_driver

    git(path.parent, "clone", "-q", url, str(path))
    repo = MemoryRepo.open(path, actor=actor)
    if merge_driver:
        configure_merge_driver(repo.store.git)
    return repo


def race_pushes(a: MemoryRepo, b: MemoryRepo, times: int) -> None:
    """Before each of a's next ``times`` pushes, b pushes a new commit first."""
    counter = a.root.parent / "races"
    counter.write_text("0")
    script = a.root.parent / "race.sh"
    script.write_text(
        f'n=$(cat "{counter}"); if [ "$n" -lt {times} ]; then echo $((n+1)) > "{counter}"; '
        f'git -C "{b.root}" commit -q --allow-empty -m "race $n" && git -C "{b.root}" push -q origin main; fi\n')
    hook = a.store.git.git_dir / "hooks" / "pre-push"
    hook.write_text(f'#!/bin/sh\n. "{script}"\n')
    hook.chmod(hook.stat().st_mode | stat.S_IEXEC)
    git(b.root, "config", "user.name", "b")
    git(b.root, "config", "user.email", "b@example.invalid")


def remote_head(remote: Path) -> str:
    return git(remote, "rev-parse", "main").strip()


# --- memory files and fields ----------------------------------------------------------------
def memory_text(body: str = "text\n", **fields: Any) -> str:
    """A memory file's text: the given fields over :data:`FACT` with ``status: active`` (``None``
    leaves one out), then ``body`` (a final newline added if missing). ``created``, ``updated``
    and ``expires`` may be ISO 8601 strings; they are written as times."""
    from memfs.format import yamlio
    from memfs.format.model import FIELDS

    meta: dict[str, Any] = {**FACT, "status": "active"}
    meta.update(fields)
    for name in _TIMES:
        if isinstance(meta.get(name), str):
            meta[name] = dt.datetime.fromisoformat(meta[name])
    if not body.endswith("\n"):
        body += "\n"
    return f"---\n{yamlio.render(meta, FIELDS)}---\n{body}"


def raw_memory(frontmatter: str, body: str = "body\n") -> str:
    """A memory file with ``frontmatter`` as written, not rendered (it may be invalid YAML)."""
    return f"---\n{frontmatter}---\n{body}"


def base_doc(body: str = "para one\n\npara two\n", **fields: Any) -> bytes:
    """``facts/a.md`` at revision 3, the common base of the merge tests, with ``fields`` changed."""
    base = {
        "id": "a",
        "revision": 3,
        "created": "2026-09-20T10:00:00Z",
        "updated": "2026-09-20T10:00:00Z",
        "description": "the base",
        "tags": ["x"],
    }
    return memory_text(body, **{**base, **fields}).encode()


def write_file(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8"))
    return path


def put(where: MemoryRepo | Path, rel: str, body: str = "text\n", **fields: Any) -> Path:
    """Write a memory file directly, as an editor or another tool would (no commit):
    :func:`memory_text` with an id made from the path and ``created`` at :data:`T0`."""
    root = where.root if isinstance(where, MemoryRepo) else where
    defaults = {"id": rel[:-3].replace("/", "-"), "created": T0}
    return write_file(root / rel, memory_text(body, **{**defaults, **fields}))


def add(repo: MemoryRepo, path: str, *depends_on: str, body: str | None = None, **fields: Any) -> CommitResult:
    """Write one memory through the library (one commit): a fact of user U5 sourced
    ``test:PATH`` (each memory its own source), derived from ``depends_on``, whose body is its
    path unless ``body`` is given; ``fields`` add to or override all of that. The test person
    forces it, so a fixture may start a memory in any status."""
    meta: dict[str, Any] = {**FACT, "source": f"test:{path}"}
    if depends_on:
        meta["depends_on"] = list(depends_on)
    meta.update(fields)
    return repo.write(path, fields=meta, body=f"{path}\n" if body is None else body, force=True)


CONTEXT_FACTS = {
    "facts/b17.md": "B17 shipped on Monday after two test rounds.",
    "facts/b18.md": "B18 is pending review by the release team.",
    "facts/b19.md": "B19 release notes are written in Chinese.",
}


def build_filled(repo: MemoryRepo) -> None:
    """The ``filled`` repository (conftest): three facts of user U5, one of user U6, and a
    read-only rule under system/; also the base of other prepared repositories."""
    for path, body in CONTEXT_FACTS.items():
        add(repo, path, body=body, **FACT)
    add(repo, "facts/other-user.md", body="B17 shipped, says another user.", **{**FACT, "scope": "user:U6"})
    add(repo, "system/rules.md", body="Always answer briefly.", **{**FACT, "type": "note", "read_only": True})


def candidate(
    body: str = "Write P8 release notes in English from now on.", source: str = PREFERENCE["source"], **fields: Any
) -> Candidate:
    """A candidate for the write gate and ``remember``: the user restating :data:`PREFERENCE`."""
    return from_mapping({**PREFERENCE, "body": body, "source": source, **fields})


def user_memories(repo: MemoryRepo) -> list[str]:
    """Memory files other than the ones ``memfs init`` creates under system/."""
    return [p for p in repo.store.memory_paths() if not p.startswith("system/")]


def segmented(repo: MemoryRepo) -> Handle:
    """The open index of ``repo``, checked to have several segments and deleted documents (what
    the posting readers' tests need to exercise offsets and deletions)."""
    found = handle(repo.store)
    leaves = found.stats.reader.leaf_readers()
    assert len(leaves) > 1 and any(leaf.has_deletions() for leaf, _offset in leaves)
    return found


def hit_paths(result: SearchResult) -> list[str]:
    return [h.path for h in result.hits]


def options(fields: Mapping[str, Any]) -> list[str]:
    """The CLI options that set ``fields``: ``{"source_kind": "user"}`` -> ``--source-kind user``."""
    return [item for name, value in fields.items() for item in (f"--{name.replace('_', '-')}", str(value))]


class Clock:
    """What memfs reads as the time now (``memfs.format.model.utcnow``: ``created``, ``updated``,
    the usage and refusal stamps) while a test holds it through the ``clock`` fixture: ``now``,
    which only the test moves."""

    #: Where the ``clock`` fixture starts: a fixed instant, nothing to do with the wall clock.
    START = dt.datetime(2026, 9, 20, 10, 0, 0, tzinfo=dt.UTC)

    def __init__(self, now: dt.datetime = START) -> None:
        self.now = now

    def __call__(self) -> dt.datetime:
        return self.now.astimezone(dt.UTC).replace(microsecond=0)

    def at(self, seconds: int) -> None:
        """Set the clock ``seconds`` after :attr:`START`."""
        self.now = self.START + dt.timedelta(seconds=seconds)


def branch_and_merge(
    repo: MemoryRepo,
    ours: dict[str, Any],
    theirs: dict[str, Any],
    *,
    clock: Clock | None = None,
    seconds: tuple[int, int, int] = (0, 0, 0),
) -> str:
    """Write ``facts/a.md``, then commit ``theirs`` (``repo.write`` arguments) on a side branch
    and ``ours`` on main, and ``git merge`` side into main; git's output. With a ``clock``, the
    three writes (base, theirs, ours) happen ``seconds`` after :attr:`Clock.START` each, whatever
    the wall clock says (``updated`` has whole seconds: git's text merge sees it change)."""
    tick = clock.at if clock is not None else (lambda seconds: None)
    tick(seconds[0])
    repo.write("facts/a.md", fields={**FACT, "tags": ["x"]}, body="para one\n\npara two\n")
    git(repo.root, "checkout", "-q", "-b", "side")
    tick(seconds[1])
    repo.write("facts/a.md", **theirs, force=True)
    git(repo.root, "checkout", "-q", "main")
    tick(seconds[2])
    repo.write("facts/a.md", **ours, force=True)
    proc = subprocess.run(["git", "merge", "--no-edit", "side"], cwd=repo.root, capture_output=True, text=True)
    return proc.stdout + proc.stderr


def first_summary() -> SummaryRecord:
    """Version 1 of thread T1's summary record: a goal, three messages, a constraint, a question."""
    from memfs.policy.transcript import next_summary

    return next_summary(
        None,
        thread_id="T1",
        goal="Ship B17",
        covered_until_message_id="m3",
        source_message_ids=["m1", "m2", "m3"],
        confirmed_constraints=["answer in Chinese"],
        new_questions=["who signs off?"],
    )


# --- a process killed half way through a write ------------------------------------------------
_CRASH_SCRIPT = """
import sys
from memfs import MemoryRepo
repo = MemoryRepo.open(sys.argv[1])
fields = {"type": "fact", "scope": "user:U5", "source": "tool:ci"}
with repo.store.transaction("import", reason="two files") as tx:
    tx.write("a.md", fields=fields, body="first")
    tx.write("b.md", fields=fields, body="second")
"""

#: Where :func:`crash` dies, as a :mod:`memfs.store.crashpoint` step.
_CRASH_POINTS = {"before-commit": "git-add", "mid-write": "temp-written:2"}


def crash(repo: MemoryRepo, mode: str) -> None:
    """A process writing ``a.md`` and ``b.md`` in one transaction dies (exit 9) before the commit
    (``before-commit``) or after the first file, with the second one's temporary written
    (``mid-write``), leaving its journal behind."""
    env = {**os.environ, "MEMFS_CRASH_AT": _CRASH_POINTS[mode]}
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(_CRASH_SCRIPT), str(repo.root)], capture_output=True, text=True, env=env
    )
    assert done.returncode == 9, done.stderr
    assert (repo.store.git.git_dir / "memfs-journal.json").exists()


# --- the CLI --------------------------------------------------------------------------------
@dataclass(frozen=True)
class Ran:
    """What a CLI run did, shaped like :class:`subprocess.CompletedProcess`."""

    args: tuple[str, ...]
    returncode: int
    stdout: str
    stderr: str


def run_cli(*args: str, cwd: Path | None = None, input: str | None = None, env: dict[str, str] | None = None) -> Ran:
    """The ``memfs`` entry point (:func:`memfs.cli.main`) in this process, through click's test
    runner: the same parsing, error lines and exit codes as a real run, without starting Python."""
    from memfs.cli import main

    runner = CliRunner()
    with runner.isolation(input=input, env=env) as (out, err, _), contextlib.chdir(cwd or os.getcwd()):
        try:
            main(list(args))
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        except Exception:  # what the interpreter does with an uncaught exception (--debug)
            traceback.print_exc(file=sys.stderr)
            sys.stderr.flush()
            code = 1
        stdout, stderr = out.getvalue(), err.getvalue()
    return Ran(args, code, stdout.decode("utf-8", "replace"), stderr.decode("utf-8", "replace"))


def cli(repo: MemoryRepo, *args: str, input: str | None = None, env: dict[str, str] | None = None) -> Ran:
    """``memfs -C REPO ARGS`` in this process (:func:`run_cli`)."""
    return run_cli("-C", str(repo.root), *args, input=input, env=env)


def run_process(
    *args: str, cwd: Path | None = None, input: str | bytes | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """The real entry point in a fresh process: ``python -m memfs ARGS`` (smoke tests only).
    ``input`` given as bytes reaches stdin unchanged; the output is decoded either way."""
    full_env = dict(os.environ)
    full_env.update(env or {})
    done = subprocess.run(
        [sys.executable, "-m", "memfs", *args],
        cwd=cwd,
        input=input.encode("utf-8") if isinstance(input, str) else input,
        capture_output=True,
        env=full_env,
        stdin=None if input is not None else subprocess.DEVNULL,
    )
    return subprocess.CompletedProcess(
        done.args, done.returncode, done.stdout.decode("utf-8", "replace"), done.stderr.decode("utf-8", "replace")
    )
