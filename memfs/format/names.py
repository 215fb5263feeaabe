"""Names of memory files and memory ids: any script, one normal form, nothing a file system or git
cannot hold.

A path like ``笔记/会议.md``, ``notes/a b.md`` or ``über.md`` is as good as ``notes/x.md``. Names are
compared in Unicode NFC, so ``über`` typed with a combining umlaut (as macOS keyboards and file
systems produce it) is the same file as ``über`` typed precomposed. Refused everywhere, with a
message saying which part and why: control characters and NUL (a terminal or a log line can be
spoofed with them; git and most tools cannot show them), line and paragraph separators, the
bidirectional controls that make text display in another order than it is stored, backslashes
(a separator on Windows), ``.`` and ``..`` parts, a part named ``.git`` in any case (git refuses
to track it), parts that begin or end with a space or end with a dot (Windows drops them, so two
names would become one file), and parts longer than 255 bytes in UTF-8 (the limit of Linux,
macOS and Windows file systems).

Pure functions; :func:`memfs.store.paths.confine` applies them to every path a caller gives, and
:mod:`memfs.format.validate` to every file and id it reads.
"""

from __future__ import annotations

import os
import posixpath
import unicodedata

#: Longest file or folder name, in UTF-8 bytes (ext4, APFS and NTFS all stop at about 255).
MAX_PART_BYTES = 255
#: Characters that reorder how text is displayed (the "Trojan Source" controls).
_BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


def is_nfc(text: str) -> bool:
    return unicodedata.is_normalized("NFC", text)


#: Names memfs gives a meaning to at the top of the memory root (core memory, its caches and
#: settings, git's own), compared in their folded form (:func:`folded`).
RESERVED_TOP = ("system", ".memfs", ".git", ".memfs.toml", ".memfsignore")


def folded(text: str) -> str:
    """``text`` as a reader sees it: NFKC, case-folded, NFKC again (``ＳＹＳＴＥＭ`` is ``system``)."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())


def look_alike(rel: str) -> str | None:
    """Why the first part of ``rel`` passes for a reserved name it is not, or ``None``: ``SYSTEM/``
    or a full-width ``ｓｙｓｔｅｍ/`` would be listed and labelled like core memory without being it."""
    first = rel.split("/", 1)[0]
    if first.isascii() and first.islower() and first not in RESERVED_TOP:
        return None
    shape = folded(first)
    for name in RESERVED_TOP:
        if shape == name and first != name:
            return (f"part {first!r} looks like the reserved name {name!r} (names are compared after NFKC and "
                    "case folding); pick another name")
    return None


def is_utf8(name: str) -> bool:
    """Whether ``name`` (as the OS layer decodes file names, undecodable bytes as lone surrogates)
    is valid UTF-8: a name that is not cannot be indexed, shown or committed as text."""
    return name.isascii() or not any(0xD800 <= ord(char) <= 0xDFFF for char in name)


def shown(name: str) -> str:
    """``name`` printable whatever its bytes: undecodable bytes as ``\\xNN``."""
    return name if is_utf8(name) else os.fsencode(name).decode("utf-8", "backslashreplace")


def char_problem(text: str) -> str | None:
    """Why ``text`` holds a character no name may hold, or ``None``. Printable ASCII holds none of
    them (the ASCII controls are exactly its unprintable characters; the rest are not ASCII), so
    most names are judged without a look at each character."""
    if text.isascii() and text.isprintable():
        return None
    for char in text:
        category = unicodedata.category(char)
        if char == "\x00":
            return "contains a NUL character"
        if category == "Cc":
            return f"contains the control character U+{ord(char):04X}"
        if category in ("Zl", "Zp"):
            return f"contains the line separator U+{ord(char):04X}"
        if category == "Cs":
            return f"contains the lone surrogate U+{ord(char):04X} (not valid Unicode text)"
        if char in _BIDI_CONTROLS:
            return f"contains the bidirectional control U+{ord(char):04X}, which changes how the name is displayed"
    return None


def part_problem(part: str) -> str | None:
    """Why one ``/``-separated part of a path cannot be a file or folder name, or ``None``."""
    if part in ("", ".", ".."):
        return "has an empty, '.' or '..' part"
    if folded(part) == ".git":
        return "has a part named .git, which git refuses to track"
    if "\\" in part:
        return "contains a backslash (a separator on Windows); use '/'"
    if part != part.strip():
        return f"part {part!r} begins or ends with a space"
    if part.endswith("."):
        return f"part {part!r} ends with a dot, which Windows drops"
    size = len(part.encode("utf-8", "surrogatepass"))
    if size > MAX_PART_BYTES:
        return f"part {part[:20]!r}... is {size} bytes long in UTF-8; the limit is {MAX_PART_BYTES}"
    return None


def path_problem(rel: str) -> str | None:
    """Why the root-relative POSIX path ``rel`` cannot name a memory file, or ``None``."""
    why = char_problem(rel)
    if why:
        return why
    if rel.startswith("/"):
        return "is absolute; give a path relative to the memory root"
    for part in rel.split("/"):
        why = part_problem(part)
        if why:
            return why
    why = look_alike(rel)
    if why:
        return why
    stem = posixpath.splitext(posixpath.basename(rel))[0]
    if stem != stem.strip():
        return f"name {posixpath.basename(rel)!r} has a space before its extension (its id would end with one)"
    return None


def id_problem(memory_id: str) -> str | None:
    """Why ``memory_id`` is not a usable id, or ``None``. An id may be any text a path may be
    (the default id is the path without ``.md``), on one line, without surrounding spaces."""
    if not memory_id.strip():
        return "is empty"
    if memory_id != memory_id.strip():
        return "begins or ends with a space"
    return char_problem(memory_id)


def default_id(path: str) -> str:
    """The id of a memory that names none: its path without ``.md``, unique by construction."""
    return posixpath.splitext(path)[0]
