"""MCP tools derived from the verbs' declarations: a tool's parameters, their JSON schema and
descriptions come from the request's fields (:mod:`memfs.format.declare`), so a parameter added
to a verb appears here without a line changed.

A field is offered as its wire form (``time`` fields are ISO 8601 strings, a
sequence is a list, ``choices`` an enum), with its help as the description, its bounds as the
schema's (a model's own bounds first: ``model_minimum``, ``model_maximum``), and its default (a
model's own first: ``model_default``). A field holding a record is offered as that record's
fields. A scope is a tool argument only on an administration server: a server bound to a scope
takes none, so a model cannot name another user's memory.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import Field as Schema

from memfs.format.declare import MCP, NOT_SET, Field, fields

if TYPE_CHECKING:
    from mcp.server.mcpserver.tools import Tool
    from mcp_types import ToolAnnotations

#: Arguments a tool takes only on an administration server (``--all-scopes``).
ADMIN_ONLY = frozenset({"scope", "all_scopes"})


def offered(cls: type, *, admin: bool) -> list[Field]:
    """The fields a tool of ``cls`` takes, records flattened into their own fields."""
    out: list[Field] = []
    for field in fields(cls, MCP):
        if field.spec.record is not None:
            out += offered(field.spec.record, admin=admin)
        elif admin or field.name not in ADMIN_ONLY:
            out.append(field)
    return out


def signature(cls: type, *, admin: bool, returns: Any) -> inspect.Signature:
    """The tool function's signature, as the MCP SDK reads it to build the input schema."""
    params = []
    for field in offered(cls, admin=admin):
        default = _default(field, admin=admin)
        params.append(inspect.Parameter(
            field.name, inspect.Parameter.KEYWORD_ONLY, annotation=_annotation(field, default, admin=admin),
            default=inspect.Parameter.empty if default is NOT_SET else default,
        ))
    params.sort(key=lambda p: p.default is not inspect.Parameter.empty)
    return inspect.Signature(params, return_annotation=returns)


def tool(
    cls: type, body: Callable[[dict[str, Any]], Any], *, admin: bool, returns: Any, doc: str
) -> Callable[..., Any]:
    """A function the MCP SDK can serve: its signature is derived from ``cls``; it hands the
    arguments it was given (by name) to ``body``."""

    def call(**given: Any) -> Any:
        return body(given)

    return _named(call, cls, signature(cls, admin=admin, returns=returns), doc)


def asking_tool(
    cls: type, body: Callable[[dict[str, Any], Any], Awaitable[Any]], *, context: type, admin: bool, returns: Any,
    doc: str,
) -> Callable[..., Any]:
    """:func:`tool` for a ``body`` that may ask the host (MCP sampling): a coroutine handed the
    arguments and the SDK's request ``context`` (an instance of ``context``, which the SDK injects
    into a parameter of that type; it is not part of the tool's schema)."""

    async def call(ctx: Any = None, **given: Any) -> Any:
        return await body(given, ctx)

    derived = signature(cls, admin=admin, returns=returns)
    asked = inspect.Parameter("ctx", inspect.Parameter.KEYWORD_ONLY, annotation=context, default=None)
    call.__annotations__ = {"ctx": context}
    return _named(call, cls, derived.replace(parameters=[*derived.parameters.values(), asked]), doc)


def _named(call: Callable[..., Any], cls: type, derived: inspect.Signature, doc: str) -> Callable[..., Any]:
    call.__signature__ = derived  # type: ignore[attr-defined]
    call.__name__ = str(getattr(cls, "tool", None) or cls.__name__)
    call.__doc__ = doc
    return call


def _default(field: Field, *, admin: bool) -> Any:
    if field.name in ADMIN_ONLY and admin:
        return None
    if field.spec.model_required:
        return NOT_SET
    if field.spec.model_default is not NOT_SET:
        return field.spec.model_default
    if field.sequence and field.default in ((), []):
        return None
    return field.default


def _annotation(field: Field, default: Any, *, admin: bool) -> Any:
    spec = field.spec
    kind: Any
    if field.name in ADMIN_ONLY and admin:
        kind = str
    elif spec.choices:
        kind = Literal[spec.choices]
    elif spec.wire == "time":
        kind = str
    else:
        kind = field.base
    if field.sequence and not (field.name in ADMIN_ONLY and admin):
        kind = list[kind]
    if default is None:
        kind = kind | None
    return Annotated[kind, Schema(description=spec.text(MCP), **_bounds(field))]


def _bounds(field: Field) -> dict[str, Any]:
    spec = field.spec
    low = spec.model_minimum if spec.model_minimum is not None else spec.minimum
    high = spec.model_maximum if spec.model_maximum is not None else spec.maximum
    if field.sequence or field.base is str:
        return {} if low is None else {"min_length": low}
    return {name: value for name, value in (("ge", low), ("le", high)) if value is not None}


#: The SDK's tool records already built in this process, by what they are built from (:func:`sdk_tool`).
_TOOLS: dict[tuple[object, ...], Tool] = {}


def sdk_tool(fn: Callable[..., Any], *, description: str, annotations: ToolAnnotations,
             name: str | None = None) -> Tool:
    """The SDK's record of the tool ``fn`` (what ``MCPServer.add_tool`` makes, by
    ``Tool.from_function``). Its argument model and JSON schema are pydantic models built from
    ``fn``'s signature, about 5 ms a tool and nearly all of building a server; they depend on the
    signature, the name, the description and the annotations only, so each is built once per
    process and every server gets a copy holding its own ``fn`` (a session's closures). The kept
    record holds no ``fn``: the first server's closures would keep its repository (its open
    work-tree watch and search index) for the life of the process."""
    from mcp.server.mcpserver.tools import Tool

    key = (fn.__module__, fn.__qualname__, name or fn.__name__, repr(inspect.signature(fn)),
           inspect.iscoroutinefunction(fn), description, annotations.model_dump_json())
    made = _TOOLS.get(key)
    if made is None:
        made = Tool.from_function(fn, name=name, description=description, annotations=annotations)
        _TOOLS[key] = made.model_copy(update={"fn": None})
        return made
    return made.model_copy(update={"fn": fn})
