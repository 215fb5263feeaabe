"""``memfs sync``, ``integrate``, ``propose``, ``install-merge-driver``, ``install-hooks``, and the entries git
runs: ``merge-driver`` and ``hook``."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from memfs.cli import State
from memfs.cli.derive import command
from memfs.cli.options import json_option, pass_state
from memfs.cli.output import emit_json, line, note
from memfs.errors import MemfsError
from memfs.ops.verbs.collab import Integrate, Propose, Sync
from memfs.ops.verbs.files import InstallHooks, InstallMergeDriver


@command(Sync)
@json_option
def sync_cmd(state: State, op: Sync, as_json: bool) -> None:
    result = state.repo().run(op)
    if as_json:
        emit_json(result.to_json())
    else:
        for text in result.summary():
            line(text)


@command(Propose)
@json_option
def propose_cmd(state: State, op: Propose, as_json: bool) -> None:
    result = state.repo().run(op)
    if as_json:
        emit_json(result.to_json())
        return
    if result.committed:
        line(f"committed pending memory changes: {result.committed[:10]}")
    line(f"pushed {len(result.commits)} commit(s) to {result.remote}/{result.branch}:")
    for sha, subject in result.commits:
        line(f"  {sha[:10]} {subject}")
    if result.main_reset:
        line(f"your branch is back at {result.remote}/{result.base}; the changes live on {result.branch} until merged")
    for ref in result.backups:
        line(f"backup of the previous tip: {ref}")
    for link in result.links:
        line(f"open a pull request: {link}")
    line(f"summary for reviewers: {result.review_command}")


@command(InstallMergeDriver)
@json_option
def install_merge_driver_cmd(state: State, op: InstallMergeDriver, as_json: bool) -> None:
    result = state.repo().run(op)
    if as_json:
        emit_json(result.to_json())
        return
    line(f"merge.memfs.driver = {result.command}")
    line(f"{result.attributes}: routes *.md to it" + (f" (committed {result.commit[:10]})" if result.commit else ""))


@click.command("merge-driver", hidden=True)
@click.argument("base", type=click.Path(path_type=Path))
@click.argument("ours", type=click.Path(path_type=Path))
@click.argument("theirs", type=click.Path(path_type=Path))
@click.argument("path")
@click.option("--marker-size", type=int, default=7)
def merge_driver_cmd(base: Path, ours: Path, theirs: Path, path: str, marker_size: int) -> None:
    """What git runs as 'memfs merge-driver %O %A %B %P': merge into OURS; exit 1 on conflict."""
    from memfs.ops.mergedriver import run

    if not run(base, ours, theirs, path, marker_size):
        note(f"memfs: {path}: conflicting changes left as conflict markers; edit the file, then 'memfs validate'")
        sys.exit(1)


@command(InstallHooks)
@json_option
def install_hooks_cmd(state: State, op: InstallHooks, as_json: bool) -> None:
    result = state.repo().run(op)
    if as_json:
        emit_json(result.to_json())
        return
    for text in result.lines():
        line(text)


@click.command("hook", hidden=True)
@click.argument("name", type=click.Choice(["pre-commit", "commit-msg", "pre-merge-commit", "reference-transaction"]))
@click.argument("message", required=False)
@pass_state
def hook_cmd(state: State, name: str, message: str | None) -> None:
    """What memfs's git hooks run: NAME is the hook; commit-msg gets git's MESSAGE file,
    reference-transaction its state and git's update lines on stdin. Exit 1 refuses, saying why."""
    from memfs.ops import entry

    repo = state.repo().store
    if name == "commit-msg" and message is None:
        raise click.UsageError("commit-msg needs the message file git passes")
    if name == "pre-commit":
        problems = entry.staged(repo)
    elif name == "commit-msg":
        problems = entry.commit_message(repo, Path(message or ""))
    elif name == "pre-merge-commit":
        problems = entry.merging(repo)
    else:
        problems = entry.ref_updates(repo, sys.stdin.read().splitlines()) if message == "prepared" else []
    if problems:
        for text in problems:
            note(f"memfs {name}: {text}")
        what = {"pre-merge-commit": "merge", "reference-transaction": "branch update"}.get(name, "commit")
        note(f"memfs {name}: {what} refused: memfs never lets a secret into memory, because git keeps it in history "
             f"and sends it to every clone; {_HOOK_FIX[name]}")
        sys.exit(1)
    if name == "commit-msg":
        entry.mark_checked(repo)


_HOOK_FIX = {
    "pre-commit": "remove it from the file (edit it, git add it) and commit again",
    "commit-msg": "write the message without it and commit again",
    "pre-merge-commit": "the merge was not committed ('git merge --abort' undoes it); have the secret erased where "
                        "it was committed (memfs purge there), then merge again",
    "reference-transaction": "the branch was not moved; a fast-forward may have left the fetched files in the work "
                             "tree and the index, uncommitted ('git reset --merge' puts the branch's files back); "
                             "have the secret erased where it was committed (memfs purge there), then pull again",
}


@command(Integrate)
@json_option
def integrate_cmd(state: State, op: Integrate, as_json: bool) -> None:
    from memfs.ops import integrate

    def report(result: integrate.IntegrateResult | MemfsError) -> None:
        if isinstance(result, MemfsError):
            note(f"memfs integrate: {result}")
        elif as_json:
            emit_json(result.to_json(), compact=op.watch)
        else:
            for text in result.summary():
                line(text)

    store = state.repo().store
    if op.watch:
        last = integrate.watch(store, integrate.Rounds(op.interval, op.rounds), report, **op.round_options())
    else:
        report(last := state.repo().run(op))
    if last.held:
        sys.exit(1)
