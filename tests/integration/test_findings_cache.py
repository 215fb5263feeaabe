"""The findings cache (``.memfs/findings/``, #28): a whole-repository validate served from it
finds exactly what reading and checking every file again finds, in the same order, whatever
changed since the cache was written; it recomputes only the files whose content changed, reads
only those whose stat changed, and rewrites only the shards holding what changed."""

from __future__ import annotations

import json
import os
import random
import shutil
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from memfs import MemoryRepo
from memfs.format.model import Problem
from memfs.policy import conflict_pairs, guard
from memfs.store import crossfile, findings, paths, validating
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


def _folder(repo: MemoryRepo) -> Path:
    return repo.store.cache_dir / findings.CACHE_DIR


def _shard(repo: MemoryRepo, rel: str) -> Path:
    return _folder(repo) / f"{findings.shard(rel):02x}.json"


def _corrupt(repo: MemoryRepo) -> None:
    for path in _folder(repo).glob("*.json"):
        path.write_bytes(b'{"format": "findings2", "files": [1, 2')


def _entries_lost(repo: MemoryRepo) -> None:
    """The shards' entries gone, their stat indexes kept; and one file edited, so they are asked for."""
    for path in _folder(repo).glob("*.json"):
        if not path.name.endswith(".stat.json") and path.name != findings.PAIRS_FILE:
            path.unlink()
    _edit_worktree(repo)


def _edit_entry(repo: MemoryRepo, rel: str, position: int, value: object) -> None:
    path = _shard(repo, rel)
    raw = json.loads(path.read_bytes())
    raw["files"][rel][position] = value
    path.write_text(json.dumps(raw))


def _bad_entries(repo: MemoryRepo) -> None:
    _edit_entry(repo, "facts/secret.md", 1, [{"path": "facts/secret.md"}])
    _edit_entry(repo, "facts/field.md", 2, ["not", "a", "summary"])
    _edit_entry(repo, "facts/berlin.md", 1, [{**Problem("facts/other.md", None, "x").to_json()}])
    _edit_entry(repo, "facts/paris.md", 3, [["kai"], "yes", False, False])
    path = _folder(repo) / findings.PAIRS_FILE
    raw = json.loads(path.read_bytes())
    raw["result"]["pairs"] = [[3, "x"]]
    path.write_text(json.dumps(raw))


def _touch(repo: MemoryRepo) -> None:
    for rel in FILES:
        (repo.root / rel).touch()


def _same_size_edit(repo: MemoryRepo) -> None:
    """An id that was a duplicate becomes one of its own (same length), with the file's mtime
    put back as it was: its ctime still moves, and the racy rule kept no stat that could match."""
    path = repo.root / "facts/dup-b.md"
    before = path.stat()
    path.write_bytes(path.read_bytes().replace(b"id: same", b"id: emas"))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))


def _rename(repo: MemoryRepo) -> None:
    git(repo.root, "mv", "facts/secret.md", "facts/renamed-secret.md")
    (repo.root / "facts/berlin.md").rename(repo.root / "facts/berlin-moved.md")


def _delete(repo: MemoryRepo) -> None:
    (repo.root / "facts/paris.md").unlink()


#: the changes that leave every finding as it was
SAME = {"clean", "corrupt cache file", "undecodable entries", "touched, not changed"}

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
    "touched, not changed": _touch,
    "entries lost, stat index kept": _entries_lost,
    "same size, same mtime": _same_size_edit,
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
    shutil.rmtree(_folder(seeded))
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


@pytest.mark.parametrize("changed", ["PyYAML", "libyaml", "Python"])
def test_another_yaml_reader_or_python_invalidates_every_entry(seeded: MemoryRepo, monkeypatch: pytest.MonkeyPatch,
                                                               changed: str) -> None:
    """What a file's findings are also depends on what reads its frontmatter (PyYAML and the
    libyaml it loads with) and on the Python that runs the rules (its ``re`` and Unicode tables
    judge names and secrets): a cache written under other ones is not used."""
    import sys

    import yaml

    seeded.validate()
    if changed == "PyYAML":
        monkeypatch.setattr(yaml, "__version__", "999.0")
    elif changed == "libyaml":
        monkeypatch.setattr(yaml._yaml, "get_version_string", lambda: "9.9.9")
    else:
        monkeypatch.setattr(sys, "version", sys.version + " (another build)")
    recomputed = _recomputed(monkeypatch)
    assert seeded.validate() == _uncached(seeded)
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
    shutil.rmtree(_folder(seeded), ignore_errors=True)
    shutil.copytree(_folder(other_repo), _folder(seeded))
    assert seeded.validate() == _uncached(seeded) != []


