"""``memfs import`` and ``memfs export``: memory in from, and out to, the systems people come from.

**Import** reads a folder (a Letta memory repository, a basic-memory project, an Obsidian vault,
any folder of Markdown), maps each ``.md`` file with the format's pure module
(:mod:`memfs.format.interop`) and commits every importable file in **one commit** through the one
commit path. Each file is judged on its own (:meth:`~memfs.store.repo.Transaction.admit`): an
invalid file, a secret (refused by the core guard, never forceable), a ``system/`` file from an
agent, a file that would repeat an id, or one that depends on a refused file is left out and
reported with its reason, and the rest are imported. Without ``apply`` nothing is written: the
same judgement runs and the report says what would be created, updated, left unchanged and
refused. A folder inside the memory root is converted in place (an Obsidian vault that is the
repository); files already as the import would make them are unchanged, so importing twice
changes nothing. A changed file is an update: its ``revision`` goes up and ``updated`` is set, as
for any write.

**Export** (Letta) writes each memory Letta should see into a folder, in files Letta's pre-commit
hook accepts, with memfs's own fields in a sidecar (:mod:`memfs.format.interop.letta`). Only
memories recall would give are exported: retracted, superseded, flagged, expired and unsourced
ones stay behind (Letta has no status and would inject them forever), and so do memories of one
``version`` unless that version is asked for. A file it wrote before that is no longer exported
(retracted since) is removed; a file Letta changed since the last export is never overwritten
(import it first, or a person forces it).
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memfs.errors import InvalidMemory, MemfsError, NotFound, Refused, UsageError, WriteRefused
from memfs.format import yamlio
from memfs.format.document import split
from memfs.format.interop import FORMATS, basic_memory, letta, markdown, obsidian
from memfs.format.interop.common import NO_SCOPE, Converted, Defaults, SourceFile, Step, digest
from memfs.format.model import SOURCE_KINDS, TYPES, Memory, utcnow
from memfs.policy.recall import ScopeRule, check_scope, eligibility
from memfs.store import atomic, paths
from memfs.store.progress import counted
from memfs.store.repo import Store, Transaction

EXPORT_FORMATS = ("letta",)
#: Files larger than memfs reads (:data:`memfs.store.paths.MAX_READ_BYTES`) are left out and reported.
MAX_FILE_BYTES = paths.MAX_READ_BYTES
_CONVERTERS: dict[str, Callable[[Sequence[SourceFile], Defaults], list[Converted]]] = {
    "basic-memory": basic_memory.convert,
    "obsidian": obsidian.convert,
    "markdown": markdown.convert,
}


@dataclass(frozen=True)
class ImportItem:
    """One source file: where it goes, what happens to it (``create``, ``update``, ``unchanged``
    or ``refused``), what was mapped and kept, and why it was refused (``forceable``: a person
    may import it anyway with ``force``)."""

    origin: str
    path: str
    action: str
    mapped: tuple[Step, ...] = ()
    kept: tuple[Step, ...] = ()
    reason: str | None = None
    forceable: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "origin": self.origin,
            "path": self.path,
            "action": self.action,
            "mapped": [str(s) for s in self.mapped],
            "kept": [str(s) for s in self.kept],
            "reason": self.reason,
            "forceable": self.forceable,
        }


@dataclass
class ImportReport:
    """What an import did (``applied``) or would do."""

    format: str
    source: str
    applied: bool
    items: list[ImportItem] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    commit: str | None = None

    def of(self, action: str) -> list[ImportItem]:
        return [i for i in self.items if i.action == action]

    @property
    def counts(self) -> dict[str, int]:
        return {a: len(self.of(a)) for a in ("create", "update", "unchanged", "refused")} | {
            "skipped": len(self.skipped)
        }

    def rules(self, kind: str) -> dict[str, int]:
        """How many written files each mapping (``kind="mapped"``) or keeping rule touched."""
        found: dict[str, int] = {}
        for item in self.items:
            if item.action in ("create", "update"):
                for rule in dict.fromkeys(s.rule for s in getattr(item, kind)):
                    found[rule] = found.get(rule, 0) + 1
        return found

    def to_json(self) -> dict[str, Any]:
        return {
            "format": self.format,
            "source": self.source,
            "applied": self.applied,
            "commit": self.commit,
            "counts": self.counts,
            "mapped": self.rules("mapped"),
            "kept": self.rules("kept"),
            "items": [i.to_json() for i in self.items],
            "skipped": [{"path": p, "reason": r} for p, r in self.skipped],
        }


class _DryRun(Exception):
    """Leaves the transaction of a dry run without committing."""


# --- reading the source folder ---------------------------------------------------------------
def walk(folder: Path) -> tuple[list[SourceFile], list[tuple[str, str]]]:
    """Every ``.md`` file under ``folder`` (hidden folders such as ``.obsidian/`` and ``.git/`` and
    hidden files left out, symlinks not followed), and what was left out and why."""
    files: list[SourceFile] = []
    skipped: list[tuple[str, str]] = []
    for dirpath, dirnames, filenames in os.walk(folder):
        rel_dir = os.path.relpath(dirpath, folder).replace(os.sep, "/")
        prefix = "" if rel_dir == "." else rel_dir + "/"
        for name in sorted(d for d in dirnames if d.startswith(".")):
            if name != ".git":
                skipped.append((f"{prefix}{name}/", "hidden folder (settings of another program)"))
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in sorted(filenames):
            rel = prefix + name
            full = Path(dirpath) / name
            if name.startswith("."):
                continue
            if not name.endswith(".md"):
                skipped.append((rel, "not a Markdown file"))
            elif name == "README.md":
                skipped.append((rel, "README.md files are documentation in memfs, not memories"))
            elif full.is_symlink() or not full.is_file():
                skipped.append((rel, "not a regular file"))
            elif full.stat().st_size > MAX_FILE_BYTES:
                skipped.append((rel, f"larger than {MAX_FILE_BYTES:,} bytes, more than memfs reads"))
            else:
                files.append(SourceFile(rel, full.read_bytes()))
    return files, skipped


def _placement(repo: Store, source: Path, prefix: str | None) -> tuple[str, bool]:
    """(prefix in the memory root, whether the import converts files in place)."""
    here, root = Path(os.path.realpath(source)), Path(os.path.realpath(repo.root))
    if here == root or root in here.parents:
        inside = "" if here == root else here.relative_to(root).as_posix()
        if prefix is not None and prefix.strip("/") != inside:
            raise UsageError(f"{source} is inside the memory repository: it is converted in place, where it is; "
                             "leave out --prefix", param="prefix")
        return inside, True
    if here in root.parents:
        raise UsageError(f"{source} contains the memory repository; name the folder of notes itself", param="source")
    clean = (prefix or "").strip("/")
    if clean:
        paths.confine(repo.root, clean + "/x.md", git_dir=repo.git.git_dir)
    return clean, False


# --- import -----------------------------------------------------------------------------------
def import_(
    repo: Store,
    fmt: str,
    source: str | os.PathLike[str],
    *,
    scope: str | None = None,
    source_text: str | None = None,
    source_kind: str | None = None,
    type: str | None = None,
    prefix: str | None = None,
    apply: bool = False,
    force: bool = False,
    reason: str | None = None,
    actor: str | None = None,
) -> ImportReport:
    """Import the notes of ``source`` (a folder in ``fmt``, one of :data:`FORMATS`) as memories,
    in one commit when ``apply``; see the module docstring."""
    if fmt not in FORMATS:
        raise UsageError(f"{fmt!r} is not a format memfs imports; use one of: {', '.join(FORMATS)}", param="fmt")
    folder = Path(source)
    if not folder.is_dir():
        raise UsageError(f"{source}: no such folder", param="source")
    if source_kind is not None and source_kind not in SOURCE_KINDS:
        raise UsageError(f"{source_kind!r}: use one of {', '.join(SOURCE_KINDS)}", param="source_kind")
    if type is not None and type not in TYPES:
        raise UsageError(f"{type!r}: use one of {', '.join(TYPES)}", param="type")
    where, in_place = _placement(repo, folder, prefix)
    if in_place and fmt == "letta":
        raise UsageError(
            "a Letta memory folder is imported into a separate memfs repository: in place, memfs's fields would "
            "fail Letta's pre-commit hook; write back with memfs export letta", param="source",
        )
    defaults = Defaults(check_scope(scope), source_text, source_kind, type, where)
    base = _letta_base(folder) if fmt == "letta" else folder
    files, skipped = walk(base)
    if in_place:
        kept = []
        for file in files:
            dest = defaults.dest(file.rel)
            if paths.is_ignored(repo.root, dest):
                skipped.append((file.rel, f"excluded by {paths.IGNORE_FILE}"))
            else:
                kept.append(file)
        files = kept
    if fmt == "letta":
        converted = letta.convert(files, defaults, _sidecar(base))
    else:
        converted = _with_adopt_rules(repo, fmt, files, defaults, _CONVERTERS[fmt](files, defaults))
    unscoped = sum(c.problem == NO_SCOPE for c in converted)
    if unscoped:
        raise UsageError(f"{unscoped} note(s) in {source} say not whose memory they are: give --scope, e.g. "
                         '--scope user:U5, or set [adopt] scope = "user:U5" in .memfs.toml', param="scope")
    report = ImportReport(fmt, str(source), apply, skipped=skipped)
    try:
        trailers = {"Memfs-Import": [fmt]}
        with repo.transaction("import", reason=reason, actor=actor, force=force, trailers=trailers) as tx:
            report.items = [state.item for state in _stage_all(repo, tx, converted)]
            written = sum(i.action in ("create", "update") for i in report.items)
            tx.subject = f"{written} file(s) from {fmt} folder {folder.resolve().name or folder}"
            if not apply:
                raise _DryRun
        report.commit = tx.result.commit
    except _DryRun:
        pass
    return report


def _with_adopt_rules(repo: Store, fmt: str, files: list[SourceFile], defaults: Defaults,
                      converted: list[Converted]) -> list[Converted]:
    """``converted``, with the notes that name no scope (and got none on the command line) taken
    from a conversion with the ``[adopt]`` settings of the folder they go to, when it gives one;
    what the command line gives still comes first. Each distinct setting converts the whole
    folder once, so a note's links to the others resolve as in the first conversion."""
    if defaults.scope is not None or not any(c.problem == NO_SCOPE for c in converted):
        return converted
    adopt = repo.config().adopt
    rules = {c.path: rule for c in converted if c.problem == NO_SCOPE and (rule := adopt.rule_for(c.path)).scope}
    again = {
        rule: {c.origin: c for c in _CONVERTERS[fmt](files, Defaults(
            rule.scope, defaults.source or rule.source, defaults.source_kind or rule.source_kind,
            defaults.type or rule.type, defaults.prefix))}
        for rule in set(rules.values())
    }
    return [again[rules[c.path]][c.origin] if c.path in rules else c for c in converted]


