"""``.memfs.toml``: the file that marks a memory root, and the settings it holds (pure parsing).

::

    format = 1

    [recall.half_life_days]      # freshness half-life per memory type; 0 or "none": does not age
    episode = 30

    [limits]                     # what one file may hold (memfs.format.limits; defaults shown)
    file_bytes = 1000000         # at most 1,000,000 (what memfs reads of a file)
    value_chars = 100000         # one frontmatter text value
    depth = 32                   # nesting of lists and mappings, at most 100
    nodes = 10000                # values in one frontmatter, aliases expanded
    int_digits = 100             # at most 4300

    [sync]                       # memfs sync defaults
    mode = "rebase"              # or "merge"
    remote = "origin"
    branch = "main"

The store reads the file (:meth:`memfs.store.repo.Store.config`); everything that needs a setting
takes it from the :class:`Config` parsed here, so the file has one reader and one set of rules.
Unknown tables and keys are left alone (other tools may keep settings here).
"""

from __future__ import annotations

import math
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeGuard

from memfs.errors import InvalidConfig
from memfs.format.limits import FIELDS as LIMIT_FIELDS
from memfs.format.limits import Limits

CONFIG_FILE = ".memfs.toml"
SyncMode = Literal["rebase", "merge"]
SYNC_MODES: tuple[SyncMode, ...] = ("rebase", "merge")


def is_sync_mode(value: object) -> TypeGuard[SyncMode]:
    return value in SYNC_MODES


@dataclass(frozen=True)
class SyncConfig:
    mode: SyncMode = "rebase"
    remote: str | None = None
    branch: str | None = None


@dataclass(frozen=True)
class Config:
    """The settings of one memory root; every field has a default, so no file means defaults."""

    half_life_days: Mapping[str, float | None] = field(default_factory=dict)
    sync: SyncConfig = field(default_factory=SyncConfig)
    limits: Limits = field(default_factory=Limits)


def parse_config(text: str, where: str = CONFIG_FILE) -> Config:
    """The settings in ``text``; :class:`InvalidConfig` naming the table and key that is wrong."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InvalidConfig(f"{where}: is not valid TOML ({exc}); fix the syntax") from None
    return Config(_half_lives(data, where), _sync(data, where), _limits(data, where))


#: the most each limit may be raised to: what memfs reads of a file, and what stays safe to walk
_CEILINGS = {"file_bytes": 1_000_000, "value_chars": 1_000_000, "depth": 100, "nodes": 1_000_000,
             "int_digits": 4300}


def _limits(data: Mapping[str, Any], where: str) -> Limits:
    table = _table(data, "limits", where)
    values: dict[str, int] = {}
    for name in LIMIT_FIELDS:
        if name not in table:
            continue
        value = table[name]
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= _CEILINGS[name]:
            raise InvalidConfig(f"{where}: [limits] {name} = {value!r}: use a whole number from 1 to {_CEILINGS[name]}")
        values[name] = value
    return Limits(**values)


def _table(data: Mapping[str, Any], name: str, where: str) -> Mapping[str, Any]:
    node = data
    for part in name.split("."):
        child = node.get(part, {})
        if not isinstance(child, Mapping):
            raise InvalidConfig(f"{where}: [{name}] must be a table")
        node = child
    return node


def _half_lives(data: Mapping[str, Any], where: str) -> dict[str, float | None]:
    out: dict[str, float | None] = {}
    for name, value in _table(data, "recall.half_life_days", where).items():
        if value in (0, "none"):
            out[name] = None
        elif isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value < 0:
            raise InvalidConfig(
                f"{where}: recall.half_life_days.{name} = {value!r}: use a positive number of days, or 0 for "
                "'does not age'"
            )
        else:
            out[name] = float(value)
    return out


def _sync(data: Mapping[str, Any], where: str) -> SyncConfig:
    table = _table(data, "sync", where)
    mode = table.get("mode", "rebase")
    if not is_sync_mode(mode):
        raise InvalidConfig(f'{where}: [sync] mode = {mode!r}; use "rebase" or "merge"')
    for key in ("remote", "branch"):
        if key in table and not isinstance(table[key], str):
            raise InvalidConfig(f"{where}: [sync] {key} must be a string")
    return SyncConfig(mode, table.get("remote"), table.get("branch"))
