"""Every exception memfs raises on purpose, in one small hierarchy.

A :class:`MemfsError` is a problem the caller can fix, with a message that says which file,
which field and what to do. Messages speak library terms: the argument at fault is named in
``param`` (``"reason"``, ``"scope"``) and each door adds its own spelling of it (the CLI
``--reason``, MCP the tool argument); ``forceable`` says a person may override the refusal
(the CLI's ``--force``, the library's ``force=True``; agents never can). Anything else escaping
memfs is a bug.

::

    MemfsError
    ├── UsageError        the request cannot be acted on as given (a bad or missing value)
    ├── NotFound          the thing named does not exist
    │   ├── MemoryNotFound
    │   └── NotAMemoryRepo
    ├── ConflictError     the state changed under the caller, or is in the way
    │   └── LockTimeout
    ├── Refused           a rule forbids it (nothing was written)
    │   ├── PathError     outside the memory root, or not a memory file
    │   ├── WriteRefused  the write gate (``refusals`` lists every rule)
    │   └── SyncRefused   it would need a force-push or discard history
    ├── InvalidMemory     content fails validation (``problems`` lists every finding)
    │   └── TranscriptError
    ├── InvalidConfig     ``.memfs.toml`` cannot be read
    └── GitError          git itself failed; the message carries git's explanation

The CLI maps classes to exit codes in one place (:mod:`memfs.cli.exits`).
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:  # (names for annotations only: the fast path imports this module)
    from collections.abc import Sequence
    from typing import Any


class MemfsError(Exception):
    """Base class: a problem the caller can fix. ``param`` names the argument at fault, if one is
    (``str(exc)`` then starts with it: ``"reason: say why..."``; ``message`` is the text without
    it, for doors that spell the argument their own way); ``forceable`` says a person may
    override it."""

    def __init__(self, message: str, *, param: str | None = None, forceable: bool = False) -> None:
        super().__init__(f"{param}: {message}" if param else message)
        self.message = message
        self.param = param
        self.forceable = forceable


class UsageError(MemfsError):
    """The request cannot be acted on as given: a value is missing, malformed or out of range."""


class NotFound(MemfsError):
    """What the request names does not exist."""


class MemoryNotFound(NotFound):
    """No memory file at that path (or at that commit)."""


class NotAMemoryRepo(NotFound):
    """The directory is not inside a git repository holding memories."""


class ConflictError(MemfsError):
    """The repository changed since the caller read it, or something is in the way (a stale
    revision, an existing file, a merge conflict)."""


class LockTimeout(ConflictError):
    """Another memfs process held the repository's write lock for too long."""


class OutcomeUnknown(ConflictError):
    """A live server accepted the write and its outcome never came: it may have been made, and
    doing it again is not safe (a revision check, a retraction, a path, keep-both, supersedes)."""


class Refused(MemfsError):
    """A rule forbids the request; nothing was written."""


class PathError(Refused):
    """A path is outside the memory root, inside ``.git/`` or ``.memfs/``, or not a memory file."""


class WriteRefused(Refused):
    """The write gate refused a candidate; ``refusals`` lists every rule it broke."""

    def __init__(self, refusals: Sequence[Any]) -> None:
        first = refusals[0]
        more = f" (+{len(refusals) - 1} more rule(s))" if len(refusals) > 1 else ""
        forceable = all(r.forceable for r in refusals)
        super().__init__(f"nothing was written: {first}{more}", forceable=forceable)
        self.refusals = list(refusals)


