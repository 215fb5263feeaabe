"""The ``memfs`` command. Each verb lives in its own module and is imported only when run, so
that a one-shot call (an agent running ``memfs search``) pays only for what it uses.

Every verb is one call on the library (:class:`memfs.store.repo.MemoryRepo` and friends); this layer
only parses arguments and prints results. Errors the user can fix print one line and exit 2.
"""

from __future__ import annotations

import importlib
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click

#: verb -> "module:function" under memfs.cli
COMMANDS = {
    # foundation: the store and its history
    "init": "init:init_cmd",
    "new": "write:new_cmd",
    "write": "write:write_cmd",
    "add": "write:add_cmd",
    "show": "show:show_cmd",
    "ls": "listing:ls_cmd",
    "tree": "listing:tree_cmd",
    "rm": "write:rm_cmd",
    "validate": "validate:validate_cmd",
    "log": "history:log_cmd",
    "diff": "history:diff_cmd",
    "revert": "history:revert_cmd",
    "demo": "demo:demo_cmd",
    # search and recall
    "search": "search:search_cmd",
    "reindex": "search:reindex_cmd",
    # lineage and retraction
    "retract": "lineage:retract_cmd",
    "reinstate": "lineage:reinstate_cmd",
    "review": "review:review_cmd",
    "impact": "lineage:impact_cmd",
    "graph": "lineage:graph_cmd",
    # lifecycle
    "remember": "lifecycle:remember_cmd",
    "history": "lifecycle:history_cmd",
    "expire": "lifecycle:expire_cmd",
    "forget": "lifecycle:forget_cmd",
    "purge": "lifecycle:purge_cmd",
    "stats": "lifecycle:stats_cmd",
    # agent interfaces
    "context": "agent:context_cmd",
    "tool": "agent:tool_cmd",
    "watch": "agent:watch_cmd",
    "mcp": "agent:mcp_cmd",
    # collaboration
    "sync": "collab:sync_cmd",
    "propose": "collab:propose_cmd",
    "install-merge-driver": "collab:install_merge_driver_cmd",
    "merge-driver": "collab:merge_driver_cmd",
}


class LazyGroup(click.Group):
    """A click group that imports a verb's module only when that verb runs (or help lists it)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(name for name in COMMANDS if self.get_command(ctx, name) is not None)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        """The verb's command, or ``None`` while the module that provides it does not exist yet."""
        target = COMMANDS.get(name)
        if target is None:
            return None
        module, attr = target.split(":")
        try:
            loaded = importlib.import_module(f"memfs.cli.{module}")
        except ModuleNotFoundError as exc:
            if exc.name == f"memfs.cli.{module}":
                return None
            raise
        return getattr(loaded, attr, None)


@dataclass
class State:
    directory: Path
    actor: str | None
    debug: bool
    _repo: Any = field(default=None, repr=False)

    def repo(self):
        if self._repo is None:
            from memfs.cli.output import note
            from memfs.store.repo import MemoryRepo

            self._repo = MemoryRepo.open(self.directory, self.actor)
            for text in self._repo.notices:
                note(text)
        return self._repo


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "-C",
    "directory",
    type=click.Path(file_okay=False, path_type=Path),
    default=".",
    help="Act on the memory repository containing DIR (default: the current directory).",
)
@click.option("--actor", envvar="MEMFS_ACTOR", help="Who is acting, e.g. agent:release-bot (author of commits).")
@click.option("--debug", is_flag=True, help="Show tracebacks for errors.")
@click.version_option(package_name="memfs")
@click.pass_context
def cli(ctx: click.Context, directory: Path, actor: str | None, debug: bool) -> None:
    """memfs: long-term memory for LLM agents, as Markdown files in a git repository."""
    ctx.obj = State(directory, actor, debug)


def main(argv: list[str] | None = None) -> None:
    """Entry point: run the CLI, turning memfs errors into one line on stderr and exit code 2."""
    from memfs.errors import MemfsError

    debug = "--debug" in (argv if argv is not None else sys.argv[1:])
    try:
        cli.main(args=argv, prog_name="memfs", standalone_mode=False)
    except MemfsError as exc:
        if debug:
            raise
        from memfs.cli.output import error

        error(str(exc))
        sys.exit(exc.exit_code)
    except (click.exceptions.Abort, KeyboardInterrupt):
        click.echo("Aborted.", err=True)
        sys.exit(130)
    except BrokenPipeError:
        sys.exit(0)
    except OSError as exc:
        if debug:
            raise
        from memfs.cli.output import error

        error(f"{exc.filename or ''}: {exc.strerror or exc}".lstrip(": "))
        sys.exit(2)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
