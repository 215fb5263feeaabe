"""``memfs import`` and ``memfs export``: memory in from Letta, basic-memory, Obsidian and plain
Markdown, and out to Letta. Both are dry runs unless ``--apply``; exit 1 when a file was refused
(import) or is in conflict (export), so a script notices."""

from __future__ import annotations

import sys

import click

from memfs.cli import State
from memfs.cli.options import json_option, pass_state
from memfs.cli.output import emit_json, line, note
from memfs.cli.progress import silence
from memfs.format.interop.common import FORMATS
from memfs.format.model import SOURCE_KINDS, TYPES


@click.command("import")
@click.argument("format_", metavar="FORMAT", type=click.Choice(FORMATS))
@click.argument("source", type=click.Path(file_okay=False, exists=True))
@click.option("--scope", help="Whose memory the notes are, for notes that do not say (e.g. user:U5).")
@click.option("--source", "source_text", help="Provenance for notes without a source (default: FORMAT:<path>).")
@click.option("--source-kind", type=click.Choice(SOURCE_KINDS),
              help="Who asserted notes that do not say (default: agent for letta, else document).")
@click.option("--type", "type_", type=click.Choice(TYPES), help="Type for notes that have none (default: note).")
@click.option("--prefix", help="Folder of the memory repository to import into (default: its top).")
@click.option("--apply", is_flag=True, help="Import (one commit). Without it nothing is written.")
@click.option("--force", is_flag=True, help="A person overrides read_only on files the import updates.")
@click.option("--reason", help="Why (goes into the commit message).")
@click.option("-v", "--verbose", is_flag=True, help="Show what was mapped and kept, file by file.")
@click.option("-q", "--quiet", is_flag=True, help="Only refused files and the totals; no progress bar.")
@json_option
@pass_state
def import_cmd(
    state: State, format_: str, source: str, scope: str | None, source_text: str | None, source_kind: str | None,
    type_: str | None, prefix: str | None, apply: bool, force: bool, reason: str | None, verbose: bool, quiet: bool,
    as_json: bool,
) -> None:
    """Import the notes of the folder SOURCE, written by another system, as memories.

    FORMAT is letta (a Letta memory repository), basic-memory (a project folder), obsidian (a
    vault; inside the memory repository it is converted in place) or markdown (any folder of .md
    files). Every file is judged on its own: one with a secret, or otherwise refused, is
    reported and the others are imported, in one commit. Exit 1 if any file was refused.
    """
    repo = state.repo()
    if quiet or as_json:
        silence(repo.store)
    report = repo.import_(
        format_, source, scope=scope, source_text=source_text, source_kind=source_kind, type=type_,
        prefix=prefix, apply=apply, force=force, reason=reason,
    )
    if as_json:
        emit_json(report.to_json())
    else:
        mode = "" if apply else " (dry run: nothing was written; add --apply to import)"
        line(f"import {format_} from {source}{mode}")
        for item in report.items:
            if item.action == "refused":
                line(f"refused    {item.origin}: {item.reason}")
            elif (not quiet and item.action != "unchanged") or verbose:
                shown = item.path if item.path == item.origin else f"{item.path} (from {item.origin})"
                line(f"{item.action:<10} {shown}")
            if verbose:
                for step in item.mapped:
                    line(f"    mapped {step}")
                for step in item.kept:
                    line(f"    kept   {step}")
        if verbose:
            for path, why in report.skipped:
                line(f"skipped    {path}: {why}")
        _rules("mapped", report.rules("mapped"))
        _rules("kept", report.rules("kept"))
        c = report.counts
        verb = "" if apply else "to "
        line(f"{c['create']} {verb}create, {c['update']} {verb}update, {c['unchanged']} unchanged, "
             f"{c['refused']} refused, {c['skipped']} other file(s) left out")
        if report.commit:
            line(f"commit {report.commit[:10]}")
    if report.counts["refused"]:
        if not as_json:
            note(f"memfs: {report.counts['refused']} file(s) refused; see the lines above")
        sys.exit(1)


def _rules(kind: str, counts: dict[str, int]) -> None:
    if counts:
        line(f"{kind}: " + ", ".join(f"{rule} ({n})" for rule, n in counts.items()))


@click.command("export")
@click.argument("format_", metavar="FORMAT", type=click.Choice(["letta"]))
@click.argument("dest", type=click.Path(file_okay=False))
@click.option("--scope", help="Export only this scope's memories (and system/); default: every scope.")
@click.option("--inherit", is_flag=True, help="Also the scope's ancestors (user:U5/project:P8 → user:U5).")
@click.option("--version", "version_", help="The world version the export is for (memories of others stay behind).")
@click.option("--apply", is_flag=True, help="Write the files. Without it nothing is written.")
@click.option("--force", is_flag=True, help="Overwrite files changed in the other system since the last export.")
@click.option("-q", "--quiet", is_flag=True, help="Only conflicts and the totals; no progress bar.")
@json_option
@pass_state
def export_cmd(
    state: State, format_: str, dest: str, scope: str | None, inherit: bool, version_: str | None, apply: bool,
    force: bool, quiet: bool, as_json: bool,
) -> None:
    """Export the memories recall would give to the folder DEST, for another system.

    FORMAT letta writes files Letta's pre-commit hook accepts (description, limit, read_only
    only) and keeps memfs's own fields in DEST/.memfs-letta.json, so 'memfs import letta DEST'
    gives every byte back. Retracted, superseded, flagged, expired and unsourced memories stay
    behind, and a file changed in Letta since the last export is never overwritten (exit 1).
    """
    repo = state.repo()
    if quiet or as_json:
        silence(repo.store)
    report = repo.export(format_, dest, scope=scope, inherit=inherit, version=version_, apply=apply, force=force)
    if as_json:
        emit_json(report.to_json())
    else:
        mode = "" if apply else " (dry run: nothing was written; add --apply to export)"
        line(f"export {format_} to {dest}{mode}")
        for item in report.items:
            if item.action == "conflict" or (not quiet and item.action not in ("unchanged",)):
                why = f": {item.reason}" if item.reason else ""
                line(f"{item.action:<10} {item.path}" + (f" → {item.dest}" if item.dest != item.path else "") + why)
        c = report.counts
        line(", ".join(f"{n} {action}" for action, n in c.items()))
    if report.counts["conflict"]:
        if not as_json:
            note(f"memfs: {report.counts['conflict']} file(s) in conflict were left as they are")
        sys.exit(1)