def test_blob_id_is_git_hash_object(seeded: MemoryRepo) -> None:
    data = (seeded.root / "facts/berlin.md").read_bytes()
    assert findings.blob_id(data) == git(seeded.root, "hash-object", "facts/berlin.md").strip()


def _reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    seen: list[str] = []
    original = paths.read_file

    def spy(root: Path, rel: str, **kwargs: object) -> object:
        seen.append(rel)
        return original(root, rel, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(validating.paths, "read_file", spy)
    return seen


def test_a_file_whose_stat_is_unchanged_is_not_read(seeded: MemoryRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    """With every file's stat older than the run (the stamp in the future here), a second validate
    reads nothing; a touched file is read (not recomputed) once, then no more."""
    monkeypatch.setattr(findings, "_stamp", lambda repo: time.time_ns() + 3600 * 10**9)
    first = seeded.validate()
    reads, recomputed = _reads(monkeypatch), _recomputed(monkeypatch)
    assert seeded.validate() == first
    assert reads == [] and recomputed == []
    (seeded.root / "facts/paris.md").touch()
    assert seeded.validate() == first
    assert reads == ["facts/paris.md"] and recomputed == []
    reads.clear()
    assert seeded.validate() == first
    assert reads == []


def test_racily_clean_files_are_read_every_time(seeded: MemoryRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file changed at or after the moment a run began records no stat: it is read and hashed
    on the next run (and not recomputed when its content is the same)."""
    monkeypatch.setattr(findings, "_stamp", lambda repo: 0)
    first = seeded.validate()
    reads, recomputed = _reads(monkeypatch), _recomputed(monkeypatch)
    assert seeded.validate() == first
    assert sorted(reads) == sorted([*FILES, "system/persona.md"]) and recomputed == []


def test_a_stat_is_kept_only_when_it_is_older_than_the_run(seeded: MemoryRepo) -> None:
    """Racy-stat safety: a stat whose mtime or ctime is at or after the run's stamp (the same
    clock tick as the run's start, or later) is not kept, so an edit within that tick that
    leaves size and times as they were cannot pass for the recorded content."""
    found = (seeded.root / "facts/berlin.md").stat()
    newest = max(found.st_mtime_ns, found.st_ctime_ns)
    for stamp, kept in ((newest + 1, True), (newest, False), (found.st_mtime_ns, False), (None, False)):
        cache = findings.Cache("f", stamp=stamp)
        cache.put("facts/berlin.md", "b" * 40, findings.Entry((), None), found)
        assert (cache.seen["facts/berlin.md"][4] == findings.stat_key(found)) is kept
        assert (cache.unchanged("facts/berlin.md", found) is not None) is False
        cache.stats = {rel: [raw[0], raw[4]] for rel, raw in cache.seen.items()}
        assert (cache.unchanged("facts/berlin.md", found) is not None) is kept


def _shards(repo: MemoryRepo) -> dict[str, int]:
    return {p.name: p.stat().st_ino for p in _folder(repo).glob("*.json")}


def test_an_edit_rewrites_one_shard_and_the_pairs(seeded: MemoryRepo) -> None:
    """An unchanged run writes nothing; an edit, its shard, that shard's stat and cross-file
    indexes and the pairs (the kept result)."""
    legacy = seeded.store.cache_dir / findings.LEGACY_FILE
    seeded.store.cache_dir.mkdir(exist_ok=True)
    legacy.write_bytes(b"{}")
    seeded.validate()
    assert not legacy.exists()
    before = _shards(seeded)
    assert len(before) > 2
    seeded.validate()
    assert _shards(seeded) == before
    _edit_worktree(seeded)
    seeded.validate()
    after = _shards(seeded)
    replaced = {name for name in before if after.get(name) != before[name]}
    number = findings.shard("facts/dup-b.md")
    assert replaced == {f"{number:02x}.json", f"{number:02x}.stat.json", f"{number:02x}.xref.json",
                        findings.PAIRS_FILE}


def test_an_edit_finds_the_conflicts_again_around_it(seeded: MemoryRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    """After the first run, conflicts are found incrementally (never from scratch), through new,
    edited, re-keyed, retracted, renamed and deleted memories, each time as a fresh validate finds them."""
    seeded.validate()
    scratch: list[int] = []
    original = conflict_pairs.pairs
    monkeypatch.setattr(conflict_pairs, "pairs", lambda *args: scratch.append(1) or original(*args))
    steps: list[Callable[[], None]] = [
        lambda: write_file(seeded.root / "facts/rome.md", memory_text("Kai works in Rome now.\n", id="rome",
                                                                      updated="2026-04-01T00:00:00Z")),
        lambda: write_file(seeded.root / "facts/paris.md", memory_text("Kai works in Paris now.\n", id="paris",
                                                                       key="office", updated="2026-02-01T00:00:00Z")),
        lambda: write_file(seeded.root / "facts/rome.md", memory_text("Kai works in Rome now.\n", id="rome",
                                                                      status="retracted")),
        lambda: (seeded.root / "facts/berlin.md").rename(seeded.root / "facts/a-berlin.md"),
        lambda: (seeded.root / "facts/paris.md").unlink(),
        lambda: write_file(seeded.root / "facts/oslo.md", memory_text("Kai works in Oslo.\n", id="oslo",
                                                                      updated="2025-01-01T00:00:00Z")),
    ]
    counts = []
    for step in steps:
        step()
        found = seeded.validate()
        assert scratch == []
        assert found == _uncached(seeded)
        scratch.clear()
        counts.append(sum("probable conflict" in p.message for p in found))
    assert counts[0] > 0 and len(set(counts)) > 1


def test_an_unchanged_repository_reuses_the_whole_result(seeded: MemoryRepo,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Nothing changed: no entry is decoded. A ``depends_on`` target outside the memories (a file
    under a folder ``.memfsignore`` leaves out) that appears changes no memory, yet the result is
    not reused: the part of the file naming it is recomputed, still without decoding an entry."""
    write_file(seeded.root / ".memfsignore", "drafts/\n")
    write_file(seeded.root / "facts/plan-dep.md", memory_text("See the plan.\n", id="plan-dep",
                                                              depends_on=["drafts/plan.md"]))
    first = seeded.validate()
    assert any(p.path == "facts/plan-dep.md" and "does not exist" in p.message for p in first)
    decoded: list[str] = []
    original = findings.Cache.decoded

    def spy(self: findings.Cache, rel: str, blob: str) -> findings.Entry | None:
        decoded.append(rel)
        return original(self, rel, blob)

    monkeypatch.setattr(findings.Cache, "decoded", spy)
    assert seeded.validate() == first
    assert decoded == []
    write_file(seeded.root / "drafts/plan.md", memory_text("The plan.\n", id="plan"))
    found = seeded.validate()
    assert found == _uncached(seeded) != first
    assert not any(p.path == "facts/plan-dep.md" for p in found)
    assert decoded == []


def _hard_link(repo: MemoryRepo) -> None:
    os.link(repo.root / "notes/kept.md", repo.root / "kept-too.txt")


def _linked_folder(repo: MemoryRepo) -> None:
    (repo.root / "notes").rename(repo.root / "elsewhere")
    (repo.root / "notes").symlink_to(repo.root / "elsewhere", target_is_directory=True)


def _git_dir_inside(repo: MemoryRepo) -> None:
    """The folder ``facts/`` is the git directory by identity (as a git directory kept inside the
    root under another name, or a bind mount of it, would be)."""
    repo.store.git.git_dir = repo.root / "facts"


def _target_removed(repo: MemoryRepo) -> None:
    (repo.root / "facts/berlin.md").unlink()


def _target_added(repo: MemoryRepo) -> None:
    write_file(repo.root / "notes/later.md", memory_text("Later.\n", id="later"))


#: changes to the file system around ``depends_on`` targets that the walk found before
TARGET_CHANGES: dict[str, Callable[[MemoryRepo], None]] = {
    "clean": lambda repo: None,
    "hard link": _hard_link,
    "folder replaced by a symlink": _linked_folder,
    "folder is the git directory": _git_dir_inside,
    "target removed": _target_removed,
    "target added": _target_added,
}


@pytest.mark.parametrize("change", list(TARGET_CHANGES))
def test_dependency_answers_taken_as_proven_are_the_asked_ones(seeded: MemoryRepo, monkeypatch: pytest.MonkeyPatch,
                                                               change: str) -> None:
    """A ``depends_on`` target the walk found as a plain memory file, answered as a plain file
    before, is not asked again (:class:`crossfile.Dependencies`); whatever changed on the way to
    it, each answer is what :func:`paths.confine` and the existence check give."""
    write_file(seeded.root / "notes/kept.md", memory_text("Kept.\n", id="kept"))
    targets = ["facts/berlin.md", "notes/kept.md", "./notes/kept.md", "notes/later.md", "facts/../notes/kept.md",
               "notes/cafe\u0301.md", "drafts/none.md"]
    write_file(seeded.root / "notes/cafe\u0301.md", memory_text("Accents.\n", id="cafe"))
    write_file(seeded.root / "facts/user.md", memory_text("Uses them.\n", id="user", depends_on=targets))
    assert seeded.validate() == _uncached(seeded)
    answered: list[tuple[str, list[object], bool]] = []
    original = crossfile.Dependencies.__call__

    def spy(self: crossfile.Dependencies, dep: str) -> list[object]:
        asked = len(self.asked)
        found = original(self, dep)
        answered.append((dep, found, len(self.asked) > asked))
        return found

    monkeypatch.setattr(crossfile.Dependencies, "__call__", spy)
    time.sleep(0.01)
    seeded.validate()
    proven = {dep for dep, _, asked in answered if not asked}
    assert proven == {"facts/berlin.md", "notes/kept.md"}
    answered.clear()
    TARGET_CHANGES[change](seeded)
    found = seeded.validate()
    assert found == _uncached(seeded)
    assert {dep for dep, _, _ in answered} >= {"facts/berlin.md", "notes/kept.md", "notes/later.md", "drafts/none.md"}
    for dep, given, _ in answered:
        assert given == crossfile.answer(seeded.store, dep), dep
    if change != "clean":
        assert {p.message for p in found if p.path == "facts/user.md"} != {
            p.message for p in _uncached_before(seeded, change)}


def _uncached_before(repo: MemoryRepo, change: str) -> list[Problem]:
    """The findings of ``facts/user.md`` had nothing changed: the change must move one of them."""
    if change == "folder replaced by a symlink":
        (repo.root / "notes").unlink()
        (repo.root / "elsewhere").rename(repo.root / "notes")
    elif change == "hard link":
        (repo.root / "kept-too.txt").unlink()
    elif change == "folder is the git directory":
        repo.store.git.git_dir = repo.root / ".git"
    elif change == "target removed":
        write_file(repo.root / "facts/berlin.md", FILES["facts/berlin.md"])
    elif change == "target added":
        (repo.root / "notes/later.md").unlink()
    return _uncached(repo)


PEOPLE = ["Kai", "Ana", "Lee"]
PLACES = ["Berlin", "Paris", "York", "Oslo"]
BODIES = ["{p} works in {c}.", "{p} works in {c} now.", "{p} moved to {c}.", "I live in {c}.", "I moved to {c}.",
          "{p} likes jazz."]
POOL = ["facts/a.md", "facts/b.md", "facts/c.md", "notes/d.md", "notes/e.md", "notes/deep/f.md", "system/g.md"]
TARGETS = [*POOL, "drafts/plan.md", "missing/x.md", "./facts/a.md", "notes/deep"]


def _random_memory(rng: random.Random) -> str:
    fields: dict[str, object] = {
        "id": rng.choice(["x", "y", "z", None, None]), "type": rng.choice(["fact"] * 5 + ["preference", "episode"]),
        "scope": rng.choice(["user:U1"] * 4 + ["user:U2"]), "key": rng.choice([None, None, None, "city", "diet"]),
        "version": rng.choice([None] * 4 + ["2"]), "status": rng.choice(["active"] * 6 + ["superseded"]),
        "depends_on": rng.sample(TARGETS, rng.choice([0, 0, 1, 2])) or None,
        "updated": f"2026-01-{rng.randrange(1, 28):02d}T00:00:00Z",
    }
    if rng.random() < 0.15:
        fields["confidence"] = "high"
    body = rng.choice(BODIES).format(p=rng.choice(PEOPLE), c=rng.choice(PLACES))
    return memory_text(body, **fields)


def _random_step(repo: MemoryRepo, rng: random.Random) -> None:
    """One change of many kinds: a memory written or edited, deleted, renamed, made unparseable
    or unreadable (a symlink), or the target outside the memories made or removed."""
    rel = rng.choice(POOL)
    path = repo.root / rel
    kind = rng.choice(["write"] * 6 + ["delete", "rename", "broken", "link", "draft"])
    if kind == "write" or (kind in ("delete", "rename") and not path.exists()):
        if path.is_symlink():
            path.unlink()
        write_file(path, _random_memory(rng))
    elif kind == "delete":
        path.unlink()
    elif kind == "rename":
        other = repo.root / rng.choice([r for r in POOL if r != rel])
        other.unlink(missing_ok=True)
        other.parent.mkdir(parents=True, exist_ok=True)
        path.rename(other)
    elif kind == "broken":
        path.unlink(missing_ok=True)
        write_file(path, "---\nid: [unclosed\n---\nbody\n")
    elif kind == "link":
        path.unlink(missing_ok=True)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.symlink_to(repo.root / "README.md")
    else:
        draft = repo.root / "drafts/plan.md"
        if draft.exists():
            draft.unlink()
        else:
            write_file(draft, memory_text("The plan.\n", id="plan"))


@pytest.mark.parametrize("seed", range(4))
def test_random_changes_are_found_incrementally_as_from_scratch(repo: MemoryRepo, monkeypatch: pytest.MonkeyPatch,
                                                                seed: int) -> None:
    """Random sequences of changes: after each, validate from the kept result (never recomputed
    from scratch once it exists) finds exactly what a fresh validate finds; over the sequence the
    duplicate ids, ``(scope, key, version)`` clashes, ``depends_on`` findings and probable conflicts
    each come and go."""
    rng = random.Random(seed)
    write_file(repo.root / ".memfsignore", "drafts/\n")
    for rel in POOL:
        write_file(repo.root / rel, _random_memory(rng))
    assert repo.validate() == _uncached(repo)
    scratch: list[int] = []
    original = crossfile.scratch
    monkeypatch.setattr(crossfile, "scratch", lambda *args: scratch.append(1) or original(*args))
    seen: dict[str, set[int]] = {"is also used by": set(), "active with the same": set(), "depends_on": set(),
                                 "probable conflict": set()}
    for step in range(60):
        _random_step(repo, rng)
        found = repo.validate()
        assert found == _uncached(repo), step
        assert scratch == [], step
        for marker, counts in seen.items():
            counts.add(sum(marker in p.message or marker == p.field for p in found))
    assert all(len(counts) > 1 for counts in seen.values()), seen


def test_a_result_not_written_with_the_indexes_is_not_used(seeded: MemoryRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    """A shard's stat index written after the kept result (by another process, or a save cut
    short) has another token: the result is then computed from scratch, not from indexes it was
    not computed with."""
    seeded.validate()
    scratch: list[int] = []
    original = crossfile.scratch
    monkeypatch.setattr(crossfile, "scratch", lambda *args: scratch.append(1) or original(*args))
    _edit_worktree(seeded)
    assert seeded.validate() == _uncached(seeded)
    assert scratch == []
    stat_index = _shard(seeded, "facts/dup-a.md").with_suffix(".stat.json")
    raw = json.loads(stat_index.read_bytes())
    raw["token"] = "another"
    stat_index.write_text(json.dumps(raw))
    write_file(seeded.root / "facts/dup-a.md", memory_text("The build uses make.\n", id="dup-b"))
    assert seeded.validate() == _uncached(seeded)
    assert scratch == [1]


def test_a_save_after_another_process_saved_keeps_no_result_it_was_not_computed_with(
        seeded: MemoryRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two validates at once. This one takes ``facts/berlin.md`` as unchanged by its stat; the
    file is then edited (a secret added) and another process validates and saves, its new entry
    in their shared shard. This one then saves that shard (a file of it was deleted) with the
    entries it reads from the disk now: the other's entry for the edited file, with its new
    content id, must not be kept beside a result computed from the old content, or every later
    run takes the stale result for the file as it is."""
    monkeypatch.setattr(findings, "_stamp", lambda repo: time.time_ns() + 3600 * 10**9)
    sibling = "facts/other-277.md"
    assert findings.shard(sibling) == findings.shard("facts/berlin.md")
    write_file(seeded.root / sibling, memory_text("Ana likes tea.\n", id="other", type="episode"))
    seeded.validate()
    (seeded.root / sibling).unlink()
    real_save = findings.save
    saves: list[int] = []

    def another_process_first(repo: findings.Store, cache: findings.Cache) -> None:
        saves.append(1)
        if len(saves) == 1:
            assert "facts/berlin.md" in cache.unread
            write_file(seeded.root / "facts/berlin.md", memory_text(f"Kai works in Berlin. {SECRET}\n", id="berlin",
                                                                    updated="2026-01-01T00:00:00Z"))
            validating.cached(seeded.store)
        real_save(repo, cache)

    monkeypatch.setattr(findings, "save", another_process_first)
    seeded.validate()
    monkeypatch.setattr(findings, "save", real_save)
    found = seeded.validate()
    assert found == _uncached(seeded)
    assert any(p.path == "facts/berlin.md" and "secret" in p.message.lower() for p in found)


@pytest.mark.parametrize("edit", [False, True])
def test_a_kept_finding_that_does_not_decode_is_computed_again(seeded: MemoryRepo, edit: bool) -> None:
    """A kept result whose parts are laid out as written but hold a finding that does not decode
    (a corrupt cache) is not used, also where it is recomputed around a change: the findings of
    the files that did not change are computed again, never a traceback."""
    seeded.validate()
    path = _folder(seeded) / findings.PAIRS_FILE
    raw = json.loads(path.read_bytes())
    raw["result"]["parts"]["facts/field.md"][0] = [{"path": "facts/field.md"}]
    path.write_text(json.dumps(raw))
    if edit:
        _edit_worktree(seeded)
    assert seeded.validate() == _uncached(seeded)


def test_a_file_edited_while_its_entry_is_read_again_keeps_no_result_under_the_old_content(
        seeded: MemoryRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    """A run takes ``facts/berlin.md`` as unchanged by its stat (its content id is in the run's
    digest); its kept entry does not decode, so the file is read again when the cross-file checks
    need it, and by then it was edited (a secret added). The result computed from the edit must
    not be kept under the digest of the old content: once the edit is undone, a run with exactly
    the old files would take it and report the secret that is no longer there."""
    monkeypatch.setattr(findings, "_stamp", lambda repo: time.time_ns() + 3600 * 10**9)
    seeded.validate()
    original = (seeded.root / "facts/berlin.md").read_bytes()
    _edit_entry(seeded, "facts/berlin.md", 2, ["not", "a", "summary"])
    (_folder(seeded) / findings.PAIRS_FILE).unlink()
    real_scratch = crossfile.scratch

    def edited_meanwhile(*args: object) -> crossfile.Result:
        write_file(seeded.root / "facts/berlin.md", memory_text(f"Kai works in Berlin. {SECRET}\n", id="berlin",
                                                                updated="2026-01-01T00:00:00Z"))
        return real_scratch(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(crossfile, "scratch", edited_meanwhile)
    seeded.validate()
    monkeypatch.setattr(crossfile, "scratch", real_scratch)
    (seeded.root / "facts/berlin.md").write_bytes(original)
    found = seeded.validate()
    assert found == _uncached(seeded)
    assert not any(p.path == "facts/berlin.md" and "secret" in p.message.lower() for p in found)