def _letta_base(folder: Path) -> Path:
    """The memory folder of a Letta repository: the folder itself, or ``memory/`` in the older
    layout where the repository held it."""
    nested = folder / "memory"
    if not (folder / "system").is_dir() and (nested / "system").is_dir():
        return nested
    return folder


def _sidecar(folder: Path) -> dict[str, Any]:
    path = folder / letta.SIDECAR
    try:
        text = path.read_text(encoding="utf-8") if path.is_file() else None
        return letta.read_sidecar(text)
    except (ValueError, UnicodeDecodeError) as exc:
        raise Refused(f"{path}: {exc}; move it away to import the files as plain Letta memory") from None


def _stage_all(repo: Store, tx: Transaction, converted: list[Converted]) -> list[ItemState]:
    """Judge and stage every converted file; the report items, in the source order."""
    states = [ItemState(c) for c in converted]
    dests = []
    for state in states:
        try:
            state.dest = repo.rel(state.converted.path)
        except MemfsError as exc:
            state.refuse(str(exc))
            continue
        dests.append(state.dest)
        if state.converted.content is None:
            state.refuse(f"cannot be imported: {state.converted.problem}")
    committed = tx.committed(dests) if dests else {}
    live = [s for s in states if s.dest is not None and s.action is None]
    for state in counted(repo.progress, "importing", live, len(live)):
        assert state.dest is not None and state.converted.content is not None
        try:
            current = repo.read_bytes(state.dest)
        except MemfsError as exc:
            state.refuse(str(exc))
            continue
        tracked = committed.get(state.dest) is not None
        final = _final(state.converted.content, current if tracked else None, tx.now)
        if final == current:
            state.action = "unchanged"
            continue
        try:
            state.memory = tx.admit(state.dest, final, committed.get(state.dest))
            state.action = "update" if tracked else "create"
        except WriteRefused as exc:
            state.refuse("; ".join(str(r) for r in exc.refusals), exc.forceable)
        except (InvalidMemory, Refused, NotFound) as exc:
            state.refuse(str(exc), exc.forceable)
    repo.progress("checking ids and links", 0, None)
    _refuse_clashing_ids(repo, tx, states)
    _refuse_orphans(repo, tx, states, committed)
    return states


