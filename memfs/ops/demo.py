"""The demo: ``example_repo/`` replayed as a real git repository, one commit per event.

:func:`build_demo` always makes a *new* git repository of its own at the target folder (even
inside another repository, which it never commits into). It replays :data:`EVENTS` through the
library, so every commit carries memfs trailers and its actor as author, dated when the event
happened. The P8 release-note preference is first committed as revision 1 (Chinese) and then
changed by an ordinary memfs write into revision 2 (English), exactly the bytes in
``example_repo/``. At the end every file equals the example byte for byte; the build checks it.

A target folder must be new, empty, or an earlier demo (marked by ``.git/memfs-demo``), which is
replaced. The new repository is built next to the target first, so a failure leaves the target
as it was.
"""

from __future__ import annotations

import os
import secrets
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memfs.errors import MemfsError, Refused
from memfs.format import yamlio
from memfs.format.parse import load_document
from memfs.format.templates import data_dir
from memfs.format.times import parse_time
from memfs.store import atomic, gitcli, paths
from memfs.store.repo import Store

MARKER = "memfs-demo"
MARKER_TEXT = "This repository was made by 'memfs demo'; running it again replaces the whole folder.\n"
PREFERENCE = "prefs/p8-release-note-language.md"

#: What revision 1 of :data:`PREFERENCE` said where it differs from the final file (revision 2).
FIRST_REVISION: Mapping[str, Any] = {
    "source": "conversation:C1#msg-12",
    "description": "P8 release notes are written in Chinese",
}
FIRST_BODY = """\
U5 on 2026-09-20: "以后P8的发布说明请用中文。" ("From now on, please
write the P8 release notes in Chinese.")
"""

_SKIP_DIRS = {".git", paths.CACHE_DIR, "__pycache__"}


@dataclass(frozen=True)
class Event:
    """One thing that happened, committed as one commit by ``actor`` at ``when``.

    ``op`` is ``init`` (the repository's non-memory files: config, ignore rules, README),
    ``create`` (memories written with the example's exact bytes) or ``update`` (a memfs write
    that turns revision 1 of :data:`PREFERENCE` into the example's revision 2).
    """

    when: str
    actor: str
    reason: str
    paths: tuple[str, ...] = ()
    op: str = "create"


EVENTS: tuple[Event, ...] = (
    Event("2026-09-19T09:00:00Z", "user:admin", "set up a memory repository for the P8 assistant", op="init"),
    Event(
        "2026-09-19T09:05:00Z",
        "user:admin",
        "the assistant's persona and the memory policy",
        ("system/persona.md", "system/memory-policy.md"),
    ),
    Event("2026-09-20T10:00:00Z", "user:U5", "U5: 以后P8的发布说明请用中文", (PREFERENCE,)),
    Event(
        "2026-09-21T14:05:00Z", "tool:tracker-sync", "B17 was closed as fixed in the tracker", ("facts/b17-status.md",)
    ),
    Event(
        "2026-09-21T15:20:00Z",
        "agent:release-bot",
        "drafted the 2.4.0 release notes from the B17 fix",
        ("drafts/p8-2.4.0-release-notes.md",),
    ),
    Event(
        "2026-09-22T09:10:00Z",
        "agent:docs-reader",
        "read the payments-api v1 configuration docs",
        ("config/payments-v1-timeout.md",),
    ),
    Event(
        "2026-09-22T09:12:00Z",
        "agent:docs-reader",
        "payments-api v2 moved the timeout setting",
        ("config/payments-v2-timeout.md",),
    ),
    Event("2026-09-22T11:30:00Z", "user:U5", "U5: conclusion first, then short bullets", ("prefs/reading-style.md",)),
    Event(
        "2026-09-22T18:40:00Z",
        "tool:ci",
        "PDF export timed out once, on a freshly re-imaged runner",
        ("episodes/pdf-export-timeout.md",),
    ),
    Event(
        "2026-09-23T08:30:00Z",
        "user:U5",
        "U5: from now on, P8 release notes in English",
        (PREFERENCE,),
        op="update",
    ),
)


@dataclass(frozen=True)
class DemoCommit:
    event: Event
    commit: str


@dataclass(frozen=True)
class DemoResult:
    """The demo repository: where it is, its commits (oldest first), and whether it replaced one."""

    root: Path
    commits: tuple[DemoCommit, ...]
    replaced: bool

    def commit_of(self, path: str, op: str) -> str | None:
        """The commit of the first event with ``op`` that touched ``path``."""
        for done in self.commits:
            if done.event.op == op and path in done.event.paths:
                return done.commit
        return None


def example_files(source: Path | None = None) -> dict[str, bytes]:
    """Every file of the example (``/``-separated relative path -> bytes), dotfiles included."""
    source = source or data_dir("example_repo")
    found: dict[str, bytes] = {}
    for dirpath, dirnames, filenames in os.walk(source):
        dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS)
        for name in sorted(filenames):
            full = Path(dirpath) / name
            found[full.relative_to(source).as_posix()] = full.read_bytes()
    return found


