"""The state file and its journal, and the sums kept from the entries that changed: after any
sequence of additions, replacements, touches, removals and saves, what is read back equals what
was written, the kept average lengths and broken files equal a whole count, a save appends only
what changed, and a torn or foreign journal line replays to an older copy that is then written
whole."""

from __future__ import annotations

import dataclasses
import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memfs.index import state as index_state
from memfs.index.documents import TEXT_FIELDS
from memfs.index.state import INDEX_FORMAT, JOURNAL_FILE, STATE_FILE, Entry, State

PATHS = st.sampled_from([f"notes/{name}.md" for name in ("a", "b", "c", "é", 'q"uote', "中文", "back\\slash")])
HEX = st.binary(min_size=12, max_size=12).map(bytes.hex)
ENTRIES = st.builds(
    Entry,
    st.integers(0, 2**62),
    st.integers(0, 10**6),
    HEX | HEX.map(str.upper) | st.text(max_size=8),
    st.none() | st.tuples(*[st.integers(0, 500)] * len(TEXT_FIELDS)),
    st.none() | st.none() | st.text(max_size=12),
)
STEPS = st.lists(st.tuples(st.sampled_from(["put", "touch", "remove", "serial", "save"]), PATHS, ENTRIES),
                 max_size=30)


def _averages(files: dict[str, Entry]) -> dict[str, float]:
    totals, having = [0] * len(TEXT_FIELDS), [0] * len(TEXT_FIELDS)
    for entry in files.values():
        for i, n in enumerate(entry.lengths or ()):
            totals[i] += n
            having[i] += n > 0
    return {name: totals[i] / having[i] if having[i] else 1.0 for i, name in enumerate(TEXT_FIELDS)}


def _same(a: State, b: State) -> bool:
    return ((a.index_dir, a.serial, a.snapshot_ns, a.probe, dict(a.files), a.average_lengths(), a.broken())
            == (b.index_dir, b.serial, b.snapshot_ns, b.probe, dict(b.files), b.average_lengths(), b.broken()))


def _step(state: State, verb: str, rel: str, entry: Entry) -> None:
    if verb == "put":
        state.put(rel, entry)
    elif verb == "touch" and rel in state.files:
        state.put(rel, dataclasses.replace(state.files[rel], mtime_ns=entry.mtime_ns))
    elif verb == "remove":
        state.drop(rel)
    elif verb == "serial":
        state.serial += 1
        state.probe = ["head", sorted(state.files)]


