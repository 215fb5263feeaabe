"""Fixtures: every test runs git isolated from the machine's and the user's config; repositories
are built once and copied for each test that needs one.

The tests are in four folders, by the widest door a test goes through:

``unit/``
    pure: bytes, policy functions, pure merges, tokens, transcripts, the layer rule; no git
    process and no repository (``unit/test_layout.py`` checks this).
``integration/``
    the library on real git repositories in ``tmp_path``; no CLI.
``cli/``
    the ``memfs`` command in this process (:func:`tests.helpers.run_cli`), usually after
    library calls that set the scene.
``smoke/``
    a few runs of the real entry point in a fresh process (``python -m memfs``): the basic
    verbs, error lines and exit codes, stdin, the MCP server with a real client, signals and
    concurrent processes.

Tests marked ``slow`` start other Python processes, several clones or a git daemon, or take
more than about half a second; ``pytest -m "not slow"`` leaves them out.

Factories and the CLI runners are in :mod:`tests.helpers`."""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import tests.ramtemp  # noqa: F401  (first: it may move the temporary folders every later line uses)

#: Where compiled bytecode goes when the environment asks Python not to write it beside the
#: sources (``PYTHONDONTWRITEBYTECODE``): otherwise every ``python -m memfs`` a test starts, and
#: every worker, compiles memfs again (~0.2 s of CPU a process). A folder of its own, outside the
#: source tree; Python checks each entry against its source's size and time, as in ``__pycache__``.
if os.environ.pop("PYTHONDONTWRITEBYTECODE", None) and not sys.pycache_prefix:
    os.environ["PYTHONPYCACHEPREFIX"] = sys.pycache_prefix = str(
        Path(tempfile.gettempdir()) / f"memfs-tests-pycache-{os.getuid()}"
    )
    sys.dont_write_bytecode = False

import pytest
from hypothesis import settings

from memfs import MemoryRepo
from tests.helpers import (
    ACTOR,
    FACT,
    PREFERENCE,
    Build,
    Clock,
    Clone,
    Prepared,
    add,
    bare_repo,
    build_filled,
    clone_repo,
    copy_repo,
    git,
    isolate,
    new_repo,
)

