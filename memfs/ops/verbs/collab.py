"""Working with others and other systems: ``sync``, ``integrate``, ``propose``, ``import`` and ``export``."""

from __future__ import annotations

import datetime as dt
import os
from typing import TYPE_CHECKING, Any

from memfs.format.declare import param
from memfs.format.interop import FORMATS as IMPORT_FORMATS
from memfs.format.model import SOURCE_KINDS, TYPES
from memfs.ops.verbs.declare import Request, request

if TYPE_CHECKING:
    from memfs.ops.integrate import IntegrateResult  # noqa: F401 - results named in Request["..."]
    from memfs.ops.interop import ExportReport, ImportReport  # noqa: F401
    from memfs.ops.propose import ProposeResult  # noqa: F401
    from memfs.ops.sync import SyncResult  # noqa: F401


@request("propose")
class Propose(Request["ProposeResult"]):
    """Put pending memory changes on a review branch and push it, ready for a pull request."""

    branch: str | None = param(default=None, help="Review branch name (default: memfs/<actor>/<UTC time>-<commit>).")
    remote: str | None = param(default=None, help="Remote to push to (default: the branch's upstream, else origin).")
    base: str | None = param(default=None, help="Branch the review targets (default: the upstream branch).")
    keep_main: bool = param(default=False,
                            help="Leave the local branch as it is (default: back to the remote tip).")
    reason: str | None = param(default=None, help="Reason recorded if uncommitted memory changes are committed first.")


@request("sync")
class Sync(Request["SyncResult"]):
    """Fetch, integrate and push memory. Never force-pushes; backs up before rewriting; a conflict
    stops with your branch unchanged and says what to do."""

    remote: str | None = param(default=None, help="Remote to sync with (default: the branch's upstream, else origin).")
    branch: str | None = param(default=None, help="Remote branch (default: the upstream branch, else the same name).")
    mode: str | None = param(default=None, help="How local commits are integrated: rebase (the default) or merge.",
                             flag_values=(("--rebase", "rebase", "Replay local commits on top (the default)."),
                                          ("--merge", "merge", "Integrate with a merge commit instead.")))
    push: bool = param(default=True, help="Fetch and integrate only.")
    attempts: int | None = param(default=None, minimum=1, maximum=100,
                                 help="Tries at most when pushes lose races to other writers (default: [sync] "
                                      "attempts, 5); each retry waits a random time that doubles.")
    budget: float | None = param(default=None, minimum=0, maximum=3600, metavar="SECONDS",
                                 help="Start no new try after this many seconds (default: [sync] budget, 60).")
    route: str | None = param(
        default=None, help="Where your commits go: the shared branch, or your own writer ref (default: [sync] route).",
        flag_values=(("--direct", "direct", "Push to the shared branch (the default)."),
                     ("--writer-ref", "writer-ref",
                      "Push to memfs/writers/<writer>, which 'memfs integrate' brings into the branch.")))
    writer: str | None = param(default=None,
                               help="Writer id of your own ref (default: [sync] writer, else from the actor).")


@request("integrate", cli_note="""
    Writers that sync with --writer-ref ([sync] route = "writer-ref") push to their own branch
    memfs/writers/<writer>; this brings each into the branch and pushes it, the one pusher of it.
    Run it where the branch is checked out: a CI job (templates/ci/integrate-*.yml) or a clone next
    to a bare repository (templates/server/). Every writer's commits pass the secret gate; memories
    two writers changed are reconciled, and what needs a person is held needs_review (memfs review).
    A writer that cannot be integrated (a conflict memfs cannot settle) is held and named, the others
    flow; exit 1 when any is held. Re-running with nothing new changes nothing.""")
