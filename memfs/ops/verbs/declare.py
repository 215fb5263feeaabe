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
from typing import Any, ClassVar, Concatenate, Generic, ParamSpec, Protocol, TypeVar, dataclass_transform, overload

from memfs.format.declare import CLI, param

R = TypeVar("R")
C = TypeVar("C", bound=type)
P = ParamSpec("P")


class Request(Generic[R]):
    """A verb's typed request; ``R`` is its result. Subclasses are made by :func:`request`."""

    verb: ClassVar[str]
    method: ClassVar[str]
    tool: ClassVar[str | None]
    summary: ClassVar[str]
    cli_note: ClassVar[str]
    model_note: ClassVar[str]


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


class Runs(Protocol):
    """What a derived method calls: something that runs a request (:class:`memfs.api.MemoryRepo`)."""

    def run(self, op: Request[R]) -> R: ...


class verb(Generic[P, R]):
    """A method derived from a request: its parameters are the request's constructor's (so type
    checkers and ``help()`` see the declaration), and calling it runs that request
    (``repo.search("x", limit=3)`` is ``repo.run(Search("x", limit=3))``)."""

    def __init__(self, request: Callable[P, Request[R]]) -> None:
        self.request = request
        cls: Any = request
        self.__doc__ = cls.summary
        self.unbound = self._unbound(inspect.signature(request))

    def _unbound(self, signature: inspect.Signature) -> Callable[..., Any]:
        def method(runner: Runs, *args: Any, **kwargs: Any) -> Any:
            return runner.run(self.request(*args, **kwargs))

        me = inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)
        method.__signature__ = signature.replace(parameters=[me, *signature.parameters.values()])  # type: ignore[attr-defined]
        method.__doc__ = self.__doc__
        return method

    def __set_name__(self, owner: type, name: str) -> None:
        self.unbound.__name__ = name
        self.unbound.__qualname__ = f"{owner.__qualname__}.{name}"

    @overload
    def __get__(self, obj: None, owner: type) -> Callable[Concatenate[Any, P], R]: ...
    @overload
    def __get__(self, obj: Runs, owner: type) -> Callable[P, R]: ...
    def __get__(self, obj: Runs | None, owner: type) -> Any:
        if obj is None:
            return self.unbound
        bound = self.unbound.__get__(obj, owner)
        return bound
