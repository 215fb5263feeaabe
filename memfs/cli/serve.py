"""``memfs serve``: run the live index in the foreground, or ask about / stop a running one."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from memfs.cli import State, exits
from memfs.cli.options import json_option, pass_state

if TYPE_CHECKING:
    from memfs.agents.live.listener import SocketServer


@click.command("serve")
@click.option("--status", "show_status", is_flag=True, help="Say whether a live index serves this repository.")
@click.option("--stop", "stop_it", is_flag=True, help="Stop the live index serving this repository.")
@click.option("--debounce", type=click.FloatRange(min=0), default=None,
              help="Seconds of quiet before a change is indexed [0.05].")
@click.option("--polling", is_flag=True, help="Poll instead of inotify/FSEvents (network or container mounts).")
@click.option("--idle-timeout", type=click.FloatRange(min=0, min_open=True), default=None, metavar="SECONDS",
              help="Stop after this many seconds without a request (default: never).")
@json_option
@pass_state
def serve_cmd(state: State, show_status: bool, stop_it: bool, debounce: float | None, polling: bool,
              idle_timeout: float | None, as_json: bool) -> None:
    """Keep the search index current and answer other memfs commands from it.

    Runs in the foreground until Ctrl-C (exit 130), SIGTERM, 'memfs serve --stop' or --idle-timeout
    (start it with '&', nohup or a service manager to keep it running; or let commands start one
    in the background: [serve] start = "auto" in the user's configuration). While it runs,
    'memfs search', 'context' and 'remember' in this repository ask it over a local socket
    instead of loading the index and the write path themselves; the answers are the same, and
    any doubt about the server (gone, hung, late) makes them do the work themselves. 'memfs -C A
    -C B serve' serves several repositories from one process, and 'memfs -C A -C B search' asks
    it. A save is searchable once its event is processed (debounce plus the re-indexing of that
    file). --status prints what it reports (of the first -C's server), exits 3 if none runs; --stop
    waits until it stopped.
    """
    import sys

    from memfs.cli.output import emit_json, line

    if not (show_status or stop_it) and len(state.given) > 1:
        _serve_roots(state, debounce, polling, idle_timeout)
        return
    if show_status or stop_it:
        from memfs.api import MemoryRepo

        repo = MemoryRepo.open(state.given[0], state.actor) if len(state.given) > 1 else state.repo()
        found = repo.live_status()
        if stop_it and found is not None:
            repo.live_stop()
            _wait_gone(found)
        if as_json:
            emit_json({"running": found is not None, "stopped": stop_it and found is not None, **(found or {})})
        elif found is None:
            line(f"no live index serves {repo.root}")
        else:
            verb = "stopping" if stop_it else "serving"
            line(f"{verb} {found['root']}: pid {found['pid']}, socket {found['socket']}, "
                 f"{found['processed']} update(s) processed, {found['pending']} pending, since {found['started']}")
        if found is None:
            sys.exit(exits.FAILED)
        return
    repo = state.repo()
    stopper = exits.Stopper()
    server = repo.live_server(debounce=debounce, polling=polling, idle_timeout=idle_timeout)
    _run(server, stopper)


def _serve_roots(state: State, debounce: float | None, polling: bool, idle_timeout: float | None) -> None:
    """``memfs -C A -C B serve``: one process, one socket, every root's live index."""
    from memfs.api import MemoryRepo

    stopper = exits.Stopper()
    repos = [MemoryRepo.open(root, state.actor) for root in state.given]
    server = repos[0].live_server(debounce=debounce, polling=polling, idle_timeout=idle_timeout, also=repos[1:])
    _run(server, stopper)


def _run(server: SocketServer, stopper: exits.Stopper) -> None:
    from memfs.agents.live.listener import serve_forever
    from memfs.cli.output import note

    note(f"memfs: serving the live index of {', '.join(server.lives)} on {server.path} "
         "(Ctrl-C or 'memfs serve --stop' to stop)")
    serve_forever(server, stopper.event)
    note("memfs: stopped serving" + (" (idle)" if server.idle() else ""))
    stopper.done()


def _wait_gone(found: dict[str, Any], seconds: float = 30.0) -> None:
    """Wait until the stopped server removed its socket and record, and its process is gone
    unless another door hosts it (``memfs mcp`` and ``watch`` go on without the socket)."""
    import os
    import time

    from memfs.agents.live.wire import pid_alive

    deadline = time.monotonic() + seconds
    while os.path.exists(found["socket"]) and time.monotonic() < deadline:
        time.sleep(0.05)
    while found.get("door") == "serve" and pid_alive(found["pid"]) and time.monotonic() < deadline:
        time.sleep(0.05)
