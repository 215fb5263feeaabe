"""The ``memfs`` command as a click application (:func:`memfs.cli.main` runs it when the fast path,
:mod:`memfs.cli.fast`, does not answer). Each verb lives in its own module and is imported only
when run, so that a one-shot call (an agent running ``memfs search``) pays only for what it uses.

Every verb is one call on the library (:class:`memfs.api.MemoryRepo`); this layer only parses
arguments and prints results (:mod:`memfs.cli.output`). Errors become one line and an exit code
(:mod:`memfs.cli.exits`), for the real entry point and for ``click.testing.CliRunner`` alike.
"""

from __future__ import annotations

import importlib
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from memfs.cli import fast

if TYPE_CHECKING:
    from memfs.api import MemoryRepo
    from memfs.repos import MemoryRepos


@dataclass(frozen=True)
class Verb:
    """Where a verb's command lives and the library calls it makes: ``MemoryRepo`` method names,
    or ``module:function`` for the two doors that are not one repository call (the MCP server,
    and the merge driver git runs on three files)."""

    command: str
    calls: tuple[str, ...]


def _verb(command: str, *calls: str) -> Verb:
    return Verb(command, calls)


#: verb -> its command ("module:function" under memfs.cli) and the MemoryRepo method(s) it calls
COMMANDS: dict[str, Verb] = {
    # the store and its history
    "init": _verb("init:init_cmd", "init"),
    "new": _verb("write:new_cmd", "new"),
    "write": _verb("write:write_cmd", "write"),
    "add": _verb("write:add_cmd", "write"),
    "rm": _verb("write:rm_cmd", "delete"),
    "show": _verb("read:show_cmd", "show"),
    "ls": _verb("read:ls_cmd", "ls"),
    "tree": _verb("read:tree_cmd", "ls"),
    "validate": _verb("validate:validate_cmd", "validate"),
    "log": _verb("history:log_cmd", "log"),
    "diff": _verb("history:diff_cmd", "diff"),
    "revert": _verb("history:revert_cmd", "revert"),
    "history": _verb("history:history_cmd", "history"),
    "demo": _verb("demo:demo_cmd", "demo"),
    # other systems
    "import": _verb("interop:import_cmd", "import_"),
    "export": _verb("interop:export_cmd", "export"),
    # search and recall
    "search": _verb("search:search_cmd", "search"),
    "reindex": _verb("search:reindex_cmd", "reindex"),
    # lineage and retraction
    "retract": _verb("lineage:retract_cmd", "retract"),
    "reinstate": _verb("lineage:reinstate_cmd", "reinstate"),
    "impact": _verb("lineage:impact_cmd", "impact"),
    "graph": _verb("lineage:graph_cmd", "graph"),
    "review": _verb("review:review_cmd", "review_queue", "review"),
    # lifecycle
    "remember": _verb("lifecycle:remember_cmd", "remember"),
    "expire": _verb("lifecycle:expire_cmd", "expire"),
    "forget": _verb("lifecycle:forget_cmd", "forget"),
    "purge": _verb("lifecycle:purge_cmd", "purge_plan", "purge"),
    "prune": _verb("lifecycle:prune_cmd", "prune"),
    "consolidate": _verb("lifecycle:consolidate_cmd", "consolidate"),
    "stats": _verb("lifecycle:stats_cmd", "stats"),
    # agent interfaces
    "context": _verb("agent:context_cmd", "context"),
    "eval": _verb("agent:eval_cmd", "eval"),
    "tool": _verb("agent:tool_cmd", "tool"),
    "watch": _verb("agent:watch_cmd", "watcher"),
    "serve": _verb("serve:serve_cmd", "live_server", "live_status", "live_stop"),
    "mcp": _verb("agent:mcp_cmd", "memfs.mcp_server:build_server", "memfs.mcp_server:serve"),
    # collaboration
    "sync": _verb("collab:sync_cmd", "sync"),
    "propose": _verb("collab:propose_cmd", "propose"),
    "integrate": _verb("collab:integrate_cmd", "integrate"),
    "install-merge-driver": _verb("collab:install_merge_driver_cmd", "install_merge_driver"),
    "merge-driver": _verb("collab:merge_driver_cmd", "memfs.ops.mergedriver:run"),
    "install-hooks": _verb("collab:install_hooks_cmd", "install_hooks"),
    "hook": _verb("collab:hook_cmd", "memfs.ops.entry:staged", "memfs.ops.entry:commit_message"),
}