@dataclass
class ItemState:
    """An import item while it is being judged (an :class:`ImportItem` when done)."""

    converted: Converted
    dest: str | None = None
    action: str | None = None
    reason: str | None = None
    memory: Memory | None = None
    forceable: bool = False

    def refuse(self, reason: str, forceable: bool = False) -> None:
        for where in (self.dest, self.converted.path):
            if where and reason.startswith(f"{where}: "):
                reason = reason[len(where) + 2 :]
        self.action, self.reason, self.memory, self.forceable = "refused", reason, None, forceable

    @property
    def item(self) -> ImportItem:
        c = self.converted
        return ImportItem(c.origin, self.dest or c.path, self.action or "refused", c.mapped, c.kept, self.reason,
                          self.forceable)


def _final(content: bytes, current: bytes | None, now: dt.datetime) -> bytes:
    """The bytes to commit for ``content`` over the committed memory now at its place
    (``current``; ``None`` for a new file, or one never committed). An update counts as one only
    if more than ``revision``/``updated`` differ (else the current bytes come back), and it
    raises ``revision`` and sets ``updated``, as every write does."""
    if current is None or content == current:
        return content
    try:
        new_doc, old_doc = split(content.decode("utf-8")), split(current.decode("utf-8"))
        old = yamlio.load(old_doc.frontmatter) or {}
        new = yamlio.load(new_doc.frontmatter) or {}
    except (ValueError, UnicodeDecodeError):
        return content
    if not isinstance(old, dict) or not isinstance(new, dict):
        return content
    managed = {k: old.get(k) for k in ("revision", "updated")}
    try:
        aligned, _ = yamlio.edit_checked(new_doc.frontmatter, managed, new_doc.newline, before=new)
    except ValueError:
        aligned = None
    if aligned is not None and new_doc.with_frontmatter(aligned).render().encode("utf-8") == current:
        return current
    revision = max(_int(old.get("revision")), _int(new.get("revision"))) + 1
    frontmatter, _ = yamlio.edit_checked(new_doc.frontmatter, {"revision": revision, "updated": now},
                                         new_doc.newline, before=new)
    return new_doc.with_frontmatter(frontmatter).render().encode("utf-8")


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 1


