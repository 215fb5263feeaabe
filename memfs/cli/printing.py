"""What ``search``, ``context`` and ``remember`` print of an answer (a live index's view or one made
in this process), written once for both ways a command runs: the click application passes
``click.echo`` and the fast path (:mod:`memfs.cli.fast`) its copy of it (:func:`echo`), so the
same answer prints the same bytes either way. Standard library only.

``echo(text, err=False, nl=True)``: ``text`` and a newline (unless ``nl`` is false) on stdout, or
on stderr with ``err``.
"""

from __future__ import annotations

import json
import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    Echo = Callable[..., None]

#: click strips these (ANSI styles) from text written where no terminal reads it (``click.echo``)
_ANSI = r"\033\[[;?0-9]*[a-zA-Z]"


def echo(text: str, err: bool = False, nl: bool = True) -> None:
    """``click.echo`` of a text as the click application calls it (no colour option, a context
    that leaves colour to the stream): ANSI styles stripped unless the stream is a terminal,
    written then flushed. A stream whose encoding click would replace is not written here: the
    fast path leaves such a run to click (:func:`plain_streams`)."""
    stream = sys.stderr if err else sys.stdout
    if stream is None:
        return
    if nl:
        text += "\n"
    if text and "\033" in text and not _isatty(stream):
        import re

        text = re.sub(_ANSI, "", text)
    stream.write(text)
    stream.flush()


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except Exception:  # what click does with a stream that cannot say
        return False


def plain_streams() -> bool:
    """Whether stdout and stderr are streams ``click.echo`` writes to as they are: text streams
    with an encoding that is not ASCII (click wraps an ASCII one in UTF-8) and not a notebook's."""
    import codecs

    for stream in (sys.stdout, sys.stderr):
        encoding = getattr(stream, "encoding", None)
        if stream is None or not encoding or type(stream).__module__.startswith("ipykernel."):
            return False
        try:
            if codecs.lookup(encoding).name == "ascii":
                return False
        except LookupError:
            return False
    return True


def json_text(data: Any, compact: bool = False) -> str:
    """``data`` as the CLI prints JSON: indented for one result, one line for a stream's events."""
    return json.dumps(data, ensure_ascii=False, indent=None if compact else 2, default=str)


def failure(echo: Echo, text: str, exit_code: int, kind: str, as_json: bool) -> None:
    """An error that ends the command: its one line on stderr and, for a program that asked for
    ``--json``, the same as ``{"error": {"type", "message", "exit"}}`` on stdout."""
    if as_json:
        echo(json_text({"error": {"type": kind, "message": text, "exit": exit_code}}))
    echo(f"memfs: error: {text}", err=True)


def search(echo: Echo, opened: list[str], view: dict[str, Any], *, as_json: bool, explain: bool) -> None:
    """A search's view (:func:`memfs.agents.live.view.search_view`), after the notices of opening
    the repository (``opened``)."""
    for text in [*opened, *view["notices"]]:
        echo(text, err=True)
    if as_json:
        echo(json_text(view["json"]))
        return
    for problem in view["broken"]:
        echo(f"memfs: unreadable memory, not searched: {problem}", err=True)
    if any(hit["uncommitted"] for hit in view["hits"]):
        echo("memfs: hits marked [uncommitted] differ from the last commit; 'memfs context' does not inject "
             "those edits until they are committed (or 'memfs watch' commits them)", err=True)
    _search_text(echo, view, explain)


def _search_text(echo: Echo, view: dict[str, Any], explain: bool) -> None:
    if not view["hits"]:
        where = f" in scope {view['scope']}" if view["scope"] else ""
        echo(f"no eligible memory matches{where}")
    for rank, hit in enumerate(view["hits"], start=1):
        facts = [f for f in (hit["scope"], hit["type"], hit["version"] and f"version {hit['version']}") if f]
        mark = "  [uncommitted]" if hit["uncommitted"] else ""
        root = f"[{hit['root_label']}] " if "root_label" in hit else ""
        echo(f"{rank}. {root}{hit['path']}  score {hit['score']:.3f}  [{', '.join(facts)}]{mark}")
        if hit["summary"]:
            echo(f"   {hit['summary'][:160]}")
        if explain and hit.get("similarity") is not None:
            echo(f"   no query term covered; found by the vectors ([semantic]), similarity {hit['similarity']:.3f}")
        elif explain:
            echo(
                f"   {int(hit['score'])} query term(s) covered; relevance {hit['relevance']:.3f} damped by "
                f"freshness {hit['freshness']:.3f} × confidence {hit['confidence']:.2f}; source {hit['source']}"
            )
    if explain:
        echo(f"terms: {' '.join(view['terms'])}")
        if view["filtered"]:
            echo("matched the words but not eligible:")
            for path, relevance, reason in view["filtered"]:
                echo(f"   {path}  relevance {relevance:.3f}  — {reason}")


def context(echo: Echo, warnings: list[str], uncommitted_notice: str | None, text: str) -> None:
    """A context as built (its warnings and notice on stderr, the text as it is on stdout)."""
    for warning in warnings:
        echo(f"memfs: warning: {warning}", err=True)
    if uncommitted_notice:
        echo(f"memfs: {uncommitted_notice}", err=True)
    echo(text, nl=False)


def served_context(echo: Echo, answered: dict[str, Any]) -> None:
    """A context a live index built: the notices of opening the repository, then :func:`context`."""
    for text in answered["notices"]:
        echo(text, err=True)
    context(echo, answered["warnings"], answered["uncommitted_notice"], answered["text"])


def served_notes(echo: Echo, reply: dict[str, Any]) -> None:
    """What a live index that did a write had to say: its notices, then the write gate's judge's."""
    for text in [*reply.get("notices", []), *reply.get("judge", [])]:
        echo(str(text), err=True)


def remembered(echo: Echo, view: dict[str, Any], as_json: bool) -> None:
    """A remember's view (:func:`memfs.agents.live.view.remember_view`)."""
    if as_json:
        echo(json_text(view["json"]))
        return
    for text in view["lines"]:
        echo(text)
    for text in view["notes"]:
        echo(text, err=True)


def silence_stdout() -> None:
    """The reader went away (``memfs log | head -1``): send what is left of stdout nowhere, so the
    interpreter's final flush does not fail again, and let the command end quietly."""
    import io

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, io.UnsupportedOperation):
        return
