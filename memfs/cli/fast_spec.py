"""The fast path's table (:mod:`memfs.cli.fast_table`), made from the click commands, which are
made from the verbs' declarations (:mod:`memfs.cli.derive`): for each verb the fast path answers,
every parameter as click parses it (spellings, flag or value, repeated, arguments, type, bounds,
default) and every request field with the rule that turns the parsed value into the request's
(:func:`memfs.cli.derive.rule`). ``python -m memfs.cli.fast_spec --write`` rewrites the table; a
test fails while the file and the declarations differ.

What the fast path's parser does not do is refused here, so a new kind of parameter fails the
test (and is then either taught to the fast path or left to click by the verb not being listed)
instead of being read differently from click.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from memfs.cli.derive import flags, inner_fields, parameters, rule
from memfs.cli.options import Finite
from memfs.format.declare import CLI, Field, fields

#: the verbs the fast path answers, and the live index's operation for each
VERBS = {"search": "search", "context": "context", "remember": "remember"}
#: the rules :func:`memfs.cli.fast.converted` applies (``assignments``: only when not given)
RULES = {"value", "join", "tuple", "one_or_many", "time", "assignments"}
TARGET = Path(__file__).with_name("fast_table.py")
REGENERATE = "python -m memfs.cli.fast_spec --write"


def _click_type(param: click.Parameter) -> list[Any]:
    kind = param.type
    if isinstance(kind, click.Choice) and all(isinstance(c, str) for c in kind.choices) and kind.case_sensitive:
        return ["choice", list(kind.choices)]
    if isinstance(kind, click.types.IntRange) and not (kind.min_open or kind.max_open or kind.clamp):
        return ["int", kind.min, kind.max]
    if type(kind) is click.types.IntParamType:
        return ["int", None, None]
    if isinstance(kind, Finite):
        return ["float", kind.minimum, kind.maximum]
    if isinstance(param, click.Option) and param.is_flag:
        return ["flag"]
    if type(kind) is click.types.StringParamType:
        return ["text"]
    raise ValueError(f"{param.name}: the fast path does not read a {kind!r}")


def _param(param: click.Parameter, default: Any) -> dict[str, Any]:
    """One click parameter as the fast path's parser reads it; refused if click would do more (a
    required option: the parser gives a left-out one its default; an argument of several words
    but not of any number)."""
    option = param if isinstance(param, click.Option) else None
    flag = option is not None and option.is_flag
    plain = not (param.callback or param.envvar or param.is_eager or (option is not None and (
        option.prompt or option.count or option.secondary_opts or option.hidden
        or (flag and not option.is_bool_flag))))
    fixed = param.nargs != 1 and (option is not None or param.nargs != -1)
    if not plain or param.name is None or (not flag and fixed) or (option is not None and param.required):
        raise ValueError(f"{param.name}: the fast path does not read this parameter as click does")
    if isinstance(default, tuple):
        default = list(default)
    return {"name": param.name, "kind": "argument" if option is None else "option", "opts": list(param.opts),
            "flag": flag, "multiple": bool(param.multiple), "nargs": param.nargs,
            "required": param.required, "type": _click_type(param), "default": default}


def _field(field: Field) -> dict[str, Any]:
    how = rule(field)
    if how not in RULES:
        raise ValueError(f"{field.name}: the fast path does not convert a {how!r} value")
    return {"name": field.name, "rule": how, "flag": flags(field)[0], "list": field.sequence,
            "file": f"{field.name}_file" if field.spec.file_flag else None}


def _fields(cls: Any) -> list[dict[str, Any]]:
    """The request's fields at the CLI, in :func:`memfs.format.declare.to_wire`'s order."""
    out = []
    for field in fields(cls, CLI):
        if field.spec.record is not None:
            out.append({"name": field.name, "record": True, "file": f"{field.name}_file",
                        "inner": [_field(f) for f in inner_fields(field)]})
            continue
        if field.spec.file_flag or field.spec.wire == "fields":
            raise ValueError(f"{field.name}: the fast path does not read this field")
        out.append({**_field(field), "record": False})
    return out


def _defaults(command: click.Command) -> dict[str, Any]:
    """What click gives each parameter left out (a required argument given one word)."""
    given = ["x" for p in command.params if isinstance(p, click.Argument) and p.required]
    with command.make_context(command.name, given) as ctx:
        return dict(ctx.params)


def table() -> dict[str, dict[str, Any]]:
    from memfs.cli.app import cli
    from memfs.ops.verbs.declare import VERBS as DECLARED

    out: dict[str, dict[str, Any]] = {}
    for verb, op in VERBS.items():
        command = cli.get_command(click.Context(cli), verb)  # imports the verb's declaration
        assert command is not None
        cls = DECLARED[verb]
        declared = {p.name for f in fields(cls, CLI) for p in parameters(f)}
        presentation = [p.name for p in command.params if p.name not in declared]
        if presentation not in ([], ["as_json"]):
            raise ValueError(f"{verb}: the fast path does not know the options {presentation}")
        defaults = _defaults(command)
        params = [_param(p, defaults[p.name] if not (isinstance(p, click.Argument) and p.required)
                         else ([] if p.nargs == -1 else None)) for p in command.params if p.name]
        out[verb] = {"op": op, "write": op in _writes(), "params": params, "fields": _fields(cls)}
    return out


def _writes() -> frozenset[str]:
    from memfs.agents.live import wire

    return wire.WRITES


def render() -> str:
    """The table's module: one line for each parameter and field (wrapped where long)."""
    out = [f'"""The fast path\'s table (:mod:`memfs.cli.fast`). Generated from the verbs\' declarations by\n'
           f'``{REGENERATE}``: do not edit."""\n\n'
           "from __future__ import annotations\n\n"
           "TYPE_CHECKING = False\nif TYPE_CHECKING:\n    from typing import Any\n\n"
           "TABLE: dict[str, dict[str, Any]] = {\n"]
    for verb, spec in table().items():
        out.append(f"    {verb!r}: {{\n        'op': {spec['op']!r}, 'write': {spec['write']!r},\n")
        for key in ("params", "fields"):
            out.append(f"        {key!r}: [\n")
            out += [_entry(item) for item in spec[key]]
            out.append("        ],\n")
        out.append("    },\n")
    return "".join(out) + "}\n"


def _entry(item: dict[str, Any], indent: int = 12, width: int = 104) -> str:
    """``item`` as a dict literal, its ``key: value`` parts packed into lines of ``width``; a list
    of records (a record field's ``inner``) one record a line."""
    lines, current = [], ""
    for key, value in item.items():
        if isinstance(value, list) and value and isinstance(value[0], dict):
            lines.append(f"{current}, {key!r}: [")
            lines += [_entry(inner, indent + 4, width - 4).rstrip("\n") for inner in value]
            current = "]"
            continue
        part = f"{key!r}: {value!r}"
        if current and current != "]" and len(current) + len(part) + 2 > width:
            lines.append(current + ",")
            current = " " + part
        else:
            current = f"{current}, {part}" if current else "{" + part
    lines.append(current + "},")
    return "".join(line + "\n" if line.startswith(" " * indent) else f"{' ' * indent}{line}\n" for line in lines)


@click.command()
@click.option("--write", "write", is_flag=True, help=f"Rewrite {TARGET.name} instead of printing it.")
def main(write: bool) -> None:
    """Print the fast path's table made from the declarations (or rewrite memfs/cli/fast_table.py)."""
    text = render()
    if not write:
        click.echo(text, nl=False)
        return
    TARGET.write_text(text, encoding="utf-8")
    click.echo(f"wrote {TARGET}")


if __name__ == "__main__":
    main()
