"""How a verb is declared once: a typed request (a frozen dataclass, :func:`request`) whose
fields are the verb's parameters and whose type parameter is the verb's result.

Every door is derived from that one declaration (LangGraph's ``GetOp``/``PutOp``/``SearchOp`` in
spirit): the :class:`memfs.api.MemoryRepo` method (its signature is the request's constructor,
so type checkers see the same parameters), the click command's options and help
(:mod:`memfs.cli.derive`), and the MCP tool's schema and descriptions (:mod:`memfs.mcp_server`).
Adding a parameter to a verb is adding a field; the registry test holds every door's parameters
against the declaration. The fields are declared with :func:`memfs.format.declare.param`.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable
from typing import Any, ClassVar, Generic, TypeVar, dataclass_transform

from memfs.format.declare import CLI, param

R = TypeVar("R")
C = TypeVar("C", bound=type)


class Request(Generic[R]):
    """A verb's typed request; ``R`` is its result. Subclasses are made by :func:`request`."""

    verb: ClassVar[str]
    method: ClassVar[str]
    tool: ClassVar[str | None]
    summary: ClassVar[str]
    cli_note: ClassVar[str]
    model_note: ClassVar[str]

    def arguments(self) -> dict[str, Any]:
        """The fields by name (not copied deeply: the implementation takes them as given)."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}  # type: ignore[arg-type]


#: Every declared verb by its name (the CLI's), in declaration order.
VERBS: dict[str, type[Request[Any]]] = {}


@dataclass_transform(frozen_default=True, kw_only_default=True, field_specifiers=(param,))
def request(
    verb: str, *, method: str | None = None, tool: str | None = None, cli_note: str = "", model_note: str = ""
) -> Callable[[C], C]:
    """Declare ``verb``: the class's docstring is its summary (the first lines of the CLI help
    and of the MCP description), ``cli_note`` and ``model_note`` what only one door's reader
    needs; ``method`` is its :class:`memfs.api.MemoryRepo` method (default: the verb's name) and
    ``tool`` its MCP tool's name, if it has one."""

    def declare(cls: C) -> C:
        made: Any = dataclasses.dataclass(frozen=True)(cls)
        made.verb = verb
        made.method = method or verb.replace("-", "_")
        made.tool = tool
        made.summary = inspect.cleandoc(cls.__doc__ or "")
        made.cli_note = inspect.cleandoc(cli_note)
        made.model_note = inspect.cleandoc(model_note)
        if verb in VERBS:
            raise ValueError(f"verb {verb!r} is declared twice")
        VERBS[verb] = made
        return cls

    return declare


def description(cls: type[Request[Any]], door: str) -> str:
    """The verb's text for a door: its summary, then what only that door's reader needs."""
    note = cls.cli_note if door == CLI else cls.model_note
    return f"{cls.summary}\n\n{note}" if note else cls.summary