def first_revision(final: bytes) -> bytes:
    """Revision 1 of :data:`PREFERENCE`, rebuilt from the final file by editing only its changed lines."""
    doc, meta = load_document(PREFERENCE, final)
    changes = {**FIRST_REVISION, "revision": 1, "updated": meta["created"]}
    frontmatter = yamlio.edit(doc.frontmatter, changes, doc.newline)
    return doc.with_frontmatter(frontmatter).with_body(FIRST_BODY).render().encode("utf-8")


def plan(files: Mapping[str, bytes]) -> list[Event]:
    """:data:`EVENTS` fitted to the example's files: ``init`` takes every non-memory file, events
    drop paths the example lacks, and memories no event names get one last commit."""
    memories = {rel for rel in files if paths.is_memory_name(rel)}
    named = {rel for event in EVENTS for rel in event.paths}
    events = []
    for event in EVENTS:
        if event.op == "init":
            chosen = tuple(rel for rel in files if rel not in memories)
        else:
            chosen = tuple(rel for rel in event.paths if rel in memories)
        if chosen:
            events.append(Event(event.when, event.actor, event.reason, chosen, event.op))
    rest = tuple(sorted(memories - named, key=paths.sort_key))
    if rest:
        events.append(Event(EVENTS[-1].when, "user:admin", "the rest of the example", rest))
    return events


def build_demo(directory: str | os.PathLike[str], source: Path | None = None) -> DemoResult:
    """Make the demo repository at ``directory`` (new, empty, or an earlier demo, which is replaced)."""
    target = Path(os.path.abspath(directory))
    replaced = _check_target(target)
    files = example_files(source)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        staging = target.parent / f".{target.name}.memfs-demo-{secrets.token_hex(4)}"
        staging.mkdir()
    except OSError as exc:
        raise Refused(f"{target}: cannot create the demo there ({exc.strerror})") from None
    try:
        commits = _replay(staging.resolve(), files)
        _move_into(staging, target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return DemoResult(target, tuple(commits), replaced)


def is_demo(directory: Path) -> bool:
    return (directory / ".git" / MARKER).is_file()


def _check_target(target: Path) -> bool:
    """Whether ``target`` holds an earlier demo; :class:`MemfsError` if it may not be used."""
    if not target.exists() and not target.is_symlink():
        return False
    if not target.is_dir():
        raise Refused(f"{target}: exists and is not a folder; give a new folder for the demo")
    if is_demo(target):
        return True
    if any(target.iterdir()):
        raise Refused(
            f"{target}: exists, is not empty and is not an earlier memfs demo, so it was left alone; "
            "give a new or empty folder"
        )
    return False


def _move_into(staging: Path, target: Path) -> None:
    """Put the built repository at ``target``, replacing what is inside it but keeping the folder
    itself (a shell whose current directory is the old demo stays usable)."""
    if not target.exists():
        staging.rename(target)
        return
    for entry in list(target.iterdir()):
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry)
        else:
            entry.unlink()
    for entry in list(staging.iterdir()):
        entry.rename(target / entry.name)
    staging.rmdir()


def _replay(root: Path, files: Mapping[str, bytes]) -> list[DemoCommit]:
    git = gitcli.create(root)
    repo = Store(root, git, EVENTS[0].actor)
    done: list[DemoCommit] = []
    for event in plan(files):
        sha = _commit(repo, event, files)
        if sha:
            done.append(DemoCommit(event, sha))
    atomic.write_bytes(git.git_dir / MARKER, MARKER_TEXT.encode())
    _check_replay(root, files)
    return done


def _commit(repo: Store, event: Event, files: Mapping[str, bytes]) -> str | None:
    """One event, one commit, dated when it happened, by its actor, through the one commit path."""
    when = parse_time(event.when)
    subject = "memory repository" if event.op == "init" else None
    with repo.transaction(
        event.op, reason=event.reason, actor=event.actor, when=when, subject=subject, verb="demo"
    ) as tx:
        for rel in event.paths:
            if event.op == "init":
                tx.write_file(rel, files[rel])
            elif event.op == "update":
                doc, meta = load_document(rel, files[rel])
                tx.now = parse_time(meta["updated"]) or tx.now
                current = tx.read(rel)
                tx.write(
                    rel,
                    fields={name: meta.get(name) for name in FIRST_REVISION},
                    body=doc.body,
                    expected_revision=current.revision,
                )
            elif rel == PREFERENCE:
                tx.write_bytes(rel, first_revision(files[rel]))
            else:
                tx.write_bytes(rel, files[rel])
    return tx.result.commit


def _check_replay(root: Path, files: Mapping[str, bytes]) -> None:
    """The replayed history must end exactly at the example; anything else is a memfs bug."""
    differ = [rel for rel, data in files.items() if (root / rel).read_bytes() != data]
    if differ:
        raise MemfsError(f"the demo history does not end at example_repo/ ({', '.join(differ)}); this is a memfs bug")
