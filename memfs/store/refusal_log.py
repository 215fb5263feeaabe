"""The refusal log: which rules refused which writes, kept in ``.memfs/refusals.jsonl``.

A refused write makes no commit, so history cannot say how often the gate and the guard said
no; ``memfs eval`` needs that rate. Every refusal a :class:`~memfs.store.repo.Transaction` sees
(the core guard's, and the write gate's inside ``remember`` and the file tools) is appended
here, one JSON line per refused write: when, which verb, which kind of actor, which rules and
fields.
Never the refused content, the message or an unknown field's name: a secret's refusal must not
copy the secret to disk.

Like the usage statistics it lives outside git on purpose: it is this checkout's observation, not
shared truth, and deleting ``.memfs/`` only forgets it. Recording is best effort: a log that cannot
be written (a read-only disk) never changes the refusal the caller gets. The file is kept under
:data:`MAX_BYTES` by dropping its older half.
"""

from __future__ import annotations

import datetime as dt
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from memfs.format.model import FIELDS, utcnow
from memfs.policy import guard
from memfs.policy.refusal import Refusal
from memfs.store import atomic

LOG_FILE = "refusals.jsonl"
MAX_BYTES = 1_000_000


@dataclass(frozen=True)
class Refused:
    """One refused write: the rules it broke (and the fields they name, where they do)."""

    at: dt.datetime
    op: str
    actor_kind: str
    rules: tuple[str, ...]
    fields: tuple[str, ...] = ()
    head: str | None = None

    def to_json(self) -> dict[str, object]:
        return {"at": self.at.isoformat().replace("+00:00", "Z"), "op": self.op, "actor_kind": self.actor_kind,
                "rules": list(self.rules), "fields": list(self.fields), "head": self.head}


def record(cache_dir: Path, writes: Sequence[Sequence[Refusal]], *, op: str, actor: str,
           head: str | None = None, when: dt.datetime | None = None) -> None:
    """Append one line per refused write (best effort: errors writing the log are swallowed).
    ``head`` is the commit HEAD was on: the writes accepted since are the commits after it."""
    stamp = (when or utcnow()).astimezone(dt.UTC).replace(microsecond=0)
    entries = [
        Refused(stamp, op, guard.actor_kind(actor) or "unknown", tuple(dict.fromkeys(r.rule for r in refusals)),
                tuple(dict.fromkeys(_field(r.field) for r in refusals if r.field)), head)
        for refusals in writes if refusals
    ]
    lines = "".join(json.dumps(e.to_json(), ensure_ascii=False) + "\n" for e in entries).encode("utf-8")
    if not lines:
        return
    path = cache_dir / LOG_FILE
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            os.write(fd, lines)
            size = os.fstat(fd).st_size
        finally:
            os.close(fd)
        if size > MAX_BYTES:
            _trim(path)
    except OSError:
        return


def _field(name: str) -> str:
    """A known frontmatter field by name; any other (a nested path, a made-up key, which could
    itself be the secret) only as ``(other)``."""
    top = name.split(".", 1)[0].split("[", 1)[0]
    return top if top in FIELDS else "(other)"


def _trim(path: Path) -> None:
    data = path.read_bytes()
    keep = data[len(data) // 2 :]
    atomic.replace_cache(path, keep[keep.find(b"\n") + 1 :])


def load(cache_dir: Path) -> list[Refused]:
    """Every recorded refusal, oldest first; unreadable lines are skipped (it is only statistics)."""
    try:
        text = (cache_dir / LOG_FILE).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    out = []
    for line in text.splitlines():
        entry = _entry(line)
        if entry is not None:
            out.append(entry)
    return out


def _entry(line: str) -> Refused | None:
    try:
        raw = json.loads(line)
        at = dt.datetime.fromisoformat(str(raw["at"]).replace("Z", "+00:00"))
        op, actor, rules, fields = raw["op"], raw["actor_kind"], raw["rules"], raw.get("fields") or []
    except (ValueError, KeyError, TypeError):
        return None
    if at.tzinfo is None or not isinstance(op, str) or not isinstance(actor, str):
        return None
    if not isinstance(rules, list) or not isinstance(fields, list):
        return None
    head = raw.get("head")
    head = head if isinstance(head, str) else None
    return Refused(at, op, actor, tuple(map(str, rules)), tuple(map(str, fields)), head)
