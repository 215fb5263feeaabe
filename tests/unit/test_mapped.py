"""The in-place reader of whoosh's segment files reads what ``BytesIO`` over a copy reads, for any
sequence of reads, line reads and seeks (whoosh's readers use exactly these)."""

from __future__ import annotations

import io
import os
import pickle

from hypothesis import given
from hypothesis import strategies as st

from memfs.index.mapped import MappedFile, Window

OPS = st.lists(st.one_of(
    st.tuples(st.just("read"), st.none() | st.integers(-1, 40)),
    st.tuples(st.just("readline"), st.none() | st.integers(-1, 40)),
    st.tuples(st.just("seek"), st.tuples(st.integers(0, 60), st.sampled_from([os.SEEK_SET, os.SEEK_CUR]))),
    st.tuples(st.just("seek_end"), st.integers(-30, 0)),
    st.tuples(st.just("tell"), st.none()),
    st.tuples(st.just("peek"), st.integers(-1, 40)),
), max_size=30)


@given(st.binary(max_size=50) | st.text("ab\n", max_size=50).map(str.encode), OPS)
def test_a_window_reads_as_bytesio_does(data: bytes, ops: list) -> None:
    window, copy = Window(memoryview(data)), io.BytesIO(data)
    for op, arg in ops:
        if op == "seek":
            assert window.seek(*arg) == copy.seek(*arg)
        elif op == "seek_end":
            if len(data) + arg >= 0:
                assert window.seek(arg, os.SEEK_END) == copy.seek(arg, os.SEEK_END)
        elif op == "tell":
            assert window.tell() == copy.tell()
        elif op == "peek":
            at = copy.tell()
            rest, ahead = data[at:], window.peek(arg)
            assert rest.startswith(ahead) and (ahead or not rest) and window.tell() == at
        else:
            assert getattr(window, op)(arg) == getattr(copy, op)(arg), (op, arg)


def test_a_mapped_file_reads_pickles_and_numbers_in_place() -> None:
    data = bytearray(b"\x00" * 3)
    data += pickle.dumps({"x": [1, 2, 3]}, -1)
    data += (12345).to_bytes(4, "big") + b"tail\nmore"
    view = memoryview(bytes(data))
    mapped = MappedFile(view, name="f")
    mapped.seek(3)
    assert mapped.read_pickle() == {"x": [1, 2, 3]}
    assert mapped.read_uint() == 12345 and mapped.readline() == b"tail\n" and mapped.read() == b"more"
    assert mapped.get(0, 3) == b"\x00" * 3
    mapped.close()
    assert mapped.is_closed


def test_a_pickle_is_read_in_a_peek_and_a_read_not_a_read_per_opcode() -> None:
    """The C unpickler reads a file that has ``peek`` a buffer at a time (a posting block's header
    is one pickle, read once per block of every term a search asks for)."""
    header = pickle.dumps((128, 4711, 3.5, 3, 12, 200), -1)
    long = pickle.dumps(list(range(2000)), -1)
    reads: list[int | None] = []

    class Counted(Window):
        __slots__ = ()

        def read(self, size: int | None = -1) -> bytes:
            reads.append(size)
            return super().read(size)

    mapped = MappedFile(memoryview(header + long + header), name="f")
    mapped.file = Counted(memoryview(header + long + header))
    assert mapped.read_pickle() == (128, 4711, 3.5, 3, 12, 200) and mapped.tell() == len(header)
    assert len(reads) <= 2
    assert mapped.read_pickle() == list(range(2000)) and mapped.tell() == len(header) + len(long)
    assert mapped.read_pickle() == (128, 4711, 3.5, 3, 12, 200) and mapped.read() == b""
