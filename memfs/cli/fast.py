"""The fast path: ``memfs search``, ``memfs context`` and ``memfs remember`` answered by a running
live index without loading click, the verbs' modules, YAML or the library.

A fresh ``memfs search`` spends most of its time importing the command line (click, every
declaration, the option machinery) before it asks the server one question. :func:`run` reads
the words itself, by the table :mod:`memfs.cli.fast_table` made from the same declarations
(:mod:`memfs.cli.fast_spec` writes it, and a test holds the two in step), sends the request the
click application would send (:meth:`memfs.cli.app.State.ask_live`), and prints the answer with
the same code (:mod:`memfs.cli.printing`).

Anything else is the click application's: words the table does not describe exactly (an
unknown or short-clustered option, ``--help``, a value click would refuse, ``--set``, several
roots), ``MEMFS_NO_LIVE``, a write with git's identity variables set, no server, a refusal or
an error, an answer it cannot print. Once a request was sent, its reply is handed over with it
(:func:`handed`), so a write is never sent twice and a late server is not waited for twice; what
was read from stdin is handed over too.
"""

from __future__ import annotations

import os
import sys

from memfs.cli import printing

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

#: Variables that change what a commit records (its author, committer, dates) or stop it on
#: purpose (a crash point): a write made with one of them set is made in this process, where
#: they apply, never by a live index started with another environment.
COMMIT_VARIABLES = ("GIT_AUTHOR_", "GIT_COMMITTER_", "MEMFS_CRASH_")
INTERRUPTED = 130
FAILED = 3

#: The request this process already sent, and its reply, until the click application takes it.
_handed: list[tuple[str, dict[str, Any], dict[str, Any] | None]] = []


class Refused(Exception):
    """These words are not the fast path's to answer: the click application runs them."""


def live_refused(write: bool) -> bool:
    """Whether a command must not ask a live index: ``MEMFS_NO_LIVE`` is set, or a ``write``
    would be made with one of :data:`COMMIT_VARIABLES` the server does not have."""
    if os.environ.get("MEMFS_NO_LIVE"):
        return True
    return write and any(name.startswith(COMMIT_VARIABLES) for name in os.environ)


def handed(op: str, args: dict[str, Any]) -> tuple[bool, dict[str, Any] | None]:
    """``(True, reply)`` when this process already asked the live index exactly this (the fast
    path, before it handed the command over), else ``(False, None)``: then ask. Taken once. A
    write that was sent is never sent again: asking for another one then is a bug, raised."""
    if not _handed:
        return False, None
    sent_op, sent_args, reply = _handed.pop()
    if (sent_op, sent_args) == (op, args):
        return True, reply
    if sent_op == op and reply is not None and op in _writes():
        raise RuntimeError(f"the fast path sent another {op} than the command line asks for")
    return False, None


def forget() -> None:
    """Drop what was handed over and not taken (the command ended before it asked)."""
    _handed.clear()


def _writes() -> frozenset[str]:
    from memfs.agents.live import wire

    return wire.WRITES


def run(argv: list[str]) -> int | None:
    """Answer ``argv`` through a running live index and return the exit code, or ``None`` for
    the click application to run it (what was read and asked is handed over). Ctrl-C ends it as
    it ends any verb: one line (JSON too with ``--json``) and 130."""
    _handed.clear()
    try:
        return _run(argv)
    except KeyboardInterrupt:
        printing.failure(printing.echo, "interrupted", INTERRUPTED, "Interrupted", _wants_json(argv))
        return INTERRUPTED