class SyncRefused(Refused):
    """Sync would have to discard or overwrite history (a force-push), or let a secret in; it
    refuses instead. ``problems`` lists every finding when the message names only the first."""

    def __init__(self, message: str, problems: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.problems = list(problems)


class InvalidMemory(MemfsError):
    """A memory file (or a write) fails validation; ``problems`` holds every finding
    (:class:`memfs.format.model.Problem` records: file, line, field, message, fix)."""

    def __init__(
        self, message: str, problems: Sequence[Any] = (), *, param: str | None = None, forceable: bool = False
    ) -> None:
        super().__init__(message, param=param, forceable=forceable)
        self.problems: list[Any] = list(problems)


class TranscriptError(InvalidMemory):
    """A transcript the caller asked to be strict about has orphaned tool calls or results."""


class InvalidConfig(MemfsError):
    """``.memfs.toml`` is not valid TOML, or a setting in it has the wrong shape."""


class GitError(MemfsError):
    """A git command failed; the message carries git's own explanation."""


def without_host_paths(text: str, root: os.PathLike[str] | str) -> str:
    """``text`` with the memory root's host path taken out (paths below it read repo-relative, the
    root itself as ``.``): what a model is told never shows where the host keeps memory, whatever
    raised (an operating-system error's file name, git's own message)."""
    shown = os.fspath(root).rstrip("/")
    return text.replace(shown + "/", "").replace(shown, ".") if shown and shown in text else text


def one_line(exc: BaseException, limit: int = 500, *, roots: Sequence[os.PathLike[str] | str] = ()) -> str:
    """One line for any exception, for the doors' last resort (the CLI without ``--debug``, the
    file tools, MCP): a memfs error's message, an operating-system error's file and reason, or
    for anything else (a bug) its class and first line. Never a traceback, never several lines.
    An operating-system error's file is shown relative to the first of ``roots`` it is below
    (:func:`without_host_paths`) before a long one is cut: cut first, a long root left only its
    own start in the line, and the file's name was lost."""
    if isinstance(exc, MemfsError):
        text = str(exc)
    elif isinstance(exc, OSError):
        name = exc.filename if isinstance(exc.filename, str) else ""
        for root in roots:
            name = without_host_paths(name, root)
        if len(name) > 100:
            name = name[:100] + "..."
        text = f"{name}: {exc.strerror or exc}".lstrip(": ")
    elif isinstance(exc, RecursionError):
        text = "the input is nested too deeply to handle"
    elif isinstance(exc, MemoryError):
        text = "out of memory: the input is too large"
    else:
        first = (str(exc).strip().splitlines() or [""])[0]
        text = f"internal error ({type(exc).__name__}{': ' + first if first else ''}); run with --debug for details"
    text = " ".join(text.split()) if "\n" in text or "\r" in text else text
    return text if len(text) <= limit else text[: limit - 3] + "..."


# --- across processes (a live index's reply) ---------------------------------------------------
class _Refusal:
    """A write-gate rule as another process reported it: its text, JSON and whether it may be forced."""

    def __init__(self, text: str, json: Any, forceable: bool) -> None:
        self.text, self.json, self.forceable = text, json, forceable

    def __str__(self) -> str:
        return self.text

    def to_json(self) -> Any:
        return self.json


def to_wire(exc: MemfsError) -> dict[str, Any]:
    """``exc`` as another process rebuilds it (:func:`from_wire`): its class's name, its message
    and argument, whether a person may force it, and a write refusal's rules."""
    found: dict[str, Any] = {"type": type(exc).__name__, "message": exc.message, "param": exc.param,
                             "forceable": exc.forceable}
    if isinstance(exc, WriteRefused):
        found["refusals"] = [{"text": str(r), "json": r.to_json(), "forceable": bool(r.forceable)}
                             for r in exc.refusals]
    return found


def from_wire(data: Any) -> MemfsError | None:
    """The error :func:`to_wire` sent, of the same class, text and argument (so a door prints it
    and exits as if raised here); ``None`` when ``data`` is not one."""
    if not isinstance(data, dict) or not isinstance(data.get("message"), str):
        return None
    cls = globals().get(str(data.get("type")))
    if not isinstance(cls, type) or not issubclass(cls, MemfsError):
        return None
    param = data.get("param") if isinstance(data.get("param"), str) else None
    if cls is WriteRefused:
        rules = data.get("refusals")
        if not isinstance(rules, list) or not rules or not all(isinstance(r, dict) for r in rules):
            return None
        return WriteRefused([_Refusal(str(r.get("text")), r.get("json"), r.get("forceable") is True) for r in rules])
    exc = cls.__new__(cls)
    MemfsError.__init__(exc, data["message"], param=param, forceable=data.get("forceable") is True)
    if isinstance(exc, InvalidMemory):
        exc.problems = []
    return exc