def _refuse_clashing_ids(repo: Store, tx: Transaction, states: list[ItemState]) -> None:
    """Leave out files whose id another imported file or another memory already has."""
    staged = [s for s in states if s.memory is not None and s.memory.id]
    batch = {s.dest for s in staged if s.dest}
    owners: dict[str, str] = {}
    in_use = repo.ids_in_use({s.memory.id for s in staged if s.memory and s.memory.id})
    for state in staged:
        assert state.memory is not None and state.memory.id and state.dest
        memory_id = state.memory.id
        if memory_id in owners:
            tx.discard(state.dest)
            state.refuse(f"id {memory_id!r} is also the id of {owners[memory_id]}, imported with it")
            continue
        others = repo.id_users(memory_id, exclude=[state.dest, *batch], candidates=in_use)
        if others:
            tx.discard(state.dest)
            state.refuse(f"id {memory_id!r} is already used by {repo.named(others)}")
            continue
        owners[memory_id] = state.dest


def _refuse_orphans(repo: Store, tx: Transaction, states: list[ItemState], committed: dict[str, bytes | None]) -> None:
    """Leave out files that depend on a file that is neither imported nor committed nor on disk
    (a refused one, say), until none is left: committing them would fail for all, or commit a
    dependency on a file that is not there."""
    staged = {s.dest: s for s in states if s.memory is not None and s.dest}
    refused = {s.dest for s in states if s.action == "refused" and s.dest and committed.get(s.dest) is None}
    changed = True
    while changed:
        changed = False
        for dest, state in list(staged.items()):
            assert state.memory is not None
            missing = [d for d in state.memory.depends_on
                       if d not in staged and (d in refused or not repo.exists(d))]
            if missing:
                tx.discard(dest)
                state.refuse(f"depends on {', '.join(missing)}, which is not in the repository or imported with it")
                refused.add(dest)
                del staged[dest]
                changed = True


