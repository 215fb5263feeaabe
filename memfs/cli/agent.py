"""``memfs tool``, ``watch``, ``mcp`` and ``context``: the verbs agents and their hosts use."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, NoReturn

import click

from memfs.agents.verbs import Context, Eval
from memfs.cli import State, exits, printing
from memfs.cli.derive import command
from memfs.cli.options import SessionSpec, json_option, pass_state, session_options
from memfs.cli.output import emit_json, line, note
from memfs.errors import UsageError

if TYPE_CHECKING:
    from memfs.agents.live.server import LiveIndex
    from memfs.api import MemoryRepo

#: Who agent-facing verbs act as when neither --actor nor MEMFS_ACTOR says.
TOOL_ACTOR = "agent:memfs-tool"
MCP_ACTOR = "agent:mcp"


@click.command("tool")
@session_options
@click.option("--source", help="Source for memories created from a bare body (default: the actor).")
@click.option("--text", "as_text", is_flag=True, help="Print only the text meant for the model.")
@pass_state
def tool_cmd(state: State, session: SessionSpec, source: str | None, as_text: bool) -> None:
    """Run one memory-tool request read as JSON from stdin (view, create, str_replace, insert,
    delete, rename, update_description, append, replace_section) in a session bound to --scope.
    Prints the result as JSON; exits 2 for a malformed request, 3 if it was refused. Acts as
    agent:memfs-tool unless --actor or MEMFS_ACTOR says otherwise.

    Example: echo '{"command":"view","path":"/memories"}' | memfs tool --scope user:U5
    """
    from memfs.agents.tools import ToolContext, request_from_json

    repo = session.open(state, TOOL_ACTOR)
    request = request_from_json(sys.stdin.buffer.read())
    result = repo.tool(request, ToolContext(actor=repo.actor, scope=session.scope, source=source))
    if as_text:
        (line if result.ok else note)(result.output)
    else:
        emit_json(result.to_json())
    if not result.ok:
        sys.exit(exits.USAGE if result.error_type == "UsageError" else exits.FAILED)


@click.command("watch")
@click.option(
    "--debounce", type=float, default=0.25, show_default=True, help="Seconds of quiet before a change is taken."
)
@click.option("--polling", is_flag=True, help="Poll instead of inotify/FSEvents (network or container mounts).")
@click.option("--no-index", is_flag=True, help="Do not keep the search index caught up.")
@json_option
@pass_state
def watch_cmd(state: State, debounce: float, polling: bool, no_index: bool, as_json: bool) -> None:
    """Commit direct edits to memory files as they are saved; report invalid files instead.

    Also serves the live index (as 'memfs serve' does) unless one already runs or --no-index.
    Runs until Ctrl-C (exit 130) or SIGTERM (exit 0), then commits whatever is still pending. Changes made while
    nothing was watching are picked up first (from git status).
    """
    from memfs.agents.watch import WatchEvent, watch_forever

    def report(event: WatchEvent) -> None:
        if as_json:
            emit_json(event.to_json(), compact=True)
        elif event.outcome != "unchanged":
            line(str(event))
        sys.stdout.flush()

    stopper = exits.Stopper()
    repo = state.repo()
    live, stop_live = (None, _nothing) if no_index else hosted_live(repo, "watch", alone=False)
    try:
        watcher = repo.watcher(debounce=debounce, report=report, index=not no_index and live is None,
                               polling=polling)
        note(f"memfs: watching {repo.root} (Ctrl-C to stop)")
        watch_forever(watcher, stopper.event)
    finally:
        stop_live()
    note("memfs: stopped watching")
    stopper.done()


@click.command("mcp")
@session_options
@click.option("--http", "http_port", type=int,
              help="Serve streamable HTTP at http://127.0.0.1:PORT/mcp instead of stdio.")
@click.option("--list-tools", is_flag=True, help="Print which tools this installation serves, then exit.")
@click.option("--no-live", is_flag=True,
              help="Do not keep a live index in this process: every search asks git what changed first.")
@pass_state
def mcp_cmd(state: State, session: SessionSpec, http_port: int | None, list_tools: bool, no_live: bool) -> None:
    """Serve this memory repository over MCP (stdio by default) for agent hosts, in a session
    bound to --scope: the tools see and change that scope only (and system/ to read), whatever
    their arguments say. Acts as agent:mcp unless --actor or MEMFS_ACTOR says otherwise.

    The server keeps a live index while it runs and serves it to other memfs commands in this
    repository as 'memfs serve' does (unless one already runs), so searches skip the per-query
    git scan; --no-live turns that off.

    Over several roots (-C A -C B mcp) it serves memory_search and memory_context over all of
    them, each root in its own session, and no write tool (a write acts on one repository).

    Example host config: {"command": "memfs", "args": ["-C", "/path/to/memory", "mcp", "--scope", "user:U5"]}
    """
    from memfs import mcp_server

    if http_port is not None and not 1 <= http_port <= 65535:
        raise UsageError(f"{http_port}: give a port from 1 to 65535", param="http_port")
    if state.several():
        _serve_roots(state, session, http_port, list_tools)
        return
    if list_tools:
        emit_json(mcp_server.tool_names(mcp_server.build_server(session.open(state, MCP_ACTOR))))
        return
    live = None if no_live else _StartingLive(state.repo(), "MCP")
    stop_live = _nothing if live is None else live.stop
    try:
        server = mcp_server.build_server(session.open(state, MCP_ACTOR), live)
        if live is not None:
            live.begin()  # after the server is built: the handshake's imports do not share the CPU with it
        if http_port is None:
            _interrupt_stdio(state.repo(), stop_live)
            mcp_server.serve(server)
            return
        note(f"memfs: serving MCP at http://127.0.0.1:{http_port}{mcp_server.HTTP_PATH} (Ctrl-C to stop)")
        mcp_server.serve(server, transport="http", port=http_port)
    finally:
        stop_live()


def _serve_roots(state: State, session: SessionSpec, http_port: int | None, list_tools: bool) -> None:
    """``memfs -C A -C B mcp``: a server that recalls from every root and writes to none; a
    root that does not open is named on stderr and the others are served."""
    from memfs import mcp_server

    repos = session.open_roots(state, MCP_ACTOR)
    for failed in repos.failures:
        note(f"memfs: error: {failed}")
    server = mcp_server.build_roots_server(repos)
    if list_tools:
        emit_json(mcp_server.tool_names(server))
    elif http_port is None:
        _interrupt_stdio(None, _nothing)
        mcp_server.serve(server)
    else:
        note(f"memfs: serving MCP at http://127.0.0.1:{http_port}{mcp_server.HTTP_PATH} (Ctrl-C to stop)")
        mcp_server.serve(server, transport="http", port=http_port)


def _interrupt_stdio(repo: MemoryRepo | None, stop_live: Callable[[], None]) -> None:
    """Ctrl-C ends a stdio server with 130, as every verb. The transport reads stdin in a thread
    that nothing can wake (a terminal's stdin stays open), so an interrupt would wait for the
    host's next line: instead the process ends here, once no tool call is between reading and
    committing (it holds the repository's write lock until its commit exists), after the live
    index it serves stopped (its socket and record removed); a server that writes nothing
    (``repo`` ``None``: several roots) ends at once."""
    import os
    import signal

    def end() -> NoReturn:
        stop_live()
        note("memfs: error: interrupted")
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(exits.INTERRUPTED)

    def interrupted(signum: int, frame: object) -> None:
        if repo is None:
            end()
        with repo.store.locked():
            end()

    signal.signal(signal.SIGINT, interrupted)


def _nothing() -> None:
    """What stops a live index that was not started."""


class _StartingLive:
    """:func:`hosted_live` started on a thread once :meth:`begin` is called, so the door answers
    while the live index builds (its full check can take seconds at 100k memories). Called, it
    answers the live index once it has started, ``None`` before (reads then take the direct path,
    which gives the same answers); :meth:`stop` stops it, after its start if that is under way."""

    def __init__(self, repo: MemoryRepo, door: str) -> None:
        import threading

        self.started: list[tuple[LiveIndex | None, Callable[[], None]]] = []
        self.thread = threading.Thread(target=lambda: self.started.append(hosted_live(repo, door)),
                                       name="memfs-live-start", daemon=True)

    def __call__(self) -> LiveIndex | None:
        return self.started[0][0] if self.started else None

    def begin(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        if self.thread.ident is not None:
            self.thread.join()
        if self.started:
            self.started[0][1]()


def hosted_live(repo: MemoryRepo, door: str, *, alone: bool = True) -> tuple[LiveIndex | None, Callable[[], None]]:
    """A started live index for ``memfs mcp`` or ``watch``, and what stops it: served on its
    socket too, so the other memfs commands in this repository use it (as under ``memfs
    serve``). When another process already serves this root, one of this process's own
    (``alone``, what MCP reads through), else none; when the system refuses a file watcher (the
    inotify watch limit, say) none, with a note: then the door reads as ``--no-live`` does, which
    is correct, only slower."""
    from memfs.agents.live.server import AlreadyRunning
    from memfs.errors import MemfsError

    try:
        server = repo.live_server()
        server.door = door.lower()
        try:
            server.start()
        except AlreadyRunning:
            if not alone:
                return None, _nothing
            live = repo.live_index()
            return live, live.stop
        return server.live, server.stop
    except (OSError, MemfsError) as exc:
        note(f"memfs: serving {door} without a live index ({exc}); every search asks git first. Raise "
             "fs.inotify.max_user_watches, or pass --no-live (watch: --no-index) to say so")
        return None, _nothing


@command(Context)
def context_cmd(state: State, op: Context) -> None:
    if state.several():
        from memfs.cli.roots import context_roots

        scope = op.scope if isinstance(op.scope, str) else None
        context_roots(state.repos(scope, bool(op.inherit)), op, _print_context)
        return
    answered = state.ask_live("context", op)
    if answered is not None:
        printing.served_context(click.echo, answered)
        return
    repo = state.scoped(op.scope, bool(op.inherit)) if isinstance(op.scope, str) else state.repo()
    built = repo.run(op)
    _print_context(built.warnings, built.uncommitted_notice, built.render())


def _print_context(warnings: list[str], uncommitted_notice: str | None, text: str) -> None:
    printing.context(click.echo, warnings, uncommitted_notice, text)


@command(Eval)
@json_option
def eval_cmd(state: State, op: Eval, as_json: bool) -> None:
    report = state.repo().run(op)
    if as_json:
        emit_json(report.to_json())
    else:
        click.echo(report.table(), nl=False)
    if not report.passed:
        sys.exit(exits.PROBLEMS)