class Integrate(Request["IntegrateResult"]):
    """Bring every writer's ref (memfs/writers/*) into the shared branch and push it."""

    remote: str | None = param(default=None, help="Remote of the writers and the branch (default: as for sync).")
    branch: str | None = param(default=None, help="The shared branch (default: as for sync).")
    attempts: int | None = param(default=None, minimum=1, maximum=100,
                                 help="Tries at most when another integrator pushed first (default: [sync] attempts).")
    budget: float | None = param(default=None, minimum=0, maximum=3600, metavar="SECONDS",
                                 help="Start no new try after this many seconds (default: [sync] budget, 60).")
    watch: bool = param(default=False, help="Keep running until stopped: every --interval seconds, list the remote's "
                                            "refs (one ls-remote) and run a round when any moved.")
    interval: float = param(default=30.0, minimum=0.1, maximum=86400, metavar="SECONDS",
                            help="Seconds between polls with --watch.")
    rounds: int | None = param(default=None, minimum=1, help="With --watch, stop after this many rounds.")

    def round_options(self) -> dict[str, Any]:
        """The fields one round takes (:func:`memfs.ops.integrate.integrate`)."""
        return {"remote": self.remote, "branch": self.branch, "attempts": self.attempts, "budget": self.budget}


@request("import", method="import_", cli_note="""
    FORMAT is letta (a Letta memory repository), basic-memory (a project folder), obsidian (a
    vault; inside the memory repository it is converted in place) or markdown (any folder of .md
    files). Every file is judged on its own: one with a secret, or otherwise refused, is
    reported and the others are imported, in one commit. Exit 1 if any file was refused.""")
class Import(Request["ImportReport"]):
    """Import the notes of the folder SOURCE, written by another system, as memories."""

    format: str = param(help="The other system's format.", argument=True, metavar="FORMAT", choices=IMPORT_FORMATS,
                        kw_only=False)
    source: str | os.PathLike[str] = param(help="The folder to import.", argument=True, path="existing-dir",
                                           kw_only=False)
    scope: str | None = param(default=None,
                              help="Whose memory the notes are, for notes that do not say (e.g. user:U5).")
    source_text: str | None = param(default=None, flags=("--source",),
                                    help="Provenance for notes without a source (default: FORMAT:<path>).")
    source_kind: str | None = param(
        default=None, choices=SOURCE_KINDS,
        help="Who asserted notes that do not say (default: agent for letta, else document).")
    type: str | None = param(default=None, choices=TYPES, help="Type for notes that have none (default: note).")
    prefix: str | None = param(default=None, help="Folder of the memory repository to import into (default: its top).")
    apply: bool = param(default=False, help="Import (one commit). Without it nothing is written.")
    force: bool = param(default=False, help="A person overrides read_only on files the import updates.")
    reason: str | None = param(default=None, help="Why (goes into the commit message).")
    actor: str | None = param(default=None, help="Who acts (default: the repository's actor).", doors=())


@request("export", cli_note="""
    FORMAT letta writes files Letta's pre-commit hook accepts (description, limit, read_only
    only) and keeps memfs's own fields in DEST/.memfs-letta.json, so 'memfs import letta DEST'
    gives every byte back. Retracted, superseded, flagged, expired and unsourced memories stay
    behind, and a file changed in Letta since the last export is never overwritten (exit 1).""")
class Export(Request["ExportReport"]):
    """Export the memories recall would give to the folder DEST, for another system."""

    format: str = param(help="The other system's format.", argument=True, metavar="FORMAT", choices=("letta",),
                        kw_only=False)
    dest: str | os.PathLike[str] = param(help="The folder to write.", argument=True, path="dir", kw_only=False)
    scope: str | None = param(default=None,
                              help="Export only this scope's memories (and system/); default: every scope.")
    inherit: bool = param(default=False, help="Also the scope's ancestors (user:U5/project:P8 → user:U5).")
    version: str | None = param(default=None,
                                help="The world version the export is for (memories of others stay behind).")
    apply: bool = param(default=False, help="Write the files. Without it nothing is written.")
    force: bool = param(default=False, help="Overwrite files changed in the other system since the last export.")
    now: dt.datetime | None = param(default=None, help="Judge expiry as of this time (default: now).", doors=())