class LazyGroup(click.Group):
    """A click group that imports a verb's module only when that verb runs (or help lists it),
    and turns memfs errors into one line and an exit code."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        """The verb's command, its module imported now. The module is named at run time, from the
        registry: the verbs' modules import :class:`State` from here, as they did when this module
        was the package's own (the layer test sees neither side of that lazy loop)."""
        verb = COMMANDS.get(name)
        if verb is None:
            return None
        module, attr = verb.command.split(":")
        found = f"memfs.cli.{module}"
        command: click.Command = getattr(importlib.import_module(found), attr)
        return command

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        name, command, rest = super().resolve_command(ctx, args)
        from memfs.cli import exits

        ctx.meta["memfs.command"] = command
        ctx.meta["memfs.json"] = exits.wants_json(command, rest)
        return name, command, rest

    def invoke(self, ctx: click.Context) -> Any:
        from memfs.cli import exits, printing
        from memfs.errors import MemfsError, one_line

        try:
            return super().invoke(ctx)
        except MemfsError as exc:
            if _debug(ctx):
                raise
            _fail(ctx, exits.message(exc, ctx.meta.get("memfs.command")), exits.code(exc), type(exc).__name__)
        except BrokenPipeError:
            printing.silence_stdout()
            ctx.exit(exits.OK)
        except click.exceptions.Exit:
            raise
        except (click.exceptions.Abort, KeyboardInterrupt) as exc:
            _fail(ctx, _stopped(exc), exits.INTERRUPTED, exits.INTERRUPTED_TYPE)
        except click.ClickException as exc:
            _fail(ctx, exits.usage_line(exc), exc.exit_code, _kind(exc))
        except Exception as exc:  # OSError and any bug: one line, the traceback only with --debug
            if _debug(ctx):
                raise
            _fail(ctx, one_line(exc, roots=_roots(ctx)), exits.FAILED, type(exc).__name__)


def _fail(ctx: click.Context, text: str, code: int, kind: str) -> None:
    """End the command with an error: one line, JSON too when the verb was given ``--json``. Paths
    inside the repository the command opened read relative to its memory root (then to the work
    tree's top), whatever raised: the message is the same wherever the repository lives."""
    from memfs.cli import output
    from memfs.errors import without_host_paths

    for root in _roots(ctx):
        text = without_host_paths(text, root)
    output.failure(text, code, kind, bool(ctx.meta.get("memfs.json")))
    ctx.exit(code)


def _roots(ctx: click.Context) -> tuple[Path, ...]:
    """Where the repository the command opened lives (its memory root, then the work tree's top),
    to be taken out of an error's paths; none before a repository was opened."""
    repo = ctx.obj._repo if isinstance(ctx.obj, State) else None
    return () if repo is None else (repo.root, repo.store.git.workdir)


def _stopped(exc: BaseException) -> str:
    return "interrupted" if isinstance(exc, KeyboardInterrupt) else "aborted"


def _kind(exc: click.ClickException) -> str:
    from memfs.cli import exits

    return exits.USAGE_TYPE if isinstance(exc, click.UsageError) else type(exc).__name__


def _debug(ctx: click.Context) -> bool:
    return isinstance(ctx.obj, State) and ctx.obj.debug


