"""``memfs serve``: run the live index in the foreground, or ask about / stop a running one."""

from __future__ import annotations

import click

from memfs.cli import State, exits
from memfs.cli.options import json_option, pass_state


@click.command("serve")
@click.option("--status", "show_status", is_flag=True, help="Say whether a live index serves this repository.")
@click.option("--stop", "stop_it", is_flag=True, help="Stop the live index serving this repository.")
@click.option("--debounce", type=click.FloatRange(min=0), default=None,
              help="Seconds of quiet before a change is indexed [0.05].")
@click.option("--polling", is_flag=True, help="Poll instead of inotify/FSEvents (network or container mounts).")
@json_option
@pass_state
def serve_cmd(state: State, show_status: bool, stop_it: bool, debounce: float | None, polling: bool,
              as_json: bool) -> None:
    """Keep the search index current and answer searches from other memfs commands.

    Runs in the foreground until Ctrl-C (exit 130), SIGTERM or 'memfs serve --stop' (start it with '&',
    nohup or a service manager to keep it running). While it runs, 'memfs search' in this
    repository asks it over a local socket instead of checking the files with git first; the
    answers are the same. A save is searchable once its event is processed (debounce plus the
    re-indexing of that file). --status prints what it reports, exits 3 if none runs.
    """
    import sys

    from memfs.cli.output import emit_json, line, note

    repo = state.repo()
    if show_status or stop_it:
        found = repo.live_status()
        if stop_it and found is not None:
            repo.live_stop()
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
    stopper = exits.Stopper()
    server = repo.live_server(debounce=debounce, polling=polling)
    from memfs.agents.live.listener import serve_forever

    note(f"memfs: serving the live index of {repo.root} on {server.path} (Ctrl-C or 'memfs serve --stop' to stop)")
    serve_forever(server, stopper.event)
    note("memfs: stopped serving")
    stopper.done()