def _run(argv: list[str]) -> int | None:
    from memfs.cli.fast_table import TABLE

    try:
        given, actor, at = _global_options(argv)
    except Exception:  # a global option read otherwise than here: click's
        return None
    spec = TABLE.get(argv[at]) if at < len(argv) else None
    if spec is None or live_refused(bool(spec["write"])) or not printing.plain_streams():
        return None
    stdin: list[bytes] = []
    try:
        directory, args = _asked(argv[at + 1:], spec, given, actor, stdin)
    except Exception:  # words or values it does not take as click would: click says what is wrong
        _replay(stdin)
        return None
    from memfs.agents.live import wire

    try:
        reply = wire.ask(directory, spec["op"], args)
    except Exception:
        _replay(stdin)
        return None  # nothing was answered: the click application asks again and reports it
    printed = _printed(spec["op"], reply, args)
    if printed is None:
        _handed.append((spec["op"], args, reply))
        _replay(stdin)
        return None
    return _write_out(printed, bool(args["json"]), "--debug" in argv[:at])


def _wants_json(argv: list[str]) -> bool:
    """What the click application answers an interrupt in (:func:`memfs.cli.exits.wants_json`):
    JSON when the verb has ``--json`` and it is among the verb's own words before ``--`` (not a
    global option's value, nor a value of a verb without ``--json``)."""
    from memfs.cli.fast_table import TABLE

    try:
        _given, _actor, at = _global_options(argv)
    except Exception:  # words click reads otherwise: it never reached the verb
        return False
    spec = TABLE.get(argv[at]) if at < len(argv) else None
    if spec is None or not any(p["name"] == "as_json" for p in spec["params"]):
        return False
    words = argv[at + 1:]
    return "--json" in (words[: words.index("--")] if "--" in words else words)


def _asked(words: list[str], spec: dict[str, Any], given: list[str], actor: str | None,
           stdin: list[bytes]) -> tuple[str, dict[str, Any]]:
    """The folder to ask from and the request's arguments, as :meth:`State.ask_live` builds them
    for the verb's ``words``; :class:`Refused` (or any error) when click would read them otherwise."""
    if len(given) > 1:
        raise Refused("several roots")
    if not spec["write"] and not given:
        from memfs.cli.config import configured_roots

        if len(configured_roots()) > 1:
            raise Refused("several configured roots")
    values = parse(words, spec["params"])
    request = {f["name"]: _field(f, values, stdin) for f in spec["fields"]}
    args = {"request": request, "actor": actor, "json": bool(values.get("as_json", False))}
    return (given[0] if given else "."), args


def _global_options(argv: list[str]) -> tuple[list[str], str | None, int]:
    """The ``-C`` folders (one each by real path, as given), the actor, and where the verb's
    word is; :class:`Refused` (or any error) for a global option read otherwise than here."""
    seen: dict[str, str] = {}
    actor = os.environ.get("MEMFS_ACTOR") or None
    i = 0
    while i < len(argv):
        word = argv[i]
        if word == "-C":
            seen.setdefault(os.path.realpath(_folder(argv[i + 1])), argv[i + 1])
        elif word == "--actor":
            actor = argv[i + 1]
        elif word.startswith("--actor="):
            actor = word[len("--actor="):]
        elif word not in ("--debug", "-q", "--quiet"):
            break
        i += 2 if word in ("-C", "--actor") else 1
    return list(seen.values()), actor, i


def _folder(value: str) -> str:
    """``-C``'s value as ``click.Path(file_okay=False)`` takes it (it need not exist)."""
    import stat

    if not value:
        raise Refused("an empty folder")
    try:
        found = os.stat(value)
    except OSError:
        return value
    if stat.S_ISREG(found.st_mode) or not os.access(value, os.R_OK):
        raise Refused(f"{value}: click refuses it")
    return value