# --- export -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class ExportItem:
    """One memory (or a file a previous export wrote): its path in memfs and in the export, and
    what happens (``create``, ``update``, ``unchanged``, ``remove``, ``kept back``, ``conflict``)."""

    path: str
    dest: str
    action: str
    reason: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "dest": self.dest, "action": self.action, "reason": self.reason}


@dataclass
class ExportReport:
    format: str
    dest: str
    applied: bool
    items: list[ExportItem] = field(default_factory=list)

    def of(self, action: str) -> list[ExportItem]:
        return [i for i in self.items if i.action == action]

    @property
    def counts(self) -> dict[str, int]:
        return {a: len(self.of(a)) for a in ("create", "update", "unchanged", "remove", "kept back", "conflict")}

    def to_json(self) -> dict[str, Any]:
        return {"format": self.format, "dest": self.dest, "applied": self.applied, "counts": self.counts,
                "items": [i.to_json() for i in self.items]}


def export(
    repo: Store,
    fmt: str,
    dest: str | os.PathLike[str],
    *,
    scope: str | None = None,
    inherit: bool = False,
    version: str | None = None,
    apply: bool = False,
    force: bool = False,
    now: dt.datetime | None = None,
) -> ExportReport:
    """Export the memories recall would give (for ``scope``, with its ancestors if ``inherit``;
    every scope without one; ``system/`` always) to the folder ``dest`` in ``fmt`` (Letta);
    see the module docstring. Writes nothing unless ``apply``."""
    if fmt not in EXPORT_FORMATS:
        raise UsageError(f"{fmt!r}: memfs exports to {', '.join(EXPORT_FORMATS)}", param="fmt")
    folder = _export_folder(repo, dest)
    rule = ScopeRule(check_scope(scope), inherit)
    when = now or utcnow()
    try:
        old = letta.read_sidecar(_read_text(folder / letta.SIDECAR)).get("files", {})
    except ValueError as exc:
        raise Refused(f"{folder / letta.SIDECAR}: {exc}") from None
    report = ExportReport(fmt, str(dest), apply)
    writes: dict[Path, bytes | None] = {}
    entries: dict[str, dict[str, Any]] = {}
    taken: set[str] = set()
    scan = repo.scan()
    for problem in scan.broken:
        report.items.append(ExportItem(problem.path, letta.letta_path(problem.path), "kept back",
                                       f"does not parse ({problem.message}); memfs validate says more"))
    for memory in counted(repo.progress, "exporting", scan.memories, len(scan.memories)):
        why = _kept_back(memory, rule, version, when)
        target = letta.letta_path(memory.path)
        if why is None and target in taken:
            why = f"{target} is already the export of another memory"
        data = repo.read_bytes(memory.path) if why is None else None
        if why is not None or data is None:
            report.items.append(ExportItem(memory.path, target, "kept back", why or "it went away"))
            continue
        exported = letta.export_file(memory.path, data)
        problems = letta.hook_problems(exported.path, exported.content.decode("utf-8"))
        if problems:
            report.items.append(ExportItem(memory.path, exported.path, "kept back",
                                           "Letta's hook would refuse it: " + "; ".join(problems)))
            continue
        taken.add(exported.path)
        existing = _read(folder / exported.path)
        action, reason = _export_action(existing, exported.content, old.get(exported.path), force)
        report.items.append(ExportItem(memory.path, exported.path, action, reason))
        if action == "conflict":
            if exported.path in old:
                entries[exported.path] = old[exported.path]
            continue
        entries[exported.path] = exported.entry
        if action != "unchanged":
            writes[folder / exported.path] = exported.content
    _withdraw(folder, {p: e for p, e in old.items() if p not in taken}, force, report, writes, entries)
    if apply:
        sidecar = letta.sidecar_text(entries).encode("utf-8")
        if writes or _read(folder / letta.SIDECAR) != sidecar:
            folder.mkdir(parents=True, exist_ok=True)
            atomic.write_many({**writes, folder / letta.SIDECAR: sidecar})
    return report


