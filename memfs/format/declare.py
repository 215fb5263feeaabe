"""Typed records whose fields say how each door offers them: the machinery under every verb's
single declaration (:mod:`memfs.ops.verbs`).

A field declared with :func:`param` carries a :class:`Param`: its help (one text for the CLI and
MCP), which doors offer it (the library always has every field), its CLI spelling, bounds and
the few places where a model's request is bounded tighter than a person's (``model_default``,
``model_minimum``, ``model_maximum``). :func:`record` makes such a dataclass (frozen; fields
keyword-only unless declared otherwise), and :func:`fields` reads the declaration back for a
door. It sits in the format layer so that a policy record (a ``remember`` candidate) can be
declared the same way as a verb's request. Pure data: nothing here does I/O or imports a door.
"""

from __future__ import annotations

import collections.abc
import dataclasses
import datetime as dt
import functools
import sys
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, TypeVar, dataclass_transform, overload

from memfs.errors import UsageError

T = TypeVar("T")
C = TypeVar("C", bound=type)

CLI = "cli"
MCP = "mcp"
#: The doors a field may be offered at (the library always has every field).
DOORS = frozenset({CLI, MCP})
#: ``wire`` forms: ``time`` is ISO 8601 text at the doors, parsed there into a ``datetime`` (by
#: :func:`memfs.format.times.given_time`; a record's field a model sends, such as a
#: candidate's ``expires``, is parsed by the record's own builder);
#: ``fields`` is a memory's frontmatter fields (on the command line, its field options: ``--type``,
#: ``--scope``... and ``--set FIELD=YAML``; for a model, a JSON object); ``callable`` is a
#: Python function, named ``MODULE:FUNCTION`` on the command line; ``assignments`` is a mapping of
#: fields, ``--set FIELD=YAML`` (repeatable) on the command line.
Wire = Literal["value", "time", "fields", "callable", "assignments"]


class _NotSet:
    def __repr__(self) -> str:
        return "NOT_SET"


NOT_SET: Any = _NotSet()


@dataclass(frozen=True)
class Param:
    """What the doors need to offer one request field.

    ``flags`` are the CLI spellings (default ``--field-name``); ``argument`` makes it a CLI
    positional (``variadic``: any number of words, joined by spaces for a text field); a
    sequence field is a repeatable option or a list. ``choices`` become an enum where the door
    has a schema (MCP) and completions on the command line. ``minimum``/``maximum`` bound a
    number (or the length of a list or a text) at every door; ``model_default``, ``model_minimum`` and
    ``model_maximum`` replace them for a model's request only (a person may ask for more), and
    ``model_required`` makes a model give a field a person may leave out. A field holding a
    ``record`` (a :func:`record` class) is offered as that record's fields, one by one. A text
    field with a ``file_flag`` may also be read from a file on the command line (``-`` is stdin).
    ``path`` says a text names a folder (``existing-dir``: one that must exist) or a file;
    ``flag_values`` offers a text with few values as one flag each (``--rebase``, ``--merge``:
    ``(flag, value, help)``). A true/false field that defaults to true is turned off on the
    command line by ``--no-NAME``."""

    help: str
    doors: frozenset[str] = DOORS
    flags: tuple[str, ...] = ()
    argument: bool = False
    variadic: bool = False
    metavar: str | None = None
    choices: tuple[str, ...] = ()
    complete: str | None = None
    minimum: int | float | None = None
    maximum: int | float | None = None
    model_default: Any = NOT_SET
    model_minimum: int | float | None = None
    model_maximum: int | float | None = None
    wire: Wire = "value"
    model_note: str = ""
    model_required: bool = False
    record: type | None = None
    file_flag: str | None = None
    path: Literal["dir", "existing-dir", "file"] | None = None
    flag_values: tuple[tuple[str, str, str], ...] = ()

    def at(self, door: str) -> bool:
        return door in self.doors

    def text(self, door: str) -> str:
        """The field's help at ``door``: a model is also told what only its door does."""
        return f"{self.help} {self.model_note}" if door != CLI and self.model_note else self.help


@overload
def param(*, default: T, help: str, kw_only: bool = ..., **door: Any) -> T: ...
@overload
def param(*, default_factory: Callable[[], T], help: str, kw_only: bool = ..., **door: Any) -> T: ...
@overload
def param(*, help: str, kw_only: bool = ..., **door: Any) -> Any: ...
def param(
    *,
    default: Any = dataclasses.MISSING,
    default_factory: Any = dataclasses.MISSING,
    help: str,
    kw_only: bool = True,
    **door: Any,
) -> Any:
    """A request field: its default and its :class:`Param` (``door`` are Param's other fields;
    ``doors`` may be given as any iterable of door names)."""
    if "doors" in door:
        door["doors"] = frozenset(door["doors"])
    spec = Param(help=help, **door)
    return dataclasses.field(default=default, default_factory=default_factory, kw_only=kw_only,
                             metadata={"memfs": spec})


