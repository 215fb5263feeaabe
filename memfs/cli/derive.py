"""A verb's click command, derived from its declaration (:mod:`memfs.ops.verbs`).

``@command(Search)`` over a handler ``def search_cmd(state, op: Search, as_json: bool)`` makes the
``memfs search`` command: one option or argument per field the declaration offers at the CLI
(its help, bounds, choices, completion and default come from the field), the verb's help from
its summary, and a callback that builds the typed request and hands it to the handler. Click
options the handler carries itself are the door's presentation (``--json``, ``--dot``), not
the verb's parameters. Values are converted here, once: ISO times by the rule every door applies
(:func:`memfs.format.times.given_time`), words of a variadic text argument joined by spaces,
repeated options as tuples.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import click

from memfs.cli import State, complete, fast
from memfs.cli.inputs import read_body
from memfs.cli.options import (
    Finite,
    collect_fields,
    field_parameters,
    parse_assignments,
)
from memfs.format.declare import CLI, NOT_SET, Field, fields
from memfs.ops.callables import load_callable
from memfs.ops.verbs.declare import Request, description

Handler = Callable[..., None]


def command(
    cls: type[Request[Any]], *, name: str | None = None, summary: str | None = None,
    fixed: dict[str, Any] | None = None,
) -> Callable[[Handler], click.Command]:
    """Decorate a handler ``(state, op, **presentation)`` into the verb's click command. ``name``,
    ``summary`` and ``fixed`` make another command of the same verb: ``tree`` shows what ``ls``
    lists; ``add`` is ``write`` with ``create_only`` fixed (a fixed field is not an option)."""
    fixed = fixed or {}

    def build(handler: Handler) -> click.Command:
        declared = [f for f in fields(cls, CLI) if f.name not in fixed]
        presentation = list(reversed(getattr(handler, "__click_params__", [])))

        def callback(**values: Any) -> None:
            state = click.get_current_context().find_object(State)
            assert state is not None
            given = {f.name: take(f, values) for f in declared}
            handler(state, cls(**given, **fixed), **values)

        callback.__doc__ = summary or description(cls, CLI)
        callback.__name__ = handler.__name__
        return click.Command(name or cls.verb, callback=callback, help=callback.__doc__,
                             params=[p for f in declared for p in parameters(f)] + presentation)

    return build


def flags(field: Field) -> tuple[str, ...]:
    """The option's spellings (``--field-name`` unless declared; ``--no-field-name`` for a
    true/false field that is true unless turned off)."""
    if field.spec.flags:
        return field.spec.flags
    return (f"--{'no-' if _on_by_default(field) else ''}{field.name.replace('_', '-')}",)


def _on_by_default(field: Field) -> bool:
    return field.base is bool and field.default is True


def parameters(field: Field) -> list[click.Parameter]:
    """The click parameters of one declared field: usually one; a memory's fields are the field
    options; a record is its JSON file (``-``: stdin) and its own fields' options; a text that may
    come from a file has its ``--...-file`` option too."""
    if field.spec.wire == "fields":
        return list(field_parameters())
    if field.spec.record is not None:
        made: list[click.Parameter] = [click.Argument([f"{field.name}_file"], required=False,
                                                      metavar=field.spec.metavar)]
        return made + [p for f in inner_fields(field) for p in parameters(f)]
    if field.spec.flag_values:
        return [click.Option([flag, field.name], flag_value=value, help=text)
                for flag, value, text in field.spec.flag_values]
    made = [parameter(field)]
    if field.spec.file_flag is not None:
        made.append(click.Option([field.spec.file_flag, f"{field.name}_file"],
                                 help=f"Read the {field.name} from this file ('-' for stdin)."))
    return made


def take(field: Field, values: dict[str, Any]) -> Any:
    """The field's value in the request's form, taken out of click's parsed ``values``."""
    if field.spec.wire == "fields":
        return collect_fields(values)
    if field.spec.record is not None:
        return _record_mapping(field, values)
    value = convert(field, values.pop(field.name))
    if field.spec.file_flag is not None:
        return read_body(value, values.pop(f"{field.name}_file"))
    return value


