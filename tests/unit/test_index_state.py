"""The state file's encoding and average field lengths, both kept up to date from the entries
that changed: they must equal a whole encode and a whole count after any sequence of additions,
replacements, touches and removals."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from memfs.index.documents import TEXT_FIELDS
from memfs.index.state import INDEX_FORMAT, Entry, State

PATHS = st.sampled_from([f"notes/{name}.md" for name in ("a", "b", "c", "é", 'q"uote', "中文", "back\\slash")])
ENTRIES = st.builds(
    Entry,
    st.integers(0, 2**62),
    st.integers(0, 10**6),
    st.text(max_size=8),
    st.none() | st.lists(st.integers(0, 500), min_size=len(TEXT_FIELDS), max_size=len(TEXT_FIELDS)),
    st.none() | st.text(max_size=12),
)
STEPS = st.lists(st.tuples(st.sampled_from(["put", "touch", "remove", "serial"]), PATHS, ENTRIES), max_size=25)


def _averages(state: State) -> dict[str, float]:
    totals, having = [0] * len(TEXT_FIELDS), [0] * len(TEXT_FIELDS)
    for entry in state.files.values():
        for i, n in enumerate(entry.lengths or ()):
            totals[i] += n
            having[i] += n > 0
    return {name: totals[i] / having[i] if having[i] else 1.0 for i, name in enumerate(TEXT_FIELDS)}


def _whole(state: State) -> bytes:
    return json.dumps({
        "format": INDEX_FORMAT, "index_dir": state.index_dir, "serial": state.serial,
        "snapshot_ns": state.snapshot_ns, "probe": state.probe,
        "files": {rel: entry.to_json() for rel, entry in state.files.items()},
    }, separators=(",", ":")).encode()


@settings(max_examples=200)
@given(STEPS)
def test_encoding_only_the_changes_gives_the_whole_encoding(steps: list[tuple[str, str, Entry]]) -> None:
    state = State("ix-1", probe=["head", ["notes/a.md"]])
    for verb, rel, entry in steps:
        if verb == "put":
            state.files[rel] = entry
        elif verb == "touch" and rel in state.files:
            state.files[rel] = dataclasses.replace(state.files[rel], mtime_ns=entry.mtime_ns)
        elif verb == "remove":
            state.files.pop(rel, None)
        else:
            state.serial += 1
        assert state.encode() == _whole(state)
        assert state.average_lengths() == _averages(state)
    assert json.loads(state.encode())["files"] == {rel: e.to_json() for rel, e in state.files.items()}


def test_an_entry_cannot_change_in_place() -> None:
    entry = Entry(1, 2, "d", None)
    try:
        entry.size = 3  # type: ignore[misc]
    except dataclasses.FrozenInstanceError:
        return
    raise AssertionError("Entry must be frozen: the state file keeps each entry's encoding")


def test_threads_sharing_one_parsed_state_get_the_whole_counts() -> None:
    """One parsed state is handed to every thread's reader; their first ``average_lengths`` at
    the same moment must not count an entry twice (the kept sums are updated under a lock)."""
    import sys
    import threading

    files = {f"m{i}.md": Entry(i, i, "d", [1 + i % 7] * len(TEXT_FIELDS)) for i in range(20_000)}
    expected = _averages(State("ix", files=dict(files)))
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        for _ in range(3):
            state = State("ix", files=dict(files))
            start, got = threading.Barrier(3), []

            def read(state: State = state, start: threading.Barrier = start, got: list = got) -> None:
                start.wait()
                got.append(state.average_lengths())

            threads = [threading.Thread(target=read) for _ in range(3)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            assert got == [expected] * 3 and state.average_lengths() == expected
    finally:
        sys.setswitchinterval(interval)


def test_what_a_reader_holds_never_changes_under_a_writer(tmp_path: Path) -> None:
    """The state a reader gets (``cached``) is a copy: the writer going on with its own object
    (the live index's next update, or one that fails half-way) changes nothing the reader holds."""
    from memfs.index import state as index_state

    writer = State("ix-1", probe=["head", ["notes/a.md"]])
    writer.files["notes/a.md"] = Entry(1, 2, "d", [3] * len(TEXT_FIELDS))
    index_state.write(tmp_path, writer)
    held = index_state.cached(tmp_path)
    before = (dict(held.files), held.probe, held.average_lengths(), held.encode())
    writer.files["notes/b.md"] = Entry(5, 6, "e", [9] * len(TEXT_FIELDS))
    writer.files.pop("notes/a.md")
    assert writer.probe is not None
    writer.probe[1].append("notes/b.md")
    writer.average_lengths()
    assert (dict(held.files), held.probe, held.average_lengths(), held.encode()) == before
    assert index_state.cached(tmp_path) is held