@dataclass_transform(frozen_default=True, kw_only_default=True, field_specifiers=(param,))
def record(cls: C) -> C:
    """A frozen dataclass whose fields are declared with :func:`param`."""
    dataclasses.dataclass(frozen=True)(cls)
    return cls


@dataclass(frozen=True)
class Field:
    """One request field as the doors see it: name, resolved type, default (or ``NOT_SET`` when
    required) and its :class:`Param`."""

    name: str
    type: Any
    default: Any
    spec: Param

    @property
    def required(self) -> bool:
        return self.default is NOT_SET

    @property
    def sequence(self) -> bool:
        return any(typing.get_origin(kind) in _SEQUENCES for kind in (self.type, *typing.get_args(self.type)))

    @property
    def base(self) -> Any:
        """The type without ``None`` (and a sequence's item type)."""
        for kind in (self.type, *typing.get_args(self.type)):
            if typing.get_origin(kind) in _SEQUENCES:
                return typing.get_args(kind)[0]
        return _without_none(self.type)

    @property
    def optional(self) -> bool:
        return type(None) in typing.get_args(self.type)

    @property
    def one_or_many(self) -> bool:
        """A text or several (``str | Sequence[str]``): one given is the text itself."""
        return self.sequence and typing.get_origin(self.type) in (typing.Union, types.UnionType) and str in (
            typing.get_args(self.type))


_SEQUENCES = (tuple, list, collections.abc.Sequence, collections.abc.Iterable)


def fields(cls: type, door: str | None = None) -> tuple[Field, ...]:
    """The request's fields, in order; only those offered at ``door`` when given. Types are
    resolved one field at a time, so a library-only field may name a type the door never loads.
    Read once per class and door (a declaration does not change), as every request at a door
    reads them."""
    return _read_fields(cls, door)


@functools.cache
def _read_fields(cls: Any, door: str | None) -> tuple[Field, ...]:
    out = []
    for f in dataclasses.fields(cls):
        spec = f.metadata.get("memfs")
        if not isinstance(spec, Param):
            raise TypeError(f"{cls.__name__}.{f.name}: declare it with param()")
        if door is not None and not spec.at(door):
            continue
        default = f.default if f.default is not dataclasses.MISSING else NOT_SET
        if f.default_factory is not dataclasses.MISSING:
            default = f.default_factory()
        out.append(Field(f.name, _resolve(cls, f.type) if door is not None else f.type, default, spec))
    return tuple(out)


def _resolve(cls: type, annotation: Any) -> Any:
    if not isinstance(annotation, str):
        return annotation
    return eval(annotation, vars(sys.modules[cls.__module__]))


def _without_none(kind: Any) -> Any:
    args = [a for a in typing.get_args(kind) if a is not type(None)]
    if type(None) in typing.get_args(kind) and len(args) == 1:
        return args[0]
    return kind


def to_wire(value: Any, door: str) -> dict[str, Any]:
    """A record's fields offered at ``door`` as JSON values (times as ISO text, sequences as
    lists): what one process sends another (the CLI asking a running live index)."""
    out: dict[str, Any] = {}
    for field in fields(type(value), door):
        item = getattr(value, field.name)
        if isinstance(item, dt.datetime):
            item = item.isoformat()
        elif field.sequence and item is not None and not isinstance(item, str):
            item = list(item)
        out[field.name] = item
    return out


def from_wire(cls: type[T], data: Any, door: str) -> T:
    """The record :func:`to_wire` sent: exactly the door's fields, each of its declared type, or
    :class:`~memfs.errors.UsageError` naming the first that is not."""
    declared = fields(cls, door)
    if not isinstance(data, dict) or set(data) != {f.name for f in declared}:
        raise UsageError(f"arguments must be exactly {sorted(f.name for f in declared)}")
    values = {}
    for field in declared:
        item = data[field.name]
        if not fits(field, item):
            raise UsageError(f"argument {field.name!r} has the wrong type")
        if field.spec.wire == "time" and item is not None:
            item = dt.datetime.fromisoformat(item)
        elif field.sequence and isinstance(item, list):
            item = tuple(item)
        values[field.name] = item
    return cls(**values)


def fits(field: Field, item: Any) -> bool:
    """Whether ``item`` is a value of the field's declared type (a list or tuple of its items for
    a sequence; ``None`` where the field may be ``None``)."""
    if item is None:
        return field.optional or field.default is None
    if isinstance(item, list | tuple):
        return field.sequence and all(_fits_one(field, i) for i in item)
    return _fits_one(field, item)


def _fits_one(field: Field, item: Any) -> bool:
    if field.spec.record is not None:
        return isinstance(item, dict)  # the record's own builder checks its fields
    base = str if field.spec.wire == "time" else field.base
    if base is float:
        return isinstance(item, int | float) and not isinstance(item, bool)
    if base is int:
        return isinstance(item, int) and not isinstance(item, bool)
    base = typing.get_origin(base) or base
    return isinstance(base, type) and isinstance(item, base)
