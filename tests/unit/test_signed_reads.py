"""A memory file's signature (``paths.read_signed``) and the ``lstat``-only check that it still
holds (``paths.signed_unchanged``): what lets the index serve the parse it kept instead of reading
the file. Every way a file can stop being the bytes that were read must break the signature, and
a file changed too recently to tell by its times gets none."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from memfs.store import paths

OLD_NS = 1_600_000_000 * 10**9


@pytest.fixture
def settled(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every file counts as changed long ago: the ctime of a file a test just wrote is "now", and
    a test cannot move it back (the shifted margin stands in for waiting)."""
    monkeypatch.setattr(paths, "RACY_NS", -3_600 * 10**9)


def _write(root: Path, rel: str, text: str, mtime_ns: int = OLD_NS) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    os.utime(path, ns=(mtime_ns, mtime_ns))
    return path


def _signed(root: Path, rel: str) -> paths.Signature:
    data, signature = paths.read_signed(root, rel)
    assert isinstance(data, bytes) and signature is not None
    assert data == paths.read_file(root, rel)
    return signature


def test_a_file_just_changed_gets_no_signature(tmp_path: Path) -> None:
    _write(tmp_path, "a.md", "---\nscope: user:U5\n---\nbody\n")
    data, signature = paths.read_signed(tmp_path, "a.md")
    assert data == b"---\nscope: user:U5\n---\nbody\n" and signature is None


@pytest.mark.usefixtures("settled")
def test_an_untouched_file_keeps_its_signature(tmp_path: Path) -> None:
    _write(tmp_path, "notes/deep/a.md", "one\n")
    signature = _signed(tmp_path, "notes/deep/a.md")
    assert paths.signed_unchanged(tmp_path, "notes/deep/a.md", signature)
    assert not paths.signed_unchanged(tmp_path, "notes/deep/b.md", signature)


@pytest.mark.usefixtures("settled")
def test_a_rewrite_of_the_same_length_breaks_it(tmp_path: Path) -> None:
    path = _write(tmp_path, "a.md", "scope: user:U5\n")
    signature = _signed(tmp_path, "a.md")
    _write(tmp_path, "a.md", "scope: user:U7\n", OLD_NS + 1)
    assert path.stat().st_size == signature[3]
    assert not paths.signed_unchanged(tmp_path, "a.md", signature)


@pytest.mark.usefixtures("settled")
def test_a_replacement_a_removal_a_rename_and_a_chmod_break_it(tmp_path: Path) -> None:
    path = _write(tmp_path, "a.md", "text\n")
    signature = _signed(tmp_path, "a.md")
    other = _write(tmp_path, "b.md", "text\n")
    os.replace(other, path)  # same bytes and times, another inode
    assert not paths.signed_unchanged(tmp_path, "a.md", signature)
    signature = _signed(tmp_path, "a.md")
    os.chmod(path, 0)
    assert not paths.signed_unchanged(tmp_path, "a.md", signature)
    os.chmod(path, 0o644)
    signature = _signed(tmp_path, "a.md")
    os.rename(path, tmp_path / "c.md")
    assert not paths.signed_unchanged(tmp_path, "a.md", signature)
    path.unlink(missing_ok=True)
    assert not paths.signed_unchanged(tmp_path, "a.md", signature)


@pytest.mark.usefixtures("settled")
def test_a_symlinked_folder_a_hard_link_or_a_folder_in_its_place_break_it(tmp_path: Path) -> None:
    _write(tmp_path, "real/a.md", "text\n")
    signature = _signed(tmp_path, "real/a.md")
    (tmp_path / "link").symlink_to(tmp_path / "real")
    assert not paths.signed_unchanged(tmp_path, "link/a.md", signature)
    os.link(tmp_path / "real/a.md", tmp_path / "elsewhere.md")
    assert not paths.signed_unchanged(tmp_path, "real/a.md", signature)
    (tmp_path / "elsewhere.md").unlink()
    (tmp_path / "real/a.md").unlink()
    (tmp_path / "real/a.md").mkdir()
    assert not paths.signed_unchanged(tmp_path, "real/a.md", signature)


@pytest.mark.usefixtures("settled")
def test_what_is_not_read_is_not_signed(tmp_path: Path) -> None:
    (tmp_path / "target.md").write_text("text\n", encoding="utf-8")
    (tmp_path / "a.md").symlink_to(tmp_path / "target.md")
    found, signature = paths.read_signed(tmp_path, "a.md")
    assert isinstance(found, paths.Unreadable) and signature is None
    assert paths.read_signed(tmp_path, "missing.md") == (None, None)


def test_the_racy_margin_counts_from_before_the_fstat(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file changed just before its ``fstat`` is racy however long its read then takes (a
    process descheduled mid-read on a loaded machine): a write right after that ``fstat``, in the
    same timestamp tick, would leave the times it read unchanged. So the clock compared with its
    times is the one read before the ``fstat``, not after the bytes."""
    _write(tmp_path, "a.md", "one\n", mtime_ns=paths.time.time_ns())
    real_time_ns = paths.time.time_ns
    late = [0]
    real_read = paths._read_regular

    def slow_read(*args: object, **kw: object) -> object:
        late[0] = 10 * 10**9  # the clock once the bytes are in: 10 s on
        return real_read(*args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(paths, "_read_regular", slow_read)
    monkeypatch.setattr(paths.time, "time_ns", lambda: real_time_ns() + late[0])
    data, signature = paths.read_signed(tmp_path, "a.md")
    assert data == b"one\n" and signature is None
