"""Which files are memories, and keeping every path inside the memory root.

A memory is any ``*.md`` file under the root except ``README.md`` files, paths matched by
``.memfsignore`` (gitignore syntax), and anything under a dot-directory (``.git/``, ``.memfs/``,
``.github/``...) or named with a leading dot (editor and atomic-write temporaries).
"""

from __future__ import annotations

import functools
import os
import posixpath
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import unquote

from memfs.errors import PathError
from memfs.format import names

if TYPE_CHECKING:
    from pathspec import GitIgnoreSpec

IGNORE_FILE = ".memfsignore"
CACHE_DIR = ".memfs"


def ignore_spec(root: Path) -> GitIgnoreSpec | None:
    """The compiled ``.memfsignore`` of ``root`` (``None`` without one); compiled once per version
    of the file, since every path check in a bulk operation asks for it."""
    ignore = root / IGNORE_FILE
    try:
        st = ignore.stat()
    except (FileNotFoundError, NotADirectoryError):
        return None
    if not stat.S_ISREG(st.st_mode):
        return None
    return _compiled(str(ignore), st.st_mtime_ns, st.st_size)


@functools.lru_cache(maxsize=16)
def _compiled(path: str, mtime_ns: int, size: int) -> GitIgnoreSpec:
    import pathspec

    with open(path, encoding="utf-8") as handle:
        return pathspec.GitIgnoreSpec.from_lines(handle.read().splitlines())


def is_memory_name(rel: str) -> bool:
    """Whether a root-relative path names a memory by its shape alone (no ignore file)."""
    parts = rel.split("/")
    return rel.endswith(".md") and parts[-1] != "README.md" and not any(p.startswith(".") for p in parts)


def iter_memory_paths(root: Path) -> Iterator[str]:
    """Root-relative paths of every memory file, sorted, following no symlinked directory."""
    spec = ignore_spec(root)
    found: list[str] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        rel_dir = os.path.relpath(dirpath, root).replace(os.sep, "/")
        for name in filenames:
            rel = name if rel_dir == "." else f"{rel_dir}/{name}"
            if is_memory_name(rel):
                found.append(rel)
    if spec is not None:
        found = [p for p in found if not spec.match_file(p)]
    yield from sorted(found, key=sort_key)


def sort_key(rel: str) -> tuple[int, str]:
    """``system/`` first, then everything else, each by path."""
    return (0 if rel.startswith("system/") else 1, rel)


def is_ignored(root: Path, rel: str) -> bool:
    spec = ignore_spec(root)
    return spec is not None and spec.match_file(rel)


def _fully_unquoted(text: str) -> str:
    """``text`` URL-decoded until it stops changing, so double encoding (``%252e``) is seen too."""
    for _ in range(5):
        decoded = unquote(text)
        if decoded == text:
            break
        text = decoded
    return text


def confine(root: Path, path: str | os.PathLike[str], *, must_be_memory: bool = True) -> str:
    """The root-relative POSIX form of ``path``, or :class:`PathError` if it leaves the root.

    Relative paths are taken relative to the memory root. Refused: NUL bytes, URL-encoded
    traversal, ``..`` that escapes, absolute paths elsewhere, symlinks that resolve outside,
    anything under ``.git/`` or ``.memfs/``, names :func:`memfs.format.names.path_problem`
    refuses, and (by default) names that are not memories. The path is taken in Unicode NFC,
    unless only the form as given exists on disk (a file named on a system that decomposes).
    """
    text = _normal_form(root, os.fspath(path))
    if "\x00" in text:
        raise PathError(f"{text!r}: a path may not contain a NUL byte")
    decoded = _fully_unquoted(text)
    if decoded != text and (
        ".." in decoded.replace("\\", "/").split("/") or "\x00" in decoded or decoded.startswith("/")
    ):
        raise PathError(f"{text}: URL-encoded traversal is not accepted; write the path plainly")
    root_real = Path(os.path.realpath(root))
    candidate = Path(text) if os.path.isabs(text) else root / text
    lexical = os.path.normpath(os.path.abspath(candidate))
    rel_lexical = os.path.relpath(lexical, os.path.abspath(root))
    if rel_lexical == ".." or rel_lexical.startswith(".." + os.sep) or os.path.isabs(rel_lexical):
        raise PathError(f"{text}: is outside the memory root {root}")
    real = os.path.realpath(lexical)
    if os.path.relpath(real, root_real).startswith(".."):
        raise PathError(f"{text}: resolves (through a symlink) outside the memory root {root}")
    rel = posixpath.normpath(rel_lexical.replace(os.sep, "/"))
    first = rel.split("/")[0]
    if first in (".git", CACHE_DIR):
        raise PathError(f"{text}: files under {first}/ are not memories and may not be touched")
    if must_be_memory and not is_memory_name(rel):
        raise PathError(f"{text}: is not a memory file (memories are *.md files, not README.md, not hidden)")
    why = None if rel == "." else names.path_problem(rel)
    if why:
        raise PathError(f"{text!r}: {why}")
    return rel


def _normal_form(root: Path, text: str) -> str:
    """``text`` in NFC, so one name typed two ways is one file; as given if only that exists."""
    normal = names.nfc(text)
    if normal != text and not os.path.lexists(root / normal) and os.path.lexists(root / text):
        return text
    return normal


def stat_memory_files(root: Path) -> dict[str, tuple[int, int]]:
    """``rel -> (mtime_ns, size)`` of every memory file (the rules of :func:`iter_memory_paths`), by
    one ``scandir`` walk: what the search index compares with its snapshot to find changed files."""
    found: dict[str, tuple[int, int]] = {}
    stack = [(str(root), "")]
    while stack:
        directory, prefix = stack.pop()
        try:
            entries = os.scandir(directory)
        except OSError:
            continue
        with entries:
            for entry in entries:
                name = entry.name
                if name.startswith("."):
                    continue
                try:
                    if entry.is_dir(follow_symlinks=False):
                        stack.append((entry.path, prefix + name + "/"))
                    elif name.endswith(".md") and name != "README.md":
                        st = entry.stat()
                        found[prefix + name] = (st.st_mtime_ns, st.st_size)
                except OSError:
                    continue
    spec = ignore_spec(root)
    if spec is not None:
        found = {rel: st for rel, st in found.items() if not spec.match_file(rel)}
    return found