@dataclass
class State:
    directory: Path
    actor: str | None
    debug: bool
    quiet: bool = False
    _repo: MemoryRepo | None = field(default=None, repr=False)
    #: Every root ``-C`` named, in order, duplicates (by resolved path) dropped; empty: none named.
    given: tuple[Path, ...] = ()

    def several(self) -> bool:
        """Whether this command reads several memory repositories: ``-C`` named more than one,
        or none and the user's configuration lists roots (:mod:`memfs.cli.roots`)."""
        return len(self.roots()) > 1

    def roots(self) -> list[Path]:
        """The roots a read verb (search, context, mcp) reads: those ``-C`` named, else the
        configured ones, else the current directory's."""
        from memfs.cli.config import configured_roots

        return list(self.given) or configured_roots() or [self.directory]

    def repos(self, scope: str | None = None, inherit: bool = False) -> MemoryRepos:
        """Every root of :meth:`roots`, with ``scope`` as a session in each (see :meth:`scoped`)."""
        from memfs.cli.output import note
        from memfs.repos import MemoryRepos

        repos = MemoryRepos.open(self.roots(), self.actor)
        for text in repos.notices:
            note(text)
        return repos if scope is None else repos.session(scope, inherit=inherit)

    def repo(self) -> MemoryRepo:
        if len(self.given) > 1:
            from memfs.errors import UsageError

            verb = click.get_current_context().info_name
            raise UsageError(
                f"memfs {verb} acts on one memory repository, and -C named {len(self.given)} "
                f"({', '.join(str(p) for p in self.given)}): only search, context and mcp read several")
        if self._repo is None:
            from memfs.api import MemoryRepo
            from memfs.cli import progress
            from memfs.cli.output import note

            self._repo = MemoryRepo.open(self.directory, self.actor)
            for text in self._repo.notices:
                note(text)
            progress.install(self._repo.store, click.get_current_context(), self.quiet)
        return self._repo

    def ask_live(self, op: str, request: Any, as_json: bool = False, *, write: bool = False) -> dict[str, Any] | None:
        """The answer of a live index running for this repository (``memfs serve``, ``watch``,
        ``mcp``) to ``request`` (a verb's typed request, sent in its wire form), or ``None`` to
        do the work in this process: none runs (then one may be started for the next command,
        :mod:`memfs.cli.background`), it is busy, it failed, or ``MEMFS_NO_LIVE`` is set. Asked
        before the repository is opened, so an answered command loads neither the store nor the
        index (:mod:`memfs.agents.live.wire`). A ``write`` the server refused raises its error
        here, as the direct path would (the write is never tried twice)."""

        if fast.live_refused(write) or self._repo is not None or len(self.given) > 1:
            return None
        if not write and self.several():
            return None
        from memfs.agents.live import wire
        from memfs.format.declare import CLI, to_wire

        args = {"request": to_wire(request, CLI), "actor": self.actor, "json": as_json}
        asked, reply = fast.handed(op, args)
        if not asked:
            reply = wire.ask(self.directory, op, args)
        if reply is None:
            from memfs.cli.background import start_if_asked

            start_if_asked(self.directory)
            return None
        if reply.get("ok") is True:
            return reply
        if write and reply.get("lost") is True:
            _after_lost(op, request)
            return None
        if write:
            from memfs.cli.output import note
            from memfs.errors import from_wire

            failed = from_wire(reply.get("failure"))
            if failed is not None:
                for text in reply.get("judge", []):
                    note(str(text))
                raise failed
        return None

    def ask_live_roots(self, request: Any, as_json: bool) -> dict[str, Any] | None:
        """A search over several roots answered by the one live index that serves them all
        (``memfs -C A -C B serve``), or ``None`` to search them here (a root is not a memory
        root found without git, the server does not host every one, it failed or is busy)."""
        import os

        if os.environ.get("MEMFS_NO_LIVE"):
            return None
        from memfs.agents.live import wire
        from memfs.format.declare import CLI, to_wire

        found: list[str] = []
        for start in self.roots():
            root = wire.find_root(start)
            if root is None:
                return None
            if str(root) not in found:
                found.append(str(root))
        if len(found) < 2:
            return None
        args = {"roots": found, "request": to_wire(request, CLI), "actor": self.actor, "json": as_json}
        return wire.request(found[0], "search_roots", args)

    def scoped(self, scope: str | None, inherit: bool = False) -> MemoryRepo:
        """What a read with ``--scope`` sees: a session bound to that scope, so nothing of another
        scope is shown, not even by ``--explain``; every scope without one (administration)."""
        repo = self.repo()
        return repo if scope is None else repo.session(scope, inherit=inherit)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "-C",
    "directories",
    type=click.Path(file_okay=False, path_type=Path),
    multiple=True,
    help="Act on the memory repository containing DIR (default: the current directory). search, context "
         "and mcp take several (-C A -C B) and read them all; other verbs take one.",
)
@click.option("--actor", envvar="MEMFS_ACTOR", help="Who is acting, e.g. agent:release-bot (author of commits).")
@click.option("--debug", is_flag=True, help="Show tracebacks for errors.")
@click.option("-q", "--quiet", is_flag=True, help="No progress bar (it is drawn only on a terminal anyway).")
@click.version_option(None, "-V", "--version", package_name="memfs")
@click.pass_context
def cli(ctx: click.Context, directories: tuple[Path, ...], actor: str | None, debug: bool, quiet: bool) -> None:
    """memfs: long-term memory for LLM agents, as Markdown files in a git repository.

    \b
    Exit codes:
      0  done
      1  the command ran and found problems (validate; import: a file was refused;
         search or context over several roots: one of them failed, the others answered)
      2  usage error (an unknown option, a malformed or missing value)
      3  refused or failed (not found, conflict, refused by a rule, git failed)
    Shell completion: eval "$(_MEMFS_COMPLETE=bash_source memfs)" (zsh_source, fish_source).
    """
    import os

    seen: dict[str, Path] = {}
    for directory in directories:
        seen.setdefault(os.path.realpath(directory), directory)
    given = tuple(seen.values())
    ctx.obj = State(given[0] if given else Path("."), actor, debug, quiet, given=given)


