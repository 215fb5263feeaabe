"""Options shared by several verbs: the memory fields, ``--json``, and the state object."""

from __future__ import annotations

import functools
import math
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import click

from memfs.cli import State, complete
from memfs.errors import UsageError

if TYPE_CHECKING:
    from memfs.api import MemoryRepo
    from memfs.policy.guard import Grants
    from memfs.repos import MemoryRepos

pass_state = click.make_pass_decorator(State)

json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON for programs.")


def on_terminal() -> bool:
    """Whether someone can answer a question: stdin is a terminal."""
    return sys.stdin.isatty()


def require_terminal(what: str, flag: str = "--yes") -> None:
    """Before asking about ``what``: without a terminal nobody can answer, so a usage error naming
    ``flag`` instead of a prompt (which would read end-of-input and stop with 130)."""
    if not on_terminal():
        raise UsageError(f"{what} asks for confirmation and stdin is not a terminal; pass {flag} to go ahead")


class Finite(click.ParamType):  # type: ignore[type-arg]
    """A float that is a number (``nan`` and ``inf`` are usage errors, not a crash later), within
    ``minimum``/``maximum`` when given."""

    name = "float"

    def __init__(self, minimum: float | None = None, maximum: float | None = None) -> None:
        self.minimum, self.maximum = minimum, maximum

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> float:
        number = click.FLOAT.convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number", param, ctx)
        if (self.minimum is not None and number < self.minimum) or (self.maximum is not None and number > self.maximum):
            self.fail(f"{value!r} is not in the range {self.minimum}..{self.maximum}", param, ctx)
        return float(number)


FINITE = Finite()

_FIELD_OPTIONS: list[tuple[tuple[str, ...], dict[str, Any]]] = [
    (("--id", "id_"), {"help": "Stable identity (default: the path without .md)."}),
    (("--type", "type_"), {"help": "preference | fact | episode | procedure | summary | note.",
                           "shell_complete": complete.types}),
    (("--scope",), {"help": "Whose memory, e.g. user:U5/project:P8."}),
    (("--key",), {"help": "Subject/attribute identity inside the scope."}),
    (("--source",), {"help": "Where it came from, e.g. conversation:C1#msg-12."}),
    (("--source-kind",), {"help": "user | tool | agent | document | system.", "shell_complete": complete.source_kinds}),
    (("--version", "version_"), {"help": "World version it applies to (product, API, config)."}),
    (("--expires",), {"help": "When it stops being valid: an ISO 8601 time with zone, or a date (00:00 UTC)."}),
    (("--status",), {"help": "active | superseded | retracted | needs_review | expired.",
                     "shell_complete": complete.statuses}),
    (("--confidence",), {"type": FINITE, "help": "0..1, how sure the writer is."}),
    (("--description",), {"help": "One line shown in listings."}),
    (("--tag", "tags"), {"multiple": True, "help": "A tag (repeatable)."}),
    (("--depends-on", "depends_on"), {"multiple": True, "help": "Path this memory was derived from (repeatable)."}),
    (("--set", "extra"), {"multiple": True, "metavar": "FIELD=YAML", "help": "Any other field (repeatable)."}),
]

_NAMES = {"id_": "id", "type_": "type", "version_": "version"}


def field_parameters() -> list[click.Option]:
    """The memory-field options as click parameters (for a command derived from a declaration)."""
    return [click.Option(list(option), **extra) for option, extra in _FIELD_OPTIONS]


def collect_fields(values: dict[str, Any]) -> dict[str, Any]:
    """The memory fields given among a command's parsed ``values`` (removed from them)."""
    fields: dict[str, Any] = {}
    for option, _ in _FIELD_OPTIONS:
        name = option[-1].lstrip("-").replace("-", "_") if len(option) == 1 else option[1]
        value = values.pop(name, None)
        if value in (None, ()):
            continue
        if name == "extra":
            fields.update(parse_assignments(value))
        elif name == "expires":
            from memfs.format.times import given_time

            fields["expires"] = given_time(value, "--expires")
        else:
            fields[_NAMES.get(name, name)] = list(value) if isinstance(value, tuple) else value
    return fields


def parse_assignments(items: tuple[str, ...]) -> dict[str, Any]:
    from memfs.format import yamlio

    out: dict[str, Any] = {}
    for item in items:
        key, sep, raw = item.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"{item!r}: write it as FIELD=VALUE, e.g. --set ticket=B17", param="extra")
        try:
            out[key.strip()] = yamlio.load(f"v: {raw}\n")["v"] if raw.strip() else None
        except yamlio.YamlError as exc:
            raise UsageError(f"{item!r}: the value is not valid YAML ({exc})", param="extra") from None
    return out


@dataclass(frozen=True)
class SessionSpec:
    """How an agent-facing verb (``tool``, ``mcp``) opens its session: bound to ``--scope`` (with
    ``--inherit``, its ancestors readable too), or every scope with ``--all-scopes``, and with
    the host's grants. Neither scope nor ``--all-scopes`` is refused: an agent never gets every
    scope by forgetting an option."""

    scope: str | None
    inherit: bool
    all_scopes: bool
    grants: Grants

    def open(self, state: State, default_actor: str) -> MemoryRepo:
        self.check()
        return state.repo().session(
            self.scope, inherit=self.inherit, grants=self.grants, actor=state.actor or default_actor
        )

    def open_roots(self, state: State, default_actor: str) -> MemoryRepos:
        """The session in every root of a read over several (``memfs -C A -C B mcp``)."""
        self.check()
        return state.repos().session(self.scope, inherit=self.inherit, grants=self.grants,
                                     actor=state.actor or default_actor)

    def check(self) -> None:
        if self.scope is None and not self.all_scopes:
            from memfs.policy.recall import ONE_SCOPE_FIX

            raise UsageError(f"an agent session is bound to one scope: {ONE_SCOPE_FIX}", param="scope")
        if self.scope is not None and self.all_scopes:
            raise UsageError("give --scope or --all-scopes, not both", param="scope")


def session_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """Add ``--scope``, ``--inherit``, ``--all-scopes`` and the grant options; the command
    receives them collected as ``session`` (a :class:`SessionSpec`)."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        from memfs.policy.guard import Grants

        grants = Grants(
            fields=frozenset(kwargs.pop("allow_field")),
            system=kwargs.pop("allow_system"),
            vouch_user_source=kwargs.pop("vouch_user_source"),
        )
        spec = SessionSpec(kwargs.pop("scope"), kwargs.pop("inherit"), kwargs.pop("all_scopes"), grants)
        return func(*args, session=spec, **kwargs)

    options = [
        click.option("--scope", help="Bind the session to this scope, e.g. user:U5 (required unless --all-scopes)."),
        click.option("--inherit", is_flag=True, help="Let the session read the scope's ancestors too."),
        click.option("--all-scopes", is_flag=True, help="Administration: every scope (no binding)."),
        click.option("--allow-field", multiple=True, metavar="FIELD",
                     help="Let the agent change this protected field (repeatable; e.g. source)."),
        click.option("--allow-system", is_flag=True, help="Let the agent create, change or delete system/ files."),
        click.option("--vouch-user-source", is_flag=True,
                     help="The host vouches that source_kind: user written by the agent is the user's own words."),
    ]
    for option in reversed(options):
        wrapper = option(wrapper)
    return wrapper