def _record_mapping(field: Field, values: dict[str, Any]) -> dict[str, Any]:
    """A record field's value as the mapping its builder checks: the JSON object of the file
    named (``-``: stdin), with the options given on the command line over it."""
    return fast.record_mapping(values.pop(f"{field.name}_file"), f"{field.name}_file", lambda: [
        (inner.name, inner.spec.wire == "assignments", take(inner, values)) for inner in inner_fields(field)])


def inner_fields(field: Field) -> list[Field]:
    """A record field's own fields at the CLI, with no default there: an option left out leaves
    what the record's file says, and the record's builder fills in or refuses what is missing."""
    assert field.spec.record is not None
    return [dataclasses.replace(f, default=None) for f in fields(field.spec.record, CLI)]


def parameter(field: Field) -> click.Parameter:
    """The click argument or option for one declared field."""
    spec = field.spec
    options: dict[str, Any] = {"type": _click_type(field), "metavar": spec.metavar}
    if spec.complete is not None:
        options["shell_complete"] = getattr(complete, spec.complete)
    if spec.argument:
        if spec.variadic:
            return click.Argument([field.name], nargs=-1, required=field.required or bool(spec.minimum), **options)
        return click.Argument([field.name], required=field.required, **_default(field), **options)
    if field.base is bool and not field.sequence:
        options.pop("type")
        return click.Option([*flags(field), field.name], is_flag=True, help=spec.text(CLI), **options)
    many = field.sequence or field.spec.wire == "assignments"
    shown = field.default not in (NOT_SET, None) and not many
    return click.Option(
        [*flags(field), field.name], required=field.required and not many, multiple=many,
        help=spec.text(CLI), show_default=shown, **_default(field), **options,
    )


def _default(field: Field) -> dict[str, Any]:
    """The default click is given: none for a required field, a sequence or ``None`` (click's own)."""
    if field.required or field.sequence or field.default is None or field.spec.wire == "assignments":
        return {}
    return {"default": field.default}


def _click_type(field: Field) -> click.ParamType[Any]:
    spec = field.spec
    if spec.path is not None:
        from pathlib import Path

        return click.Path(file_okay=spec.path == "file", dir_okay=spec.path != "file",
                          exists=spec.path == "existing-dir", path_type=Path if spec.path == "file" else None)
    if spec.choices:
        return click.Choice(spec.choices)
    if field.base is int:
        if spec.minimum is None and spec.maximum is None:
            return click.INT
        return click.IntRange(min=_whole(spec.minimum), max=_whole(spec.maximum))
    if field.base is float:
        return Finite(spec.minimum, spec.maximum)
    return click.STRING


def _whole(bound: int | float | None) -> int | None:
    return None if bound is None else int(bound)


def rule(field: Field) -> str:
    """How a parsed CLI value becomes the request's: ``not`` (a flag that turns off a field true
    by default), ``callable``, ``join`` (a variadic text's words), ``tuple`` or ``one_or_many``
    (a repeated option), ``time``, ``assignments`` (``--set``), else ``value`` as it is. Read by
    :func:`convert` and written into the fast path's table (:mod:`memfs.cli.fast_spec`)."""
    if _on_by_default(field):
        return "not"
    if field.spec.wire == "callable":
        return "callable"
    if field.spec.variadic and field.base is str and not field.sequence:
        return "join"
    if field.sequence:
        return "one_or_many" if field.one_or_many else "tuple"
    if field.spec.wire in ("time", "assignments"):
        return field.spec.wire
    return "value"


def convert(field: Field, value: Any) -> Any:
    """A parsed CLI value in the request's form (:func:`rule`)."""
    how = rule(field)
    if how == "not":
        return not value
    if value is None:
        return None
    if how == "callable":
        return load_callable(value, field.name)
    if how == "assignments":
        return parse_assignments(value)
    return fast.converted(how, value, flags(field)[0])