def _judge_notices() -> None:
    """What the write gate's judge had to say (it could not be used: the offline rules decided),
    once each, on stderr; only when a verb loaded the judge."""
    from memfs.cli.output import note

    judge = sys.modules.get("memfs.ops.judge")
    for text in judge.drain() if judge is not None else ():
        note(text)


def main(argv: list[str] | None = None) -> None:
    """Entry point: the group does the error handling; this adds what happens outside a verb
    (the global options, an unknown verb, Ctrl-C before a verb starts) in the same one line."""
    from memfs.cli import exits, output

    try:
        try:
            status = cli.main(args=argv, prog_name="memfs", standalone_mode=False)
        finally:
            _judge_notices()
    except (click.exceptions.Abort, KeyboardInterrupt) as exc:
        output.error(_stopped(exc))
        sys.exit(exits.INTERRUPTED)
    except click.exceptions.NoArgsIsHelpError as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except click.ClickException as exc:
        ctx = getattr(exc, "ctx", None)
        as_json = ctx is not None and bool(ctx.meta.get("memfs.json"))
        output.failure(exits.usage_line(exc), exc.exit_code, _kind(exc), as_json)
        sys.exit(exc.exit_code)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except Exception as exc:  # outside any verb (parsing the global options): still one line
        from memfs.errors import one_line

        if "--debug" in (argv if argv is not None else sys.argv[1:]):
            raise
        output.error(one_line(exc))
        sys.exit(exits.FAILED)
    sys.exit(status if isinstance(status, int) else exits.OK)


#: Fields of a remember whose replay is not the same statement again (a revision check, a
#: retraction, a path to create, keep-both, an explicit supersede).
_NOT_REPLAYED = ("expected_revision", "retract", "path", "keep_both", "supersedes")


def _after_lost(op: str, request: Any) -> None:
    """A write the live server accepted whose outcome never came: done here again (``None``) when
    a repeat is the same statement, which reconcile recognises and leaves as it is; else
    :class:`~memfs.errors.OutcomeUnknown`, since it may have been made."""
    from collections.abc import Mapping

    from memfs.errors import OutcomeUnknown

    candidate = request.candidate  # a remember's (:data:`memfs.agents.live.wire.WRITES`)
    fields = candidate if isinstance(candidate, Mapping) else vars(candidate)
    unsafe = [name for name in _NOT_REPLAYED if fields.get(name)]
    if not unsafe:
        return None
    raise OutcomeUnknown(
        f"the live server accepted this {op} and its answer never came (it stopped, or took over two minutes); "
        f"it may have been made, and with {', '.join('--' + n.replace('_', '-') for n in unsafe)} doing it again "
        "is not the same request: check `memfs log -n 3` (or `git log`) before writing again")