@settings(max_examples=150, deadline=None)
@given(STEPS)
def test_what_is_read_back_is_what_was_written_and_a_save_appends_only_the_changes(
        steps: list[tuple[str, str, Entry]]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        cache = Path(folder)
        state = State("ix-1", probe=["head", ["notes/a.md"]])
        index_state.write(cache, state)
        saved = [state.snapshot()]
        for verb, rel, entry in steps:
            if verb == "save":
                changed = set(state.disk.dirty)
                before = (cache / JOURNAL_FILE).read_bytes() if (cache / JOURNAL_FILE).exists() else b""
                index_state.write(cache, state)
                saved.append(state.snapshot())
                after = (cache / JOURNAL_FILE).read_bytes() if (cache / JOURNAL_FILE).exists() else b""
                if after.startswith(before) and len(after) > len(before):
                    assert set(json.loads(after[len(before):])["files"]) == changed
                assert _same(index_state.read(cache), state)
            else:
                _step(state, verb, rel, entry)
            assert state.average_lengths() == _averages(dict(state.files))
            assert [p.path for p in state.broken()] == sorted(r for r, e in state.files.items() if e.broken is not None)
        whole = json.loads(state.encode("t"))
        assert whole["format"] == INDEX_FORMAT and whole["files"] == {r: e.to_json() for r, e in state.files.items()}
        _a_torn_journal_replays_to_a_saved_copy(cache, saved)


def _a_torn_journal_replays_to_a_saved_copy(cache: Path, saved: list[State]) -> None:
    journal = cache / JOURNAL_FILE
    if not journal.exists():
        return
    data = journal.read_bytes()
    for cut in sorted({0, 1, len(data) // 3, len(data) // 2, len(data) - 1}):
        journal.write_bytes(data[:cut])
        got = index_state.read(cache)
        assert any(_same(got, copy) for copy in saved), cut
        if cut and not data[:cut].endswith(b"\n"):
            # the writer that finds the torn line writes a whole file instead of appending after it
            got.serial += 1
            index_state.write(cache, got)
            assert not journal.exists() and _same(index_state.read(cache), got)
            return
    journal.write_bytes(data)


@given(st.builds(Entry, st.integers(-2**64, 2**64), st.integers(-1, 2**64), HEX | st.text(max_size=30),
                 st.none() | st.tuples(*[st.integers(-1, 2**33)] * len(TEXT_FIELDS)), st.none() | st.text(max_size=5)))
def test_an_entry_is_kept_packed_when_it_can_be_and_reads_back_the_same(entry: Entry) -> None:
    from memfs.index.state import _pack

    state = State("ix", files={"a.md": entry})
    assert state.files["a.md"] == entry and state.stat("a.md") == (entry.mtime_ns, entry.size)
    common = (entry.broken is None and len(entry.digest) == 24 and entry.digest == entry.digest.lower()
              and all(c in "0123456789abcdef" for c in entry.digest) and 0 <= entry.mtime_ns < 2**63
              and 0 <= entry.size < 2**63 and all(0 <= n < 2**32 for n in entry.lengths or ()))
    assert isinstance(_pack(entry), bytes) == common
    assert state.stat("b.md") is None and dict(state.files) == {"a.md": entry}


def test_a_line_that_follows_another_whole_file_is_not_replayed(tmp_path: Path) -> None:
    first = State("ix-1")
    first.put("notes/a.md", Entry(1, 2, "d", (3,) * len(TEXT_FIELDS)))
    index_state.write(tmp_path, first)
    first.put("notes/b.md", Entry(4, 5, "e", (6,) * len(TEXT_FIELDS)))
    index_state.write(tmp_path, first)
    stale = (tmp_path / JOURNAL_FILE).read_bytes()
    assert b"notes/b.md" in stale and b"notes/a.md" not in stale
    other = State("ix-1")
    other.put("notes/c.md", Entry(7, 8, "f", None, "bad yaml"))
    index_state.write(tmp_path, other)  # a whole file of another writer, then the old line again
    (tmp_path / JOURNAL_FILE).write_bytes(stale)
    got = index_state.read(tmp_path)
    assert dict(got.files) == dict(other.files) and got.disk.token == ""
    got.put("notes/d.md", Entry(9, 9, "g", None))
    index_state.write(tmp_path, got)
    assert not (tmp_path / JOURNAL_FILE).exists()
    assert set(index_state.read(tmp_path).files) == {"notes/c.md", "notes/d.md"}


def test_the_journal_is_folded_into_the_whole_file_past_its_share(tmp_path: Path) -> None:
    state = State("ix-1", files={f"notes/m{i}.md": Entry(i, i, "d" * 24, (i % 9,) * len(TEXT_FIELDS))
                                 for i in range(2000)})
    index_state.write(tmp_path, state)
    base = (tmp_path / STATE_FILE).stat().st_size
    wholes = 0
    for i in range(3000):
        state.put(f"notes/m{i % 2000}.md", Entry(10**9 + i, i, "e" * 24, (1,) * len(TEXT_FIELDS)))
        token = state.disk.token
        index_state.write(tmp_path, state)
        wholes += state.disk.token != token
        journal = tmp_path / JOURNAL_FILE
        size = journal.stat().st_size if journal.exists() else 0
        assert size <= max(index_state.COMPACT_MIN, index_state.COMPACT_SHARE * base) + 300
    assert 1 <= wholes < 3000 // 100
    assert _same(index_state.read(tmp_path), state)


def test_another_writers_save_makes_this_one_write_whole(tmp_path: Path) -> None:
    """A writer appends only when the files are the version it read or wrote: lines appended
    after another process's save would replay onto a state they were not computed from."""
    mine = State("ix-1")
    mine.put("notes/a.md", Entry(1, 2, "d", None))
    index_state.write(tmp_path, mine)
    theirs = index_state.read(tmp_path)
    theirs.put("notes/b.md", Entry(3, 4, "e", None))
    index_state.write(tmp_path, theirs)
    mine.put("notes/c.md", Entry(5, 6, "f", None))
    index_state.write(tmp_path, mine)
    assert not (tmp_path / JOURNAL_FILE).exists()
    assert set(index_state.read(tmp_path).files) == {"notes/a.md", "notes/c.md"}


def test_an_entry_cannot_change_in_place_and_files_are_read_only() -> None:
    entry = Entry(1, 2, "d", None)
    state = State("ix", files={"a.md": entry})
    def put_directly() -> None:
        state.files["b.md"] = entry  # type: ignore[index]

    for change in (lambda: setattr(entry, "size", 3), put_directly):
        try:
            change()
        except (dataclasses.FrozenInstanceError, TypeError):
            continue
        raise AssertionError("entries are frozen and files change only through put and drop")


def test_threads_sharing_one_parsed_state_get_the_whole_counts() -> None:
    """One parsed state is handed to every thread's reader; what they read while a writer changes
    it is always a whole count (the kept sums change under a lock)."""
    import sys
    import threading

    files = {f"m{i}.md": Entry(i, i, "d", (1 + i % 7,) * len(TEXT_FIELDS)) for i in range(2_000)}
    expected = _averages(files)
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        state = State("ix", files=dict(files))
        start, got = threading.Barrier(3), []

        def read() -> None:
            start.wait()
            got.extend(state.average_lengths() for _ in range(200))

        def write() -> None:
            start.wait()
            for i in range(200):
                state.put(f"m{i}.md", files[f"m{i}.md"])

        threads = [threading.Thread(target=read), threading.Thread(target=read), threading.Thread(target=write)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert got == [expected] * 400 and state.average_lengths() == expected
    finally:
        sys.setswitchinterval(interval)


def test_what_a_reader_holds_never_changes_under_a_writer(tmp_path: Path) -> None:
    """The state a reader gets (``cached``) is a copy: the writer going on with its own object
    (the live index's next update, or one that fails half-way) changes nothing the reader holds."""
    writer = State("ix-1", probe=["head", ["notes/a.md"]])
    writer.put("notes/a.md", Entry(1, 2, "d", (3,) * len(TEXT_FIELDS)))
    index_state.write(tmp_path, writer)
    held = index_state.cached(tmp_path)
    before = (dict(held.files), held.probe, held.average_lengths(), held.encode("t"), held.broken())
    writer.put("notes/b.md", Entry(5, 6, "e", (9,) * len(TEXT_FIELDS), "broken"))
    writer.drop("notes/a.md")
    assert writer.probe is not None
    writer.probe[1].append("notes/b.md")
    assert (dict(held.files), held.probe, held.average_lengths(), held.encode("t"), held.broken()) == before
    assert index_state.cached(tmp_path) is held


def test_a_writers_private_copy_is_the_parsed_one_copied_and_appends_to_it(tmp_path: Path) -> None:
    """A writer after a reader's parse (a catch-up deciding, the live index's start) copies that
    parse instead of parsing again; the copy is its own and still appends to the files."""
    first = State("ix-1", probe=["head", []])
    first.put("notes/a.md", Entry(1, 2, "d", (3,) * len(TEXT_FIELDS)))
    index_state.write(tmp_path, first)
    index_state._parsed.clear()
    held = index_state.cached(tmp_path)
    mine = index_state.private(tmp_path)
    assert mine is not held and _same(mine, held)
    mine.put("notes/b.md", Entry(4, 5, "e", None, "broken"))
    index_state.write(tmp_path, mine)
    assert set(held.files) == {"notes/a.md"} and (tmp_path / JOURNAL_FILE).exists()
    assert _same(index_state.read(tmp_path), mine) and _same(index_state.private(tmp_path), mine)


def test_the_whole_file_reads_entry_by_entry_and_any_other_layout_whole(tmp_path: Path) -> None:
    """The whole file is read one entry at a time when laid out as memfs writes it; the same JSON
    laid out otherwise (spaces, another key order, no token: an older memfs's) reads the same, and
    a cut or broken file is a bad state, never a traceback."""
    state = State("ix-1", serial=3, snapshot_ns=5, probe=["head", ["notes/a.md", 'q",files":{x']])
    for i, rel in enumerate(["notes/a.md", 'q",files":{x', "中文.md", "b.md"]):
        state.put(rel, Entry(i, i + 1, bytes([i] * 12).hex(), (i,) * len(TEXT_FIELDS) if i % 2 else None,
                             "bad" if i == 3 else None))
    index_state.write(tmp_path, state)
    written = (tmp_path / STATE_FILE).read_bytes()
    raw = json.loads(written)
    files = raw.pop("files")
    layouts = [written, json.dumps({**raw, "files": files}, indent=1).encode(),
               json.dumps({"files": files, **raw}).encode(),
               json.dumps({k: v for k, v in {**raw, "files": files}.items() if k != "token"}).encode()]
    for data in layouts:
        (tmp_path / STATE_FILE).write_bytes(data)
        got = index_state.read(tmp_path)
        assert dict(got.files) == dict(state.files) and (got.serial, got.probe) == (3, state.probe)
    for data in (written[:-1], written[: len(written) // 2] + b"}}", written.replace(b'":[', b'":[[', 1),
                 written.replace(b'"files":{', b'"files":{1:', 1)):
        (tmp_path / STATE_FILE).write_bytes(data)
        try:
            index_state.read(tmp_path)
        except index_state.BadState:
            continue
        raise AssertionError(data)


def test_a_reader_racing_a_whole_write_keeps_no_key_its_parse_is_not(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """A reader takes the files' key (the whole file's identity, then the journal's size), then
    reads them, without the index lock. A writer's whole save (the new file renamed in, then the
    old journal removed) between the two leaves the reader the new whole file and the old
    journal's size. That parse must not be kept under that key: once the new journal grows to
    the old one's size, the key is the files' again, and every reader and writer of the process
    would take the parse, which lacks the new journal's lines, for them."""
    entry = Entry(1, 2, "d" * 24, (3,) * len(TEXT_FIELDS))
    writer = State("ix-1", serial=1)
    writer.put("notes/x.md", entry)
    index_state.write(tmp_path, writer)
    writer.put("notes/y.md", entry)
    writer.serial = 2
    index_state.write(tmp_path, writer)  # one journal line
    old_journal = (tmp_path / JOURNAL_FILE).stat().st_size
    compacted = index_state.read(tmp_path)
    (tmp_path / STATE_FILE).write_bytes(compacted.encode("t" * 16))  # the rename; the old journal still there
    index_state._parsed.clear()
    real = index_state._journal

    def journal_removed_meanwhile(cache: Path, size: int) -> bytes:
        (cache / JOURNAL_FILE).unlink(missing_ok=True)
        return real(cache, size)

    monkeypatch.setattr(index_state, "_journal", journal_removed_meanwhile)
    assert set(index_state.cached(tmp_path).files) == {"notes/x.md", "notes/y.md"}
    monkeypatch.setattr(index_state, "_journal", real)
    other = index_state.read(tmp_path)  # the writer (another process) appends its next line
    other.put("notes/z.md", entry)
    line = other.journal_line()
    assert len(line) == old_journal
    with open(tmp_path / JOURNAL_FILE, "ab") as handle:
        handle.write(line)
    assert set(index_state.cached(tmp_path).files) == {"notes/x.md", "notes/y.md", "notes/z.md"}
    assert set(index_state.private(tmp_path).files) == {"notes/x.md", "notes/y.md", "notes/z.md"}


def test_a_number_no_integer_holds_is_a_bad_state_or_a_line_not_replayed(tmp_path: Path) -> None:
    """JSON reads ``1e400`` as infinity, which no serial or time converts to: the whole file is
    then a bad state (the caller rebuilds) and a journal line one that does not replay (an older
    copy, written whole next), never an error of another kind."""
    state = State("ix-1", serial=3, snapshot_ns=5)
    state.put("notes/a.md", Entry(1, 2, "d" * 24, (3,) * len(TEXT_FIELDS)))
    index_state.write(tmp_path, state)
    written = (tmp_path / STATE_FILE).read_bytes()
    for field in (b'"serial":3', b'"snapshot_ns":5'):
        (tmp_path / STATE_FILE).write_bytes(written.replace(field, field.split(b":")[0] + b":1e400"))
        with pytest.raises(index_state.BadState):
            index_state.read(tmp_path)
    (tmp_path / STATE_FILE).write_bytes(written)
    state = index_state.read(tmp_path)
    state.put("notes/b.md", Entry(4, 5, "e" * 24, None))
    state.serial = 4
    (tmp_path / JOURNAL_FILE).write_bytes(state.journal_line().replace(b'"serial":4', b'"serial":1e400'))
    got = index_state.read(tmp_path)
    assert set(got.files) == {"notes/a.md"} and got.serial == 3 and got.disk.token == ""
