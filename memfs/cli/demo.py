"""``memfs demo DIR``: build the example repository with its history, then show it around.

The building is :func:`memfs.ops.demo.build_demo`; this module only prints the tour, sized for an
80-column terminal.
"""

from __future__ import annotations

import shutil
import sys
import unicodedata
from pathlib import Path
from typing import TYPE_CHECKING

import click

from memfs.cli import State
from memfs.cli.output import line

if TYPE_CHECKING:
    from memfs.api import MemoryRepo
    from memfs.ops.demo import DemoResult

WIDTH = 80


@click.command("demo")
@click.argument("directory", type=click.Path(path_type=Path))
@click.pass_context
def demo_cmd(ctx: click.Context, directory: Path) -> None:
    """Build a demo memory repository in DIRECTORY from example_repo/ and tour it.

    DIRECTORY becomes a git repository of its own with one commit per event (even inside
    another git repository, which is never touched). It must be new, empty, or an earlier
    demo, which is replaced.
    """
    from memfs.api import MemoryRepo

    result = MemoryRepo.demo(directory)
    state = ctx.find_object(State)
    sub = click.Context(
        ctx.command, parent=ctx, info_name="demo", obj=State(result.root, None, bool(state and state.debug))
    )
    _tour(sub, result)


def _tour(ctx: click.Context, result: DemoResult) -> None:
    from memfs.ops.demo import PREFERENCE

    verb = "replaced the earlier demo with" if result.replaced else "built"
    line(f"memfs demo: {verb} a memory repository at")
    line(f"  {result.root}")
    line(f"from example_repo/: a git repository of its own, {len(result.commits)} commits, one per event.")
    _heading("What is in it (memfs tree)")
    from memfs.cli.read import tree_cmd

    ctx.invoke(tree_cmd)
    _heading("How it got there (memfs log, oldest first)")
    _history(ctx.obj.repo())
    old, new = result.commit_of(PREFERENCE, "create"), result.commit_of(PREFERENCE, "update")
    if old and new:
        _heading("The preference that changed (memfs diff HEAD~1 HEAD)")
        _preference_diff(ctx.obj.repo(), f"{new}~1", new, PREFERENCE)
    _heading("Try next")
    for command, why in _next_steps(result.root, PREFERENCE):
        _step(command, why)


def _heading(text: str) -> None:
    line()
    line(f"== {text} " + "=" * max(0, WIDTH - 5 - _width(text)))


def _step(command: str, why: str, column: int = 44) -> None:
    """A command and, after it or on the next line when there is no room, a ``# why`` comment."""
    text = f"  {command}"
    comment = f"# {why}" if why else ""
    if not comment:
        line(text)
    elif _width(text) < column and column + _width(comment) <= WIDTH:
        line(text + " " * (column - _width(text)) + comment)
    else:
        line(text)
        line(_fit(f"      {comment}", WIDTH))


def _history(repo: MemoryRepo) -> None:
    for entry in reversed(repo.log()):
        subject = entry.subject.removeprefix("memfs: ")
        line(_fit(f"{entry.commit[:7]} {entry.time[:10]} {entry.actor:<17} {subject}", WIDTH))
        if entry.reason:
            line(_fit(f"{'':8}{entry.reason}", WIDTH))


def _preference_diff(repo: MemoryRepo, old: str, new: str, path: str) -> None:
    for f in repo.diff(old, new, path):
        line(f"{f.change}: {f.path}")
        for change in f.fields:
            text = f"  {change}"
            before, arrow, after = text.partition(" → ")
            if _width(text) <= WIDTH or not arrow:
                line(_fit(text, WIDTH))
            else:
                line(_fit(before, WIDTH))
                line(_fit(" " * (len(change.field) + 2) + "→ " + after, WIDTH))
        if f.body_changed:
            line("  body changed (see it with: memfs diff HEAD~1 HEAD)")


def _next_steps(root: Path, pref: str) -> list[tuple[str, str]]:
    steps: list[tuple[str, str]] = []
    activate = _activate_hint()
    if activate:
        steps.append((activate, "put memfs on your PATH"))
    steps += [
        (f"cd {root}", ""),
        (f"P={pref}", ""),
        ("memfs show $P", "revision 2: English"),
        ("memfs show $P --at 2026-09-21T00:00:00Z", "as it was then: Chinese"),
        ("memfs log $P", "both revisions, who and why"),
        ("memfs diff HEAD~1 HEAD", "field summary above the text diff"),
        ("memfs log --op create", "filter history by operation"),
        ("memfs revert HEAD", "undo the switch to English"),
        ("memfs validate", "check every memory file"),
        ("memfs search 发布说明", "full-text search, CJK included"),
        ("memfs impact facts/b17-status.md", "what was derived from it"),
        ("memfs retract facts/b17-status.md --reason 'B17 reopened'", "flags the draft"),
        ("memfs context --help", "what an agent would be given"),
        ("git log --stat", "plain git works on memory too"),
    ]
    return steps


def _activate_hint() -> str | None:
    """How to reach this ``memfs`` when it was run by path (``.venv/bin/memfs``), not from PATH."""
    exe = Path(sys.argv[0]).absolute()
    if exe.name != "memfs":
        return None
    found = shutil.which("memfs")
    if found and Path(found).resolve() == exe.resolve():
        return None
    activate = exe.parent / "activate"
    return f". {activate}" if activate.is_file() else f'export PATH="{exe.parent}:$PATH"'


def _width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def _fit(text: str, width: int) -> str:
    """``text`` cut to ``width`` terminal columns (CJK counts two), with ``…`` when cut."""
    if _width(text) <= width:
        return text
    out, used = [], 0
    for char in text:
        used += _width(char)
        if used > width - 1:
            break
        out.append(char)
    return "".join(out) + "…"