def parse(words: list[str], params: list[dict[str, Any]]) -> dict[str, Any]:
    """A verb's words read as click reads them, into click's values (each converted by its type,
    absent ones their default); :class:`Refused` for anything not read exactly so here: an
    unknown option (``--help`` too), a short option with its value attached, a missing or
    refused value, a flag given a value, a wrong number of arguments."""
    options = {opt: p for p in params if p["kind"] == "option" for opt in p["opts"]}
    found: dict[str, Any] = {}
    positional: list[str] = []
    i, only = 0, False
    while i < len(words):
        word = words[i]
        i += 1
        if only or word == "-" or not word.startswith("-"):
            positional.append(word)
            continue
        if word == "--":
            only = True
            continue
        name, eq, attached = word.partition("=") if word.startswith("--") else (word, "", "")
        param = options.get(name)
        if param is None or (param["flag"] and eq) or (not eq and not param["flag"] and i >= len(words)):
            raise Refused(word)
        if param["flag"]:
            found[param["name"]] = True
            continue
        value = attached if eq else words[i]
        i += 0 if eq else 1
        if param["multiple"]:
            found.setdefault(param["name"], []).append(_typed(param, value))
        else:
            found[param["name"]] = _typed(param, value)
    _arguments(params, positional, found)
    return {p["name"]: _value(p, found) for p in params}


def _arguments(params: list[dict[str, Any]], positional: list[str], found: dict[str, Any]) -> None:
    arguments = [p for p in params if p["kind"] == "argument"]
    if len(arguments) != 1:
        raise Refused("not one argument")
    param = arguments[0]
    if param["nargs"] == -1:
        if positional:
            found[param["name"]] = positional
    elif len(positional) > 1:
        raise Refused("extra arguments")
    elif positional:
        found[param["name"]] = positional[0]
    if param["required"] and param["name"] not in found:
        raise Refused("missing argument")


def _value(param: dict[str, Any], found: dict[str, Any]) -> Any:
    if param["name"] not in found:
        default = param["default"]
        return tuple(default) if isinstance(default, list) else default
    value = found[param["name"]]
    return tuple(value) if isinstance(value, list) else value


def _typed(param: dict[str, Any], raw: str) -> Any:
    """A value converted by the click type the table names (:class:`Refused` where click fails)."""
    import math

    kind, *how = param["type"]
    if kind == "text":
        return raw
    if kind == "choice":
        if raw not in how[0]:
            raise Refused(raw)
        return raw
    if kind not in ("int", "float"):
        raise Refused(kind)
    value: int | float = int(raw) if kind == "int" else float(raw)
    low, high = how
    if kind == "float" and not math.isfinite(value):
        raise Refused(raw)
    if (low is not None and value < low) or (high is not None and value > high):
        raise Refused(raw)
    return value


def converted(rule: str, value: Any, flag: str) -> Any:
    """A parsed value in the request's form by its field's rule (:func:`memfs.cli.derive.rule`):
    words joined, repeated options as a tuple, one of many as itself, a time parsed."""
    if value is None:
        return None
    if rule == "join":
        return " ".join(value)
    if rule == "tuple":
        return tuple(value)
    if rule == "one_or_many":
        items = tuple(value)
        return None if not items else items[0] if len(items) == 1 else items
    if rule == "time":
        from memfs.format.times import given_time

        return given_time(value, flag)
    if rule != "value":
        raise Refused(rule)
    return value


def record_mapping(where: str | None, param: str,
                   inner: Callable[[], list[tuple[str, bool, Any]]]) -> dict[str, Any]:
    """A record field's value as its builder checks it: the JSON object in the file ``where``
    (``-``: stdin), then each inner value ``(name, is_assignments, value)`` given over it."""
    from memfs.cli.inputs import read_json_object

    mapping = read_json_object(where, param) if where else {}
    for name, assignments, value in inner():
        if assignments:
            mapping.update(value or {})
        elif value is not None and value is not False and value != ():
            mapping[name] = list(value) if isinstance(value, tuple) else value
    return mapping


