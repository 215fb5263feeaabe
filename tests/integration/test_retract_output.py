"""A retraction's output pinned on generated graphs: the files it writes are exactly what the
minimal-diff editor makes of each file read afresh (the retraction edits from the parse it planned
with, #17), every active memory downstream is flagged, nothing else changes, and each diff touches
only the lines of the fields a retraction sets."""

from __future__ import annotations

import difflib
import random
from pathlib import Path
from typing import Any

import pytest

from memfs import MemoryRepo
from memfs.format import edit, yamlio
from memfs.format.parse import parse
from memfs.ops.retract import retract
from memfs.policy.lineage import INVALIDATED_BY, Invalidation
from tests.helpers import ACTOR, commit_all, git, memory_text, write_file

ROOT = "facts/root.md"
REASON = "the source was wrong"
#: The lines a retraction may change in a file it flags.
RETRACTION_KEYS = {"status", INVALIDATED_BY, "revision", "updated"}


def _text(rel: str, deps: list[str], status: str, style: int, rng: random.Random) -> str:
    """One memory file in one of several hand-written styles (comments, unknown keys, block lists,
    an inline comment on ``status``, CRLF, an earlier retraction's record)."""
    fields: dict[str, Any] = {"id": rel[:-3].replace("/", "-"), "status": status, "revision": rng.randrange(1, 4),
                              "created": "2026-01-01T00:00:00Z", "updated": "2026-01-02T00:00:00Z",
                              "depends_on": deps or None, "description": f"memory {rel}"}
    if status == "needs_review":
        fields[INVALIDATED_BY] = [{"root": "facts/other.md", "reason": "earlier", "at": "2026-01-03T00:00:00Z",
                                   "actor": "agent:x"}]
    text = memory_text(f"body of {rel}\n\nsecond paragraph\n", **fields)
    if style == 1:  # a comment line and an unknown key
        text = text.replace("---\n", "---\n# kept by hand\nx_custom: [a, b]\n", 1)
    elif style == 2 and deps:  # depends_on as a block list
        flow = "depends_on: " + yamlio.scalar(deps) + "\n"
        text = text.replace(flow, "depends_on:\n" + "".join(f"  - {d}\n" for d in deps))
    elif style == 3:  # an inline comment on status
        text = text.replace(f"status: {status}\n", f"status: {status}  # set by hand\n")
    elif style == 4:  # CRLF newlines
        text = text.replace("\n", "\r\n")
    return text


def _build(root: Path, seed: int) -> dict[str, list[str]]:
    """A random graph below :data:`ROOT`: chains, diamonds, a cycle, members already in review or
    withdrawn, and unrelated memories; returns each file's ``depends_on``."""
    rng = random.Random(seed)
    nodes = [ROOT] + [f"notes/n{i:02d}.md" for i in range(30)]
    deps: dict[str, list[str]] = {ROOT: []}
    for i, rel in enumerate(nodes[1:], start=1):
        parents = rng.sample(nodes[: max(1, i)], k=min(i, rng.choice((1, 1, 2))))
        deps[rel] = [] if i > 3 and rng.random() < 0.15 else sorted(set(parents))
    deps[nodes[5]] = sorted({*deps[nodes[5]], nodes[20]})  # a cycle when n20 is downstream of n05
    if seed % 2:
        deps[ROOT] = [nodes[25]]  # a cycle through the root when n25 is downstream of it
    for i in range(8):
        deps[f"other/u{i}.md"] = [f"other/u{i - 1}.md"] if i else []
    for rel, parents in deps.items():
        status = "active" if rel == ROOT else rng.choice(("active",) * 6 + ("needs_review", "retracted", "superseded"))
        write_file(root / rel, _text(rel, parents, status, rng.randrange(5), rng))
    commit_all(root, "generated memories")
    return deps


def _downstream(deps: dict[str, list[str]]) -> set[str]:
    children: dict[str, list[str]] = {}
    for rel, parents in deps.items():
        for parent in parents:
            children.setdefault(parent, []).append(rel)
    seen: set[str] = set()
    todo = [ROOT]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in seen and child != ROOT:
                seen.add(child)
                todo.append(child)
    return seen


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_retraction_writes_what_a_fresh_edit_of_each_file_writes(repo: MemoryRepo, seed: int) -> None:
    deps = _build(repo.root, seed)
    before = {rel: (repo.root / rel).read_bytes() for rel in deps}
    result = retract(repo.store, [ROOT], reason=REASON)
    assert result.commit
    now = parse(ROOT, (repo.root / ROOT).read_bytes()).updated
    assert now is not None
    record = Invalidation(ROOT, REASON, now, ACTOR).to_yaml()
    expected: dict[str, bytes] = {}
    for rel in sorted(_downstream(deps) - {ROOT}):
        old = parse(rel, before[rel])
        if old.status not in ("active", "needs_review"):
            continue
        fields = {"status": "needs_review", INVALIDATED_BY: [*(old.meta.get(INVALIDATED_BY) or []), record]}
        made = edit.update_file(rel, before[rel], fields, None, now).content
        assert made is not None
        expected[rel] = made
    expected[ROOT] = edit.update_file(ROOT, before[ROOT], {"status": "retracted"}, None, now).content or b""
    for rel in deps:
        assert (repo.root / rel).read_bytes() == expected.get(rel, before[rel]), rel
    changed = git(repo.root, "diff", "--name-only", "HEAD~1", "HEAD").split()
    assert sorted(changed) == sorted(expected) and len(expected) > 5
    assert set(result.plan.downstream) == set(expected) - {ROOT}
    for rel in changed:
        _assert_minimal(rel, before[rel], (repo.root / rel).read_bytes())


def _assert_minimal(rel: str, old: bytes, new: bytes) -> None:
    """Only the lines of :data:`RETRACTION_KEYS` differ; the body and every other line stay."""
    old_lines, new_lines = old.decode().splitlines(keepends=True), new.decode().splitlines(keepends=True)
    assert old_lines[old_lines.index("---" + old_lines[0][3:], 1):] == new_lines[new_lines.index(
        "---" + new_lines[0][3:], 1):], f"{rel}: the body changed"
    for line in difflib.ndiff(old_lines, new_lines):
        if line[:2] in ("- ", "+ "):
            key = line[2:].split(":", 1)[0]
            assert key in RETRACTION_KEYS, f"{rel}: a retraction changed the line {line!r}"


def test_an_edit_starts_from_the_bytes_as_they_are_not_as_first_parsed(repo: MemoryRepo) -> None:
    """The parse a transaction keeps (:meth:`Transaction.memory`) is used only while the file
    still has those bytes: after a hand edit on disk, the edit reads the file again."""
    for name in ("a", "b"):
        write_file(repo.root / f"notes/{name}.md", memory_text(description="first", id=name))
    commit_all(repo.root, "two memories")
    with repo.store.transaction("write") as tx:
        assert tx.memory("notes/a.md") is not None and tx.memory("notes/b.md") is not None
        hand = (repo.root / "notes/b.md").read_text().replace("description: first", "description: by hand")
        write_file(repo.root / "notes/b.md", hand)
        tx.write("notes/a.md", fields={"tags": ["x"]})
        tx.write("notes/b.md", fields={"tags": ["y"]})
    a, b = repo.store.read("notes/a.md"), repo.store.read("notes/b.md")
    assert (a.description, a.tags) == ("first", ("x",))
    assert (b.description, b.tags) == ("by hand", ("y",))
