"""Plain notes (no frontmatter) at every door that finds files someone else wrote: ``memfs
watch`` adopts them as they are saved, an in-place ``import`` adopts them in one commit, and
``validate`` says how they would be adopted. Doors x cases, generated."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

import pytest

from memfs import MemoryRepo
from memfs.agents.watch import Watcher
from memfs.format.parse import parse
from tests import secret_corpus
from tests.helpers import git, wait_for

pytestmark = pytest.mark.filterwarnings("ignore:Callback with id:RuntimeWarning")

ADOPT = '\n[adopt]\nscope = "user:maria"\n[adopt.folders."Work"]\nscope = "team:platform"\ntype = "fact"\n'
SECRET = secret_corpus.KINDS["aws-export"](random.Random(29))[0]


@dataclass(frozen=True)
class Case:
    name: str
    rel: str
    text: str
    configured: bool = True
    #: (scope, type) when adopted; ``None``: left as it is
    adopted: tuple[str | None, str] | None = None


CASES = [
    Case("root note", "ideas.md", "Use tabs, not spaces.\n", adopted=("user:maria", "note")),
    Case("folder note", "Work/kai.md", "Kai works in Berlin.\n", adopted=("team:platform", "fact")),
    Case("system note", "system/style.md", "Answer briefly.\n", adopted=(None, "note")),
    Case("windows line ends", "crlf.md", "one\r\ntwo\r\n", adopted=("user:maria", "note")),
    Case("no scope to derive", "ideas.md", "Use tabs.\n", configured=False),
    Case("holds a secret", "keys.md", f"Deploy keys:\n{SECRET}\n"),
]


def _watch(repo: MemoryRepo) -> list[str]:
    watcher = Watcher(repo.store, actor="user:maria", index=False, report=lambda e: None)
    return [f"{e.outcome} {e}" for e in watcher.process(c.rel for c in CASES if (repo.root / c.rel).exists())]


def _import(repo: MemoryRepo) -> list[str]:
    try:
        report = repo.import_("markdown", repo.root, apply=True, actor="user:maria")
    except Exception as exc:  # the import as a whole refused: its message is the finding
        return [str(exc)]
    return [f"{i.action} {i.path} {i.reason or ''}" for i in report.items]


DOORS: dict[str, Callable[[MemoryRepo], list[str]]] = {"watch": _watch, "import": _import}


def _setup(repo: MemoryRepo, case: Case) -> bytes:
    if case.configured:
        with open(repo.root / ".memfs.toml", "a", encoding="utf-8") as config:
            config.write(ADOPT)
        git(repo.root, "commit", "-qam", "adopt settings")
    path = repo.root / case.rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(case.text.encode("utf-8"))
    return path.read_bytes()


@pytest.mark.parametrize("door", list(DOORS))
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_plain_notes_at_every_door(repo: MemoryRepo, door: str, case: Case):
    before = _setup(repo, case)
    said = "\n".join(DOORS[door](repo))
    committed = git(repo.root, "ls-files", "--", case.rel).strip()
    if case.adopted is None:
        assert committed == "", said
        assert (repo.root / case.rel).read_bytes() == before, "a note that is not adopted is left as it is"
        expected = "[adopt] scope" if not case.configured else "secret"
        assert expected in said
        return
    assert committed == case.rel, said
    data = (repo.root / case.rel).read_bytes()
    assert data.endswith(before), "the note's text is kept byte for byte"
    assert git(repo.root, "status", "--porcelain", "--", case.rel) == ""
    memory = parse(case.rel, data)
    assert (memory.scope, memory.type, memory.status) == (*case.adopted, "active")
    assert memory.source == f"file:{case.rel}"


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_validate_says_how_a_plain_note_is_adopted(repo: MemoryRepo, case: Case):
    _setup(repo, case)
    found = [p for p in repo.validate() if p.path == case.rel]
    assert len(found) == 1 and "does not start with" in found[0].message and "a plain note" in found[0].fix
    if case.configured:
        assert "memfs watch" in found[0].fix and "[adopt]" in found[0].fix
    else:
        assert '[adopt] scope = "user:' in found[0].fix


def test_one_note_that_cannot_be_adopted_leaves_the_others_to_commit(repo: MemoryRepo):
    for case in (CASES[0], CASES[-1]):
        _setup(repo, Case(case.name, case.rel, case.text, configured=case is CASES[0]))
    events = {e.path: e.outcome for e in Watcher(repo.store, actor="user:maria", index=False).process(
        ["ideas.md", "keys.md"])}
    assert events == {"ideas.md": "committed", "keys.md": "invalid"}


def test_a_note_saved_while_watching_is_adopted(repo: MemoryRepo):
    """As Obsidian saves a new note: a file with no frontmatter appears in a folder."""
    _setup(repo, Case("settings only", "settings.md", "", adopted=None))
    (repo.root / "settings.md").unlink()
    seen: list[str] = []
    watcher = Watcher(repo.store, actor="user:maria", debounce=0.05, index=False, report=lambda e: seen.append(e.path))
    watcher.start()
    try:
        (repo.root / "Work").mkdir()
        (repo.root / "Work" / "Untitled.md").write_text("Kai moved to Paris.\n", encoding="utf-8")
        assert wait_for(lambda: "Work/Untitled.md" in git(repo.root, "ls-files"))
    finally:
        watcher.stop()
    memory = parse("Work/Untitled.md", (repo.root / "Work/Untitled.md").read_bytes())
    assert memory.scope == "team:platform" and memory.source_kind == "user"
    assert repo.search("Paris", scope="team:platform").hits


def test_an_adopted_vaults_links_resolve_across_its_notes(repo: MemoryRepo):
    """The notes are converted together with their [adopt] settings: a link by name finds its note."""
    _setup(repo, Case("settings only", "Work/b17.md", "B17 is fixed.\n", adopted=None))
    (repo.root / "Work/plan.md").write_text('---\ndepends_on: ["[[b17]]"]\n---\nShip B17 on Monday.\n')
    report = repo.import_("obsidian", repo.root, apply=True, actor="user:maria")
    assert {i.path: i.action for i in report.items if i.path.startswith("Work/")} == {
        "Work/b17.md": "create", "Work/plan.md": "create"}, [i.reason for i in report.items]
    assert parse("Work/plan.md", (repo.root / "Work/plan.md").read_bytes()).depends_on == ("Work/b17.md",)


def test_notes_committed_without_frontmatter_are_adopted_when_watching_starts(repo: MemoryRepo):
    """A vault kept in git by hand or by obsidian-git: its plain notes are committed already, so
    no save and no `git status` change names them; watching adopts the ones [adopt] gives a scope
    and leaves the others as they are, unreported (they are not new)."""
    _setup(repo, Case("settings", "Work/kai.md", "Kai works in Berlin.\n"))
    (repo.root / "Other").mkdir()
    (repo.root / "ideas.md").write_text("Use tabs, not spaces.\n", encoding="utf-8")
    git(repo.root, "add", "-A")
    git(repo.root, "commit", "-qm", "notes from obsidian-git")
    with open(repo.root / ".memfs.toml", "w", encoding="utf-8") as config:
        config.write('[adopt.folders."Work"]\nscope = "team:platform"\n')
    git(repo.root, "commit", "-qam", "adopt Work/ only")
    done = Watcher(repo.store, actor="user:maria", index=False).reconcile()
    assert {e.path: e.outcome for e in done} == {"Work/kai.md": "committed"}, [str(e) for e in done]
    assert parse("Work/kai.md", (repo.root / "Work/kai.md").read_bytes()).scope == "team:platform"
    assert (repo.root / "ideas.md").read_text(encoding="utf-8") == "Use tabs, not spaces.\n"
    assert repo.search("Berlin", scope="team:platform").hits
    assert Watcher(repo.store, actor="user:maria", index=False).reconcile() == []
