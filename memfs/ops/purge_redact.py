"""What purge's history rewrite runs on every commit and tag message: :func:`redact_message`.

git-filter-repo runs it in a Python of its own (its ``--message-callback`` imports it from here),
so this module imports nothing of memfs but itself and the standard library: the callback's import
is paid by every purge, and importing :mod:`memfs.ops.purge` there (the store, the format, the
policy layers) cost ~0.3 s of CPU, most of what the rewrite's own Python spent.
"""

from __future__ import annotations

import functools
import json
import re


def normalized(data: bytes) -> bytes:
    """``data`` with every run of whitespace one space: a quote re-wrapped is still found."""
    return b" ".join(data.split())


def path_pattern(git_paths: tuple[str, ...] | list[str]) -> re.Pattern[bytes] | None:
    """The memory's paths, each whole (not inside a longer path or word); ``None`` without any."""
    names = [re.escape(p.encode("utf-8")) for p in git_paths if p]
    if not names:
        return None
    return re.compile(rb"(?<![\w./-])(?:" + b"|".join(names) + rb")(?![\w./-])")


@functools.lru_cache(maxsize=4)
def _load_redaction(where: str) -> tuple[re.Pattern[bytes] | None, bytes, list[bytes]]:
    with open(where, encoding="utf-8") as handle:
        data = json.load(handle)
    needles = [t.encode("utf-8") for t in data["needles"]] + [
        f.encode("utf-8", "surrogateescape") for f in data["fragments"]]
    return path_pattern(data["paths"]), data["digest"].encode(), needles


def redact_message(message: bytes, where: str) -> bytes:
    """A commit or tag message without the purged memory (run by git-filter-repo for each one):
    its path, wherever it appears (a ``Memfs-Path`` trailer, a subject), becomes
    ``sha256:<digest>``, the hash the purge commit records; a line quoting the purged text (whole
    or any distinctive fragment: 3 words, a rare token) becomes ``[purged]``; if a quote spans
    lines, everything after the subject does. ``where``: the JSON file purge wrote with the
    paths, the digest, the texts and their fragments."""
    named, digest, needles = _load_redaction(where)
    if named is not None:
        message = named.sub(b"sha256:" + digest, message)
    lines = message.split(b"\n")
    lines = [b"[purged]" if any(n in normalized(line) for n in needles) else line for line in lines]
    message = b"\n".join(lines)
    flat = normalized(message)
    if any(n in flat for n in needles):
        message = lines[0] + b"\n\n[purged]\n"
    return message
