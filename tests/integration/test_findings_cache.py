"""The findings cache (``.memfs/findings.json``, #28): a whole-repository validate served from it
finds exactly what reading and checking every file again finds, in the same order, whatever
changed since the cache was written; and it recomputes only the files whose content changed."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from memfs import MemoryRepo
from memfs.format.model import Problem
from memfs.policy import guard
from memfs.store import findings
from memfs.store.reading import Reader
from tests.helpers import commit_all, git, memory_text, raw_memory, write_file

SECRET = "ghp_aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6"
LONG = "Kai works in Berlin. " + "More about the office and the team there. " * 20

FILES = {
    "facts/berlin.md": memory_text("Kai works in Berlin.\n", id="berlin", updated="2026-01-01T00:00:00Z"),
    "facts/paris.md": memory_text("Kai works in Paris now.\n", id="paris", updated="2026-02-01T00:00:00Z"),
    "facts/long.md": memory_text(LONG, id="long", updated="2026-03-01T00:00:00Z"),
    "facts/dup-a.md": memory_text("The build uses make.\n", id="same"),
    "facts/dup-b.md": memory_text("Lunch is at noon.\n", id="same"),
    "facts/deps.md": memory_text("Depends on a gone file.\n", id="deps", depends_on=["facts/gone.md"]),
    "facts/field.md": raw_memory("id: field\ntype: fact\nscope: user:U5\nsource: tool:ci\nstatus: active\n"
                                 "confidence: high\n"),
    "facts/secret.md": memory_text(f"The token is {SECRET}\n", id="secret"),
    "notes/plain.md": "just a plain note, no frontmatter\n",
    "facts/unclosed.md": "---\nid: unclosed\nnever closed\n",
}


def _edit_worktree(repo: MemoryRepo) -> None:
    write_file(repo.root / "facts/dup-b.md", memory_text(f"Lunch is at noon. {SECRET}\n", id="dup-b"))


def _commit_change(repo: MemoryRepo) -> None:
    write_file(repo.root / "facts/dup-a.md", memory_text("The build uses make.\n", id="build"))
    commit_all(repo.root, "an id of its own")


def _limits(repo: MemoryRepo) -> None:
    write_file(repo.root / ".memfs.toml", "[limits]\nvalue_chars = 5\n")


def _adopt_rule(repo: MemoryRepo) -> None:
    write_file(repo.root / ".memfs.toml", '[adopt]\nscope = "user:U5"\n')


def _corrupt(repo: MemoryRepo) -> None:
    (repo.store.cache_dir / findings.CACHE_FILE).write_bytes(b'{"format": "findings1", "files": [1, 2')


def _bad_entries(repo: MemoryRepo) -> None:
    path = repo.store.cache_dir / findings.CACHE_FILE
    raw = json.loads(path.read_bytes())
    raw["files"]["facts/secret.md"][1] = [{"path": "facts/secret.md"}]
    raw["files"]["facts/field.md"][2] = ["not", "a", "summary"]
    raw["files"]["facts/berlin.md"][1] = [{**Problem("facts/other.md", None, "x").to_json()}]
    raw["conflicts"] = [raw["conflicts"][0], [{"path": 3}]]
    path.write_text(json.dumps(raw))


def _rename(repo: MemoryRepo) -> None:
    git(repo.root, "mv", "facts/secret.md", "facts/renamed-secret.md")
    (repo.root / "facts/berlin.md").rename(repo.root / "facts/berlin-moved.md")


def _delete(repo: MemoryRepo) -> None:
    (repo.root / "facts/paris.md").unlink()


#: the changes that leave every finding as it was
SAME = {"clean", "corrupt cache file", "undecodable entries"}

CHANGES: dict[str, Callable[[MemoryRepo], None]] = {
    "clean": lambda repo: None,
    "edited in the working tree": _edit_worktree,
    "committed change": _commit_change,
    "limits changed": _limits,
    "adopt rule changed": _adopt_rule,
    "corrupt cache file": _corrupt,
    "undecodable entries": _bad_entries,
    "renamed": _rename,
    "deleted": _delete,
}


@pytest.fixture
def seeded(repo: MemoryRepo) -> MemoryRepo:
    for rel, text in FILES.items():
        write_file(repo.root / rel, text)
    commit_all(repo.root, "seed")
    return repo


def _uncached(repo: MemoryRepo) -> list[Problem]:
    return repo.store.validate(repo.store.scan())


def _recomputed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    seen: list[str] = []
    original = Reader._file_findings

    def spy(self: Reader, rel: str, data: bytes) -> findings.Entry:
        seen.append(rel)
        return original(self, rel, data)

    monkeypatch.setattr(Reader, "_file_findings", spy)
    return seen


@pytest.mark.parametrize("change", list(CHANGES))
def test_cached_validate_finds_what_a_fresh_one_finds(seeded: MemoryRepo, change: str) -> None:
    first = seeded.validate()
    assert first == _uncached(seeded)
    assert {p.path for p in first} >= {"facts/berlin.md", "facts/secret.md", "facts/dup-a.md", "notes/plain.md",
                                       "facts/unclosed.md", "facts/field.md", "facts/deps.md"}
    CHANGES[change](seeded)
    cached = seeded.validate()
    assert cached == _uncached(seeded)
    assert (cached == first) == (change in SAME)
    assert seeded.validate() == cached
    (seeded.store.cache_dir / findings.CACHE_FILE).unlink()
    assert seeded.validate() == cached


def test_an_edit_recomputes_exactly_that_file(seeded: MemoryRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    seeded.validate()
    recomputed = _recomputed(monkeypatch)
    seeded.validate()
    assert recomputed == []
    _edit_worktree(seeded)
    found = seeded.validate()
    assert recomputed == ["facts/dup-b.md"]
    assert any(p.path == "facts/dup-b.md" and p.fix.startswith("remove it") for p in found)
    git(seeded.root, "checkout", "--", "facts/dup-b.md")
    recomputed.clear()
    assert seeded.validate() == _uncached(seeded)
    assert recomputed == ["facts/dup-b.md"]


def test_a_new_scanner_invalidates_every_entry(seeded: MemoryRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    """The secret scanner's rules and detect-secrets' version are in the fingerprint: a scanner
    that finds something else (here one that finds nothing, under a new version) is run again."""
    before = seeded.validate()
    assert any(p.path == "facts/secret.md" for p in before)
    monkeypatch.setattr(findings.secrets_library, "installed_version", lambda: "999.0")
    monkeypatch.setattr(guard, "secret_problems", lambda path, text, meta=None: [])
    recomputed = _recomputed(monkeypatch)
    cached = seeded.validate()
    assert cached == _uncached(seeded) != before
    assert sorted(recomputed) == sorted(seeded.store.memory_paths())


def test_a_foreign_cache_cannot_change_a_verdict(seeded: MemoryRepo, tmp_path: Path) -> None:
    """A cache copied from another repository with other contents at the same paths is keyed by
    other blob ids: nothing of it is used."""
    other = tmp_path / "other"
    shutil.copytree(seeded.root, other)
    for rel in FILES:
        write_file(other / rel, memory_text("Nothing to see.\n", id=rel.replace("/", "-")[:-3]))
    commit_all(other, "other contents")
    other_repo = MemoryRepo.open(other, "user:U5")
    assert other_repo.validate() == []
    seeded.store.cache_dir.mkdir(parents=True, exist_ok=True)
    shutil.copy(other_repo.store.cache_dir / findings.CACHE_FILE, seeded.store.cache_dir / findings.CACHE_FILE)
    assert seeded.validate() == _uncached(seeded) != []


def test_blob_id_is_git_hash_object(seeded: MemoryRepo) -> None:
    data = (seeded.root / "facts/berlin.md").read_bytes()
    assert findings.blob_id(data) == git(seeded.root, "hash-object", "facts/berlin.md").strip()
