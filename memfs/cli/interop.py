"""``memfs import`` and ``memfs export``: memory in from Letta, basic-memory, Obsidian and plain
Markdown, and out to Letta. Both are dry runs unless ``--apply``; exit 1 when a file was refused
(import) or is in conflict (export), so a script notices."""

from __future__ import annotations

import sys

import click

from memfs.cli import State
from memfs.cli.derive import command
from memfs.cli.exits import FORCE_HINT
from memfs.cli.options import json_option
from memfs.cli.output import emit_json, line, note
from memfs.cli.progress import silence
from memfs.ops.verbs.collab import Export, Import


@command(Import)
@click.option("-v", "--verbose", is_flag=True, help="Show what was mapped and kept, file by file.")
@click.option("-q", "--quiet", is_flag=True, help="Only refused files and the totals; no progress bar.")
@json_option
def import_cmd(state: State, op: Import, verbose: bool, quiet: bool, as_json: bool) -> None:
    repo = state.repo()
    if quiet or as_json:
        silence(repo.store)
    report = repo.run(op)
    if as_json:
        emit_json(report.to_json())
    else:
        mode = "" if op.apply else " (dry run: nothing was written; add --apply to import)"
        line(f"import {op.format} from {op.source}{mode}")
        for item in report.items:
            if item.action == "refused":
                line(f"refused    {item.origin}: {item.reason}{FORCE_HINT if item.forceable else ''}")
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
        verb = "" if op.apply else "to "
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


@command(Export)
@click.option("-q", "--quiet", is_flag=True, help="Only conflicts and the totals; no progress bar.")
@json_option
def export_cmd(state: State, op: Export, quiet: bool, as_json: bool) -> None:
    repo = state.repo()
    if quiet or as_json:
        silence(repo.store)
    report = repo.run(op)
    if as_json:
        emit_json(report.to_json())
    else:
        mode = "" if op.apply else " (dry run: nothing was written; add --apply to export)"
        line(f"export {op.format} to {op.dest}{mode}")
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