def _field(field: dict[str, Any], values: dict[str, Any], stdin: list[bytes]) -> Any:
    """One request field in its wire form (:func:`memfs.format.declare.to_wire`)."""
    if field["record"]:
        where = values[field["file"]]
        if where == "-":
            _read_stdin(stdin)
        return record_mapping(where, field["file"], lambda: [
            (f["name"], f["rule"] == "assignments", _inner(f, values, stdin)) for f in field["inner"]])
    value = converted(field["rule"], values[field["name"]], field["flag"])
    if field["rule"] == "time" and value is not None:
        return value.isoformat()
    if field["list"] and value is not None and not isinstance(value, str):
        return list(value)
    return value


def _inner(field: dict[str, Any], values: dict[str, Any], stdin: list[bytes]) -> Any:
    """A record's own field as :func:`memfs.cli.derive.take` gives it."""
    if field["rule"] == "assignments":
        if values[field["name"]]:
            raise Refused("--set reads YAML")
        return {}
    value = converted(field["rule"], values[field["name"]], field["flag"])
    if field["file"] is None:
        return value
    from memfs.cli.inputs import read_body

    if values[field["file"]] == "-":
        _read_stdin(stdin)
    return read_body(value, values[field["file"]])


def _read_stdin(stdin: list[bytes]) -> None:
    """Read stdin whole once, and leave its bytes for whoever reads it next (this process's
    readers, or the click application if the command is handed over)."""
    if stdin:
        return
    stdin.append(sys.stdin.buffer.read())
    _replay(stdin)


def _replay(stdin: list[bytes]) -> None:
    if stdin:
        import io

        sys.stdin = io.TextIOWrapper(io.BytesIO(stdin[0]), encoding="utf-8")


def _printed(op: str, reply: dict[str, Any] | None, args: dict[str, Any]) -> list[tuple[str, bool, bool]] | None:
    """What to print of an ``ok`` reply, as ``echo`` calls, or ``None`` when the click application
    should deal with the reply (none, a refusal, one it would not print as it is, or one the
    streams cannot hold)."""
    if reply is None or reply.get("ok") is not True:
        return None
    out: list[tuple[str, bool, bool]] = []

    def echo(text: str, err: bool = False, nl: bool = True) -> None:
        out.append((text, err, nl))

    try:
        if op == "search":
            view, notices = reply.get("view"), reply.get("notices")
            if not isinstance(view, dict) or not isinstance(notices, list):
                return None
            printing.search(echo, notices, view, as_json=args["json"], explain=bool(args["request"]["explain"]))
        elif op == "context":
            printing.served_context(echo, reply)
        else:
            if not isinstance(reply.get("view"), dict):
                return None
            printing.served_notes(echo, reply)
            printing.remembered(echo, reply["view"], args["json"])
    except Exception:  # what the click application then prints, with its error line
        return None
    return out if all(_encodable(text, err) for text, err, _nl in out) else None


def _encodable(text: str, err: bool) -> bool:
    """Whether ``text`` can be written to its stream: where it cannot (a Latin-1 terminal, a CJK
    hit), the click application writes what it can and ends with its error line and exit code."""
    stream = sys.stderr if err else sys.stdout
    try:
        text.encode(stream.encoding, getattr(stream, "errors", None) or "strict")
    except (UnicodeError, LookupError):
        return False
    return True


def _write_out(printed: list[tuple[str, bool, bool]], as_json: bool, debug: bool) -> int:
    """Print the answer; a stream that fails otherwise than by a closed pipe (a full disk) ends
    the command as the click application ends a verb that failed so: its error line (JSON too
    with ``--json``; when that cannot be written either, the line of the second error) and 3,
    or with ``--debug`` the traceback."""
    try:
        for text, err, nl in printed:
            printing.echo(text, err=err, nl=nl)
    except BrokenPipeError:
        printing.silence_stdout()
    except Exception as exc:
        if debug:
            raise
        from memfs.errors import one_line

        try:
            printing.failure(printing.echo, one_line(exc), FAILED, type(exc).__name__, as_json)
        except Exception as again:
            printing.echo(f"memfs: error: {one_line(again)}", err=True)
        return FAILED
    return 0