def _export_folder(repo: Store, dest: str | os.PathLike[str]) -> Path:
    """``dest`` as the folder an export may write: outside the memory repository, not a file."""
    folder = Path(dest)
    here, root = Path(os.path.realpath(folder)), Path(os.path.realpath(repo.root))
    if here == root or root in here.parents:
        raise UsageError(f"{dest} is inside the memory repository; export to a folder outside it", param="dest")
    if folder.exists() and not folder.is_dir():
        raise UsageError(f"{dest} is not a folder", param="dest")
    return folder


def _withdraw(folder: Path, gone: dict[str, Any], force: bool, report: ExportReport,
              writes: dict[Path, bytes | None], entries: dict[str, dict[str, Any]]) -> None:
    """Files an earlier export wrote that are no longer exported: removed, unless changed in
    Letta since (then a conflict, and their sidecar entry kept), or already gone."""
    for path, entry in sorted(gone.items()):
        if not isinstance(entry, dict):
            continue
        existing = _read(folder / path)
        memfs_path = str(entry.get("memfs_path") or path)
        if existing is None:
            continue
        if force or entry.get("digest") == digest(existing):
            report.items.append(ExportItem(memfs_path, path, "remove", "no longer exported (not recallable now)"))
            writes[folder / path] = None
        else:
            entries[path] = entry
            report.items.append(ExportItem(memfs_path, path, "conflict",
                                           "no longer exported, but changed in Letta since; import it first"))


def _kept_back(memory: Memory, rule: ScopeRule, version: str | None, now: dt.datetime) -> str | None:
    """Why ``memory`` is not exported (Letta would inject it with no scope, status, version or
    expiry to stop it), or ``None``."""
    in_system = memory.is_system
    why = eligibility(memory, scope=None if in_system else rule, version=version, now=now)
    if why is not None:
        return why
    if memory.version is not None and version is None:
        return f"applies to version {memory.version} only, and Letta has no versions (export with --version)"
    return None


def _export_action(existing: bytes | None, content: bytes, entry: Any, force: bool) -> tuple[str, str | None]:
    if existing is None:
        return "create", None
    if existing == content:
        return "unchanged", None
    if force:
        return "update", "forced over a copy changed in Letta"
    if isinstance(entry, dict) and entry.get("digest") == digest(existing):
        return "update", None
    return "conflict", "changed in Letta since the last export; import it first (memfs import letta), or --force"


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes() if path.is_file() and not path.is_symlink() else None
    except OSError:
        return None


def _read_text(path: Path) -> str | None:
    data = _read(path)
    return None if data is None else data.decode("utf-8", errors="replace")