#: The one hypothesis profile, for the whole suite: no wall-clock deadlines (a loaded machine is
#: not a failure), and in CI (``CI`` set, as ``.ci/run`` is run) the same examples every run, so a
#: failure there is reproducible and no property test runs unseeded. Tests set only how many
#: examples they need and which health checks do not apply.
settings.register_profile("memfs", deadline=None, derandomize=bool(os.environ.get("CI")))
settings.load_profile("memfs")


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """Two workers a core (``-n auto``), at most four more than the cores. A test spends much of
    its time waiting for the git, Python and server processes it starts, or on their sockets and
    pipes, and a second worker on the core fills that wait. On the idle 2-core machine (one run
    each, ``-n 2/3/4/6``): 276, 249, 227 and 255 s. The cap keeps a many-core machine near the
    cores, where the per-user limits the workers share (inotify instances, memory) bind first."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return min(2 * cores, cores + 4)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Slow tests first, so that on several workers the long ones overlap with the many short
    ones instead of ending the run alone."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


def _compact(repo: Path, git_dir: Path) -> None:
    """Fewer files to copy for every test (and to delete after it): no inert ``*.sample`` hooks
    (``git init`` copies a dozen) and the objects in one pack instead of a file each."""
    for sample in (git_dir / "hooks").glob("*.sample"):
        sample.unlink()
    git(repo, "repack", "-a", "-d", "-q")
    git(repo, "prune-packed")


@pytest.fixture(scope="session")
def _home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """One empty home directory for the session: nothing memfs or a test runs may write to HOME
    (checked at the end), so sharing it keeps tests apart."""
    home = tmp_path_factory.mktemp("home")
    yield home
    assert sorted(p.name for p in home.iterdir()) == [], "something wrote to HOME"


@pytest.fixture(autouse=True)
def isolated_git(monkeypatch: pytest.MonkeyPatch, _home: Path) -> None:
    """No ~/.gitconfig, no system config, a fixed actor: tests behave the same on any machine."""
    isolate(monkeypatch, _home)


@pytest.fixture(autouse=True)
def closed_indexes() -> Iterator[None]:
    """Search indexes and work-tree watches opened by a test are closed after it (the CLI runs in
    this process). A watch whose repository outlives the test (caught in a reference cycle until
    the collector runs, or held by a module's cache or a module-scoped fixture) counts against the
    process's :data:`~memfs.store.gitcli.watch.MAX_OPEN`, and once they are that many a later
    test's repository gets no watch: which tests ran before on the same worker would decide
    whether a kept probe saves its ``git status``."""
    yield
    from memfs import index
    from memfs.store.gitcli import watch

    index.close_all()
    watch.close_all()


@pytest.fixture
def clock() -> Iterator[Clock]:
    """The time memfs reads, held at :attr:`Clock.START` until the test moves it: tests whose
    outcome depends on the seconds in ``updated`` do not depend on the wall clock. Every memfs
    module's ``utcnow`` (imported by name) is swapped for the clock, and swapped back after
    (modules first imported during the test included)."""
    from memfs.format import model

    real, held = model.utcnow, Clock()
    _swap_utcnow(real, held)
    yield held
    _swap_utcnow(held, real)


def _swap_utcnow(old: object, new: object) -> None:
    for name, module in list(sys.modules.items()):
        if (name == "memfs" or name.startswith("memfs.")) and vars(module).get("utcnow") is old:
            module.utcnow = new


# --- repositories, built once per session (per xdist worker) and copied ---------------------
@pytest.fixture(scope="session")
def template_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One freshly initialised memory repository per session, copied for each test that needs a
    new one (a copy costs a tenth of ``memfs init``'s dozen git processes)."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        isolate(monkeypatch, tmp_path_factory.mktemp("template-home"))
        root = new_repo(tmp_path_factory.mktemp("template") / "mem").root
        _compact(root, root / ".git")
        return root


@pytest.fixture
def repo(tmp_path: Path, template_repo: Path) -> MemoryRepo:
    """A fresh memory repository (its own git repo, as ``memfs init`` makes it) with a per-repo
    identity for plain git."""
    return MemoryRepo.open(copy_repo(template_repo, tmp_path / "mem"), ACTOR)


@pytest.fixture(scope="session")
def _prepared_roots() -> dict[str, Path]:
    return {}


@pytest.fixture
def prepared(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory, template_repo: Path, _prepared_roots: dict[str, Path]
) -> Prepared:
    """``prepared(name, build)``: a copy (at ``tmp_path/mem``, like :func:`repo`) of the template
    repository after ``build(repo)`` ran on it, once per session for each ``name``."""

    def make(name: str, build: Build) -> MemoryRepo:
        root = _prepared_roots.get(name)
        if root is None:
            from memfs import index

            root = copy_repo(template_repo, tmp_path_factory.mktemp(f"prepared-{name}") / "mem")
            build(MemoryRepo.open(root, ACTOR))
            index.close_all()
            _prepared_roots[name] = root
        return MemoryRepo.open(copy_repo(root, tmp_path / "mem"), ACTOR)

    return make


@pytest.fixture(scope="session")
def template_remote(tmp_path_factory: pytest.TempPathFactory, template_repo: Path) -> Path:
    """A bare remote holding the template repository on ``main``."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        isolate(monkeypatch, tmp_path_factory.mktemp("template-remote-home"))
        bare = bare_repo(tmp_path_factory.mktemp("template-remote") / "remote.git")
        git(template_repo, "push", "-q", str(bare), "main")
        _compact(bare, bare)
        return bare


@pytest.fixture
def remote(tmp_path: Path, template_remote: Path) -> Path:
    """A bare remote holding one freshly initialised memory repository on ``main``."""
    return copy_repo(template_remote, tmp_path / "remote.git")


@pytest.fixture
def clone(tmp_path: Path, remote: Path) -> Clone:
    """``clone(name)``: a clone of :func:`remote` at ``tmp_path/name``, acting as ``agent:name``,
    with the merge driver configured."""

    def make(name: str) -> MemoryRepo:
        return clone_repo(str(remote), tmp_path / name, actor=f"agent:{name}")

    return make


# --- prepared repositories shared by the integration and the CLI tests of one topic ----------
def _chain(repo: MemoryRepo) -> None:
    add(repo, "facts/source.md")
    add(repo, "notes/note.md", "facts/source.md")
    add(repo, "index/entry.md", "notes/note.md")
    add(repo, "answers/cached.md", "index/entry.md")
    add(repo, "notes/unrelated.md")


@pytest.fixture
def chain(prepared: Prepared) -> MemoryRepo:
    """Lineage: source -> note -> index entry -> cached answer, plus an unrelated note."""
    return prepared("chain", _chain)


@pytest.fixture
def filled(prepared: Prepared) -> MemoryRepo:
    """Context: three facts of user U5, one of user U6, and a read-only rule under system/."""
    return prepared("filled", build_filled)


def _lang(repo: MemoryRepo) -> None:
    repo.write("prefs/lang.md", fields=PREFERENCE, body="Release notes in Chinese.\n", reason="user said so")
    repo.write("facts/b17.md", fields={"type": "fact", "scope": "project:P8", "source": "tool:ci"}, body="B17 open")
    repo.write("prefs/lang.md", fields={"source": "conversation:C2#msg-3"}, body="Release notes in English.\n",
               force=True)


@pytest.fixture
def lang(prepared: Prepared) -> MemoryRepo:
    """History: the language preference in Chinese, a fact, then the preference in English."""
    return prepared("lang", _lang)


def _branch(repo: MemoryRepo) -> None:
    repo.write("facts/b17.md", fields={**FACT, "description": "B17 is fixed"}, body="B17 fixed.\n")
    repo.write("notes/derived.md", fields={**FACT, "depends_on": ["facts/b17.md"]}, body="Ship it.\n")
    repo.write("notes/derived2.md", fields={**FACT, "depends_on": ["notes/derived.md"]}, body="Announce.\n")
    repo.write("notes/unrelated.md", fields=FACT, body="Other.\n")
    repo.write("prefs/lang.md", fields={**FACT, "key": "lang", "description": "notes in English"}, body="English\n")
    repo.write("facts/old.md", fields={**FACT, "description": "old news"}, body="old\n")
    repo.write("facts/gone.md", fields={**FACT, "description": "secret-ish"}, body="gone\n")
    repo.write("facts/tweak.md", fields={**FACT, "tags": ["a"]}, body="tweak\n")
    git(repo.root, "checkout", "-q", "-b", "review")
    repo.write("facts/new.md", fields={**FACT, "description": "a new fact"}, body="new\n")
    with repo.store.transaction("supersede", reason="U5 changed their mind", verb="remember") as tx:
        tx.write("prefs/lang.md", fields={"status": "superseded"})
        tx.write("prefs/lang-2.md", fields={**FACT, "key": "lang", "description": "notes in Chinese"}, body="中文\n")
    with repo.store.transaction("retract", reason="release was rolled back") as tx:
        tx.write("facts/b17.md", fields={"status": "retracted"})
        record = [{"root": "facts/b17.md", "reason": "release was rolled back", "actor": ACTOR}]
        tx.write("notes/derived.md", fields={"status": "needs_review", "invalidated_by": record})
        tx.write("notes/derived2.md", fields={"status": "needs_review", "invalidated_by": record})
    repo.write("facts/old.md", fields={"status": "expired"}, force=True)
    repo.delete("facts/gone.md", reason="user asked")
    repo.write("facts/tweak.md", fields={"confidence": 0.4, "tags": ["a", "b"]}, body="tweaked\n")
    git(repo.root, "checkout", "-q", "main")
    repo.write("facts/on-main.md", fields=FACT, body="landed on main meanwhile\n")


@pytest.fixture
def branch(prepared: Prepared) -> MemoryRepo:
    """Review: main with a few memories, then a branch ``review`` that changes them in every way
    (and one more commit on main meanwhile)."""
    return prepared("branch", _branch)


@pytest.fixture
def live_run_dir(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A private run dir for live-index sockets with a short path (``tmp_path`` is too long for a
    Unix socket), as ``$XDG_RUNTIME_DIR``; removed after the test."""
    import shutil
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="mfs", dir="/tmp"))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(folder))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)
