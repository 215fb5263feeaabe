"""Search serves the parse the index kept of a memory (``documents.kept_blob``) only while the file
still has the signature of the bytes it was parsed from; any other file is read and parsed again,
and eligibility is decided from the memory as it is now. Each case is asked with the index left
stale on purpose (no catch-up: what the live server does between an edit and its event) and
compared with the same search when nothing kept is used (every hit's file read, as before).

The files a test writes were changed "now", too recently to be signed (``paths.RACY_NS``);
the ``settled`` fixture shifts that margin so they count as old, and each edit gives the file a
new mtime of its own, so a rewrite within the same timestamp tick still shows."""

from __future__ import annotations

import dataclasses
import datetime as dt
import os
import random
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memfs import MemoryRepo, index
from memfs.index import query
from memfs.index import state as index_state
from memfs.index.reader import Handle
from memfs.index.results import SearchResult
from memfs.store import paths
from tests.helpers import commit_all, memory_text, new_repo

NOW = dt.datetime(2026, 6, 1, tzinfo=dt.UTC)
WORDS = ("quince", "marmalade", "harbour", "lantern", "orchid", "tundra", "pylon", "saffron")
_mtimes = iter(range(1_600_000_000 * 10**9, 1_700_000_000 * 10**9, 10**9))


@pytest.fixture
def settled(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(paths, "RACY_NS", -3_600 * 10**9)


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The memory files read from now on (every read goes through ``paths.read_file``; the
    settings file's too, left out here)."""
    seen: list[str] = []
    real = paths.read_file

    def counting(root: Path, rel: str, **kw: Any) -> Any:
        if rel.endswith(".md"):
            seen.append(rel)
        return real(root, rel, **kw)

    monkeypatch.setattr(paths, "read_file", counting)
    return seen


def _rewrite(mem: MemoryRepo, rel: str, text: str) -> None:
    """An edit, with an mtime no earlier edit had."""
    path = mem.root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    stamp = next(_mtimes)
    os.utime(path, ns=(stamp, stamp))


def _memory(word: str, **fields: Any) -> str:
    meta = {"id": f"m-{word}", "scope": "user:U5", "source": "tool:ci", "description": f"{word} note", **fields}
    return memory_text(f"about {word} and more {word}\n", **meta)


@pytest.fixture
def mem(tmp_path: Path, settled: None) -> MemoryRepo:
    repo = new_repo(tmp_path / "mem")
    for word in WORDS:
        _rewrite(repo, f"notes/{word}.md", _memory(word))
    _rewrite(repo, "notes/expiring.md", _memory("tundra", expires="2026-07-01T00:00:00Z", id="m-expiring"))
    commit_all(repo.root, "memories")
    index.rebuild(repo.store)
    return repo


def _search(mem: MemoryRepo, text: str, **kw: Any) -> SearchResult:
    return query.search(mem.store, text, at=kw.pop("at", NOW), catch_up=False, **kw)


def _answer(result: SearchResult) -> Any:
    return ([hit.to_json() for hit in result.hits], [str(p) for p in result.broken],
            [(f.path, f.reason) for f in result.filtered], result.notices)


def _as_before(mem: MemoryRepo, monkeypatch: pytest.MonkeyPatch, text: str, **kw: Any) -> Any:
    """The same search with nothing kept used: every hit's file read and parsed."""
    with monkeypatch.context() as patch:
        patch.setattr(Handle, "kept", lambda self, doc: None)
        return _answer(_search(mem, text, **kw))


def _paths(result: SearchResult) -> list[str]:
    return [hit.path for hit in result.hits]


def test_unchanged_hits_are_answered_without_reading_their_files(mem: MemoryRepo, reads: list[str],
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    found = _search(mem, "quince harbour orchid", limit=5)
    assert sorted(_paths(found)) == ["notes/harbour.md", "notes/orchid.md", "notes/quince.md"]
    assert reads == []
    assert found.hits[0].memory.body.startswith("about ")
    assert _answer(found) == _as_before(mem, monkeypatch, "quince harbour orchid", limit=5)
    assert sorted(reads) == sorted(_paths(found))


def test_an_edit_of_the_same_length_is_read_and_decides(mem: MemoryRepo, reads: list[str],
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    rel = "notes/quince.md"
    text = (mem.root / rel).read_text()
    other = text.replace("scope: user:U5", "scope: user:U7")
    assert len(other) == len(text) and other != text
    _rewrite(mem, rel, other)
    assert _paths(_search(mem, "quince", scope="user:U5")) == []
    assert reads == [rel]
    assert _answer(_search(mem, "quince", scope="user:U5")) == _as_before(mem, monkeypatch, "quince", scope="user:U5")
    body = text.replace("about quince", "ABOUT quince")
    _rewrite(mem, rel, body)
    hit = _search(mem, "quince").hits[0]
    assert hit.memory.body.startswith("ABOUT quince")
    assert _answer(_search(mem, "quince")) == _as_before(mem, monkeypatch, "quince")


def test_a_retracted_and_an_uncommitted_edit_are_answered_from_the_file(mem: MemoryRepo, reads: list[str],
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    _rewrite(mem, "notes/harbour.md", _memory("harbour", status="retracted"))
    assert _paths(_search(mem, "harbour")) == []
    _rewrite(mem, "notes/lantern.md", _memory("lantern", description="lantern note, edited"))
    found = _search(mem, "lantern")
    assert [(h.path, h.memory.description, h.uncommitted) for h in found.hits] == [
        ("notes/lantern.md", "lantern note, edited", True)]
    assert sorted(reads) == ["notes/harbour.md", "notes/lantern.md"]
    for text in ("harbour", "lantern"):
        assert _answer(_search(mem, text)) == _as_before(mem, monkeypatch, text)
    commit_all(mem.root, "edits")
    assert [h.uncommitted for h in _search(mem, "lantern").hits] == [False]


def test_a_removed_a_renamed_and_a_replaced_file(mem: MemoryRepo, reads: list[str],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    (mem.root / "notes/orchid.md").unlink()
    os.rename(mem.root / "notes/pylon.md", mem.root / "notes/pylon-moved.md")
    assert _paths(_search(mem, "orchid")) == [] and _paths(_search(mem, "pylon")) == []
    index.sync(mem.store)
    assert _paths(_search(mem, "pylon")) == ["notes/pylon-moved.md"]
    (mem.root / "notes/saffron.md").unlink()
    _rewrite(mem, "notes/saffron.md", _memory("saffron", status="superseded"))
    assert _paths(_search(mem, "saffron")) == []
    for text in ("orchid", "pylon", "saffron"):
        assert _answer(_search(mem, text)) == _as_before(mem, monkeypatch, text)


def test_a_file_made_unreadable_or_broken_is_read(mem: MemoryRepo, reads: list[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    path = mem.root / "notes/marmalade.md"
    path.chmod(0)
    try:
        found = _search(mem, "marmalade")
        assert reads == ["notes/marmalade.md"]
        assert _answer(found) == _as_before(mem, monkeypatch, "marmalade")
    finally:
        path.chmod(0o644)
    _rewrite(mem, "notes/marmalade.md", "---\nscope: [unclosed\n---\nmarmalade\n")
    found = _search(mem, "marmalade")
    assert found.hits == [] and [p.path for p in found.broken] == ["notes/marmalade.md"]
    assert _answer(found) == _as_before(mem, monkeypatch, "marmalade")


def test_an_expired_memory_is_left_out_when_its_time_passes(mem: MemoryRepo, reads: list[str]) -> None:
    assert "notes/expiring.md" in _paths(_search(mem, "tundra", at=NOW))
    assert reads == []
    assert "notes/expiring.md" not in _paths(_search(mem, "tundra", at=NOW + dt.timedelta(days=60)))


def test_other_limits_are_not_served_a_parse_made_under_others(mem: MemoryRepo, reads: list[str]) -> None:
    (mem.root / ".memfs.toml").write_text((mem.root / ".memfs.toml").read_text() + "\n[limits]\ndepth = 31\n")
    assert _paths(_search(mem, "quince")) == ["notes/quince.md"]
    assert reads == ["notes/quince.md"]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 10**6), words=st.lists(st.sampled_from(WORDS), min_size=1, max_size=3))
def test_answers_equal_those_without_anything_kept(mem: MemoryRepo, monkeypatch: pytest.MonkeyPatch, seed: int,
                                                   words: list[str]) -> None:
    """Random edits after indexing (scope, status, expiry, body, removal), then any query, scope
    and time: the answer is the one every file read gives."""
    rng = random.Random(seed)
    for word in rng.sample(WORDS, 3):
        rel = f"notes/{word}.md"
        change = rng.choice(("scope", "status", "body", "expires", "remove", "none"))
        if change == "remove":
            (mem.root / rel).unlink(missing_ok=True)
        elif change != "none":
            over = {"scope": {"scope": "user:U7"}, "status": {"status": "needs_review"},
                    "body": {"description": f"{word} edited {seed}"},
                    "expires": {"expires": "2026-03-01T00:00:00Z"}}[change]
            _rewrite(mem, rel, _memory(word, **over))
    text = " ".join(words)
    for kw in ({}, {"scope": "user:U5"}, {"at": NOW + dt.timedelta(days=60), "explain": True}):
        assert _answer(_search(mem, text, **kw)) == _as_before(mem, monkeypatch, text, **kw)


def test_a_folder_made_unlistable_is_read(mem: MemoryRepo, reads: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """A folder one may enter but not list (``chmod 311``): ``read_file`` cannot open it, and the
    ``lstat`` of the file inside still succeeds with the file's signature unchanged (only the
    folder's own ctime moved). The kept parse must not answer for a file a read would refuse.
    (Root may open any folder, so there both answers are equal.)"""
    folder = mem.root / "notes"
    folder.chmod(0o311)
    try:
        found = _search(mem, "marmalade")
        assert _answer(found) == _as_before(mem, monkeypatch, "marmalade")
    finally:
        folder.chmod(0o755)


# --- memories indexed too soon after their change to be signed -----------------------------------
HOUR = 3_600 * 10**9


def _entry(mem: MemoryRepo, rel: str) -> index_state.Entry:
    return index_state.read(mem.store.cache_dir).files[rel]


@pytest.fixture
def fresh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> MemoryRepo:
    """Memories indexed as soon as they were written: an hour's racy margin makes "just now" too
    recent to sign, whatever the machine's speed."""
    monkeypatch.setattr(paths, "RACY_NS", HOUR)
    repo = new_repo(tmp_path / "mem")
    for word in ("quince", "orchid"):
        (repo.root / f"notes/{word}.md").parent.mkdir(exist_ok=True)
        (repo.root / f"notes/{word}.md").write_text(_memory(word), encoding="utf-8")
    commit_all(repo.root, "memories")
    index.sync(repo.store)
    return repo


def _unsigned(mem: MemoryRepo) -> list[str]:
    return index_state.read(mem.store.cache_dir).signable(2**62)


def _another(mem: MemoryRepo, word: str) -> None:
    """A change for the next catch-up to index (a new memory)."""
    (mem.root / f"notes/{word}.md").write_text(_memory(word), encoding="utf-8")


def test_a_memory_indexed_too_soon_is_signed_by_the_next_catch_up_that_writes_after_the_margin(
        fresh: MemoryRepo, reads: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    waiting = _unsigned(fresh)
    assert {"notes/quince.md", "notes/orchid.md"} <= set(waiting)
    assert _paths(_search(fresh, "quince")) == ["notes/quince.md"]
    assert reads == ["notes/quince.md"]
    _another(fresh, "pylon")
    report = index.sync(fresh.store)
    assert (report.added, report.signed) == (1, 0)  # still within the margin: nothing to sign yet
    monkeypatch.setattr(paths, "RACY_NS", 0)  # the margin has passed
    assert index.sync(fresh.store).signed == 0  # nothing else to write: no commit for a cache alone
    _another(fresh, "saffron")
    report = index.sync(fresh.store)
    assert (report.signed, report.added, report.updated, report.removed) == (len(waiting) + 1, 1, 0, 0)
    assert _unsigned(fresh) == []
    reads.clear()
    assert _paths(_search(fresh, "quince orchid")) == ["notes/orchid.md", "notes/quince.md"]
    assert reads == []
    assert _answer(_search(fresh, "quince")) == _as_before(fresh, monkeypatch, "quince")


def test_an_edit_within_the_margin_is_signed_with_its_new_bytes(fresh: MemoryRepo, reads: list[str],
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    (fresh.root / "notes/quince.md").write_text(_memory("quince", description="quince, edited"), encoding="utf-8")
    assert index.sync(fresh.store).updated == 1
    waiting = _unsigned(fresh)
    assert "notes/quince.md" in waiting
    monkeypatch.setattr(paths, "RACY_NS", 0)
    _another(fresh, "pylon")
    assert index.sync(fresh.store).signed == len(waiting) and _unsigned(fresh) == []
    reads.clear()
    assert [h.memory.description for h in _search(fresh, "quince").hits] == ["quince, edited"]
    assert reads == []


def test_a_memory_changed_long_ago_by_its_mtime_waits_for_its_ctime(fresh: MemoryRepo, reads: list[str],
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """A file written just now with an old mtime (``touch -d``, a restored backup): its ctime says
    now, so its bytes cannot be signed yet; a catch-up before the margin has passed tries and
    leaves it unsigned, and the first one after it signs."""
    target = fresh.root / "notes/tundra.md"
    target.write_text(_memory("tundra"), encoding="utf-8")
    stamp = time.time_ns() - 2 * HOUR
    os.utime(target, ns=(stamp, stamp))
    assert index.sync(fresh.store).added == 1
    _another(fresh, "pylon")
    indexed: list[str] = []
    real = paths.read_signed
    monkeypatch.setattr(paths, "read_signed", lambda root, rel: indexed.append(rel) or real(root, rel))
    report = index.sync(fresh.store)
    monkeypatch.setattr(paths, "read_signed", real)
    assert (report.signed, report.added) == (0, 1) and "notes/tundra.md" in indexed  # tried again
    assert "notes/tundra.md" in _unsigned(fresh)
    monkeypatch.setattr(paths, "RACY_NS", 0)
    _another(fresh, "saffron")
    assert index.sync(fresh.store).signed >= 1 and _unsigned(fresh) == []
    reads.clear()
    assert _paths(_search(fresh, "tundra")) == ["notes/tundra.md"]
    assert reads == []


def test_unsigned_is_kept_in_the_state_file_and_its_journal() -> None:
    entry = index_state.Entry(5, 10, "ab" * 12, (1,) * len(index_state.TEXT_FIELDS), None, True)
    assert index_state.Entry.from_json(entry.to_json()) == entry
    assert len(index_state.Entry.from_json(entry.to_json()[:5]).to_json()) == 5
    with pytest.raises(TypeError):
        index_state.Entry.from_json([*entry.to_json()[:5], 2])
    state = index_state.State("ix")
    state.put("a.md", entry)
    assert state.files["a.md"] == entry and state.signable(6) == ["a.md"] and state.signable(5) == []
    state.put("a.md", dataclasses.replace(entry, unsigned=False))
    assert not state.files["a.md"].unsigned and state.signable(6) == []


def test_one_catch_up_signs_a_bounded_number(fresh: MemoryRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    """After a rebuild over files just checked out, many may wait: each search signs a few."""
    from memfs.index import catchup

    monkeypatch.setattr(catchup, "SIGN_EACH", 2)
    monkeypatch.setattr(paths, "RACY_NS", 0)
    assert len(_unsigned(fresh)) == 3
    signed = []
    for word in ("pylon", "saffron", "lantern"):
        _another(fresh, word)
        signed.append(index.sync(fresh.store).signed)
    assert signed == [2, 1, 0]  # each new memory is signed as it is added: the margin has passed
    assert _unsigned(fresh) == []
