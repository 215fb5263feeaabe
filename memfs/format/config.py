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
    attempts = 5                 # pushes that lose a race are retried, at most this many tries in all...
    budget = 60                  # ...none started after this many seconds...
    backoff = 0.1                # ...waiting a random time up to 0.1 s, 0.2 s, 0.4 s... (capped at 5 s)
    route = "direct"             # or "writer-ref": push to refs/heads/memfs/writers/<writer>, which
                                 # `memfs integrate` brings into branch (docs/collaboration.md)
    writer = "release-bot"       # the writer id in that ref (default: from the actor)

    [prune]                      # memfs prune: the forgetting policy (nothing is proposed without rules)
    quota = { episode = 200 }    # per type: at most N active memories; the least recently used go
    unused_days = { episode = 90 }   # per type: active memories neither recalled nor changed for N days
    superseded_days = 30         # superseded, expired or retracted for N days: moved under archive/
    review_days = 60             # awaiting review for N days with no independent source left: retracted

    [adopt]                      # plain notes (Markdown without frontmatter) become memories
    scope = "user:maria"         # whose they are (needed outside system/; no scope: not adopted)
    type = "note"                # the default type
    source = "obsidian:vault"    # default: file:<path>
    source_kind = "user"         # default: the writer's kind (user for a person, agent, tool)
    [adopt.folders."Work/Team"]  # a folder's own defaults over those above (the deepest wins)
    scope = "team:platform"

    [consolidate]                # memfs consolidate: related episodes -> one summary
    window_days = 14             # episodes at most this far apart in time...
    min_overlap = 0.25           # ...sharing at least this share of their terms (Jaccard)...
    min_group = 2                # ...at least this many of them
    expires_days = 90            # the summary's expires when no source has a later one

    [judge]                      # memfs.ops.judge: callables that read what a candidate means
    classify = "mypkg.judges:classify"   # MODULE:FUNCTION (default: none, the offline rules)
    conflict = "mypkg.judges:conflict"   # decides a probable conflict: replace, keep-both, unrelated
    timeout = 10                 # seconds to wait for an answer (at most 300)

    [semantic]                   # memfs search and context: vectors fill what BM25 leaves empty
    embed = "mypkg.vectors:embed"    # MODULE:FUNCTION, texts -> vectors (default: none, words only)
    dims = 384                   # how many numbers each vector has

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
from memfs.format.model import SOURCE_KINDS, TYPES
from memfs.format.validate import scope_problem

CONFIG_FILE = ".memfs.toml"
SyncMode = Literal["rebase", "merge"]
SYNC_MODES: tuple[SyncMode, ...] = ("rebase", "merge")
SyncRoute = Literal["direct", "writer-ref"]
SYNC_ROUTES: tuple[SyncRoute, ...] = ("direct", "writer-ref")


def is_sync_mode(value: object) -> TypeGuard[SyncMode]:
    return value in SYNC_MODES


def is_sync_route(value: object) -> TypeGuard[SyncRoute]:
    return value in SYNC_ROUTES


@dataclass(frozen=True)
class SyncConfig:
    """``[sync]``: where ``memfs sync`` goes, how it integrates, and how hard it retries a push
    that lost a race (``attempts`` at most, none started after ``budget`` seconds; waits with
    jitter from ``backoff`` seconds, doubling). ``route`` says where a writer's commits go:
    ``direct`` to ``branch``, or ``writer-ref`` to the writer's own ref, named by ``writer``
    (default: from the actor), which ``memfs integrate`` brings into ``branch``."""

    mode: SyncMode = "rebase"
    remote: str | None = None
    branch: str | None = None
    attempts: int = 5
    budget: float = 60.0
    backoff: float = 0.1
    route: SyncRoute = "direct"
    writer: str | None = None


@dataclass(frozen=True)
class PruneConfig:
    """``[prune]``: the forgetting policy ``memfs prune`` applies (no rule: nothing proposed)."""

    quota: Mapping[str, int] = field(default_factory=dict)
    unused_days: Mapping[str, float] = field(default_factory=dict)
    superseded_days: float | None = None
    review_days: float | None = None

    @property
    def empty(self) -> bool:
        return not (self.quota or self.unused_days) and self.superseded_days is None and self.review_days is None


@dataclass(frozen=True)
class ConsolidateConfig:
    """``[consolidate]``: which episodes ``memfs consolidate`` groups into one summary."""

    window_days: float = 14.0
    min_overlap: float = 0.25
    min_group: int = 2
    expires_days: float = 90.0


@dataclass(frozen=True)
class AdoptRule:
    """What a plain note (no frontmatter) is given when memfs adopts it; ``None``: not set here."""

    scope: str | None = None
    type: str | None = None
    source: str | None = None
    source_kind: str | None = None

    def over(self, base: AdoptRule) -> AdoptRule:
        """This rule's settings, and ``base``'s where this one says nothing."""
        return AdoptRule(*(mine if mine is not None else theirs for mine, theirs in zip(
            (self.scope, self.type, self.source, self.source_kind),
            (base.scope, base.type, base.source, base.source_kind), strict=True)))


@dataclass(frozen=True)
class AdoptConfig:
    """``[adopt]``: the defaults for plain notes, for the whole root and per folder."""

    base: AdoptRule = field(default_factory=AdoptRule)
    folders: Mapping[str, AdoptRule] = field(default_factory=dict)

    def rule_for(self, rel: str) -> AdoptRule:
        """The settings for the note at ``rel``: the deepest folder's over its parents' over the root's."""
        rule = self.base
        for folder in sorted(self.folders, key=lambda f: f.count("/")):
            if rel.startswith(folder + "/"):
                rule = self.folders[folder].over(rule)
        return rule


@dataclass(frozen=True)
class JudgeConfig:
    """``[judge]``: the callable the write gate asks about a candidate's meaning (``classify``) and
    the one asked whether a new memory replaces an active one the rules pair it with
    (``conflict``), each ``MODULE:FUNCTION`` imported from this Python's path (``None``: the
    offline rules), and how long each answer may take."""

    classify: str | None = None
    timeout: float = 10.0
    conflict: str | None = None


@dataclass(frozen=True)
class SemanticConfig:
    """``[semantic]``: the embedder ``memfs search`` and ``context`` ask for vectors
    (``MODULE:FUNCTION`` from texts to vectors, imported from this Python's path; ``None``: words
    only) and the number of dimensions it answers."""

    embed: str | None = None
    dims: int = 0


@dataclass(frozen=True)
class Config:
    """The settings of one memory root; every field has a default, so no file means defaults."""

    half_life_days: Mapping[str, float | None] = field(default_factory=dict)
    sync: SyncConfig = field(default_factory=SyncConfig)
    prune: PruneConfig = field(default_factory=PruneConfig)
    consolidate: ConsolidateConfig = field(default_factory=ConsolidateConfig)
    limits: Limits = field(default_factory=Limits)
    adopt: AdoptConfig = field(default_factory=AdoptConfig)
    judge: JudgeConfig = field(default_factory=JudgeConfig)
    semantic: SemanticConfig = field(default_factory=SemanticConfig)


def parse_config(text: str, where: str = CONFIG_FILE) -> Config:
    """The settings in ``text``; :class:`InvalidConfig` naming the table and key that is wrong."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InvalidConfig(f"{where}: is not valid TOML ({exc}); fix the syntax") from None
    return Config(
        _half_lives(data, where), _sync(data, where), _prune(data, where), _consolidate(data, where),
        _limits(data, where), adopt=_adopt(data, where), judge=_judge(data, where),
        semantic=_semantic(data, where),
    )


def _judge(data: Mapping[str, Any], where: str) -> JudgeConfig:
    table = _table(data, "judge", where)
    specs = {name: table.get(name) for name in ("classify", "conflict")}
    for name, spec in specs.items():
        if spec is not None and (not isinstance(spec, str) or ":" not in spec):
            raise InvalidConfig(f'{where}: [judge] {name} = {spec!r}: give "MODULE:FUNCTION"')
    timeout = _number(table.get("timeout", 10.0), where, "[judge] timeout", most=300)
    if timeout <= 0:
        raise InvalidConfig(f"{where}: [judge] timeout = {timeout!r}: use a number of seconds above 0")
    return JudgeConfig(specs["classify"] or None, float(timeout), specs["conflict"] or None)


def _semantic(data: Mapping[str, Any], where: str) -> SemanticConfig:
    table = _table(data, "semantic", where)
    embed, dims = table.get("embed"), table.get("dims")
    if embed is None:
        return SemanticConfig()
    if not isinstance(embed, str) or ":" not in embed:
        raise InvalidConfig(f'{where}: [semantic] embed = {embed!r}: give "MODULE:FUNCTION"')
    if isinstance(dims, bool) or not isinstance(dims, int) or not 1 <= dims <= 65536:
        raise InvalidConfig(f"{where}: [semantic] dims = {dims!r}: give the embedder's number of dimensions, "
                            "a whole number from 1 to 65536")
    return SemanticConfig(embed, dims)


def _number(value: Any, where: str, name: str, *, whole: bool = False, most: float | None = None) -> float:
    kind = "a whole number" if whole else "a number"
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value < 0 or (
        whole and not isinstance(value, int)
    ) or (most is not None and value > most):
        limit = f" from 0 to {most}" if most is not None else " >= 0"
        raise InvalidConfig(f"{where}: {name} = {value!r}: use {kind}{limit}")
    return value


def _per_type(data: Mapping[str, Any], name: str, where: str, *, whole: bool) -> dict[str, Any]:
    table = _table(data, name, where)
    return {str(k): _number(v, where, f"{name}.{k}", whole=whole) for k, v in table.items()}


def _prune(data: Mapping[str, Any], where: str) -> PruneConfig:
    table = _table(data, "prune", where)
    days = {k: None if table.get(k) is None else _number(table[k], where, f"[prune] {k}")
            for k in ("superseded_days", "review_days")}
    return PruneConfig(
        {k: int(v) for k, v in _per_type(data, "prune.quota", where, whole=True).items()},
        _per_type(data, "prune.unused_days", where, whole=False),
        days["superseded_days"],
        days["review_days"],
    )


def _consolidate(data: Mapping[str, Any], where: str) -> ConsolidateConfig:
    table = _table(data, "consolidate", where)
    default = ConsolidateConfig()
    if "min_group" in table and _number(table["min_group"], where, "[consolidate] min_group", whole=True) < 2:
        raise InvalidConfig(f"{where}: [consolidate] min_group = {table['min_group']!r}: a group needs at least 2")
    return ConsolidateConfig(
        _number(table.get("window_days", default.window_days), where, "[consolidate] window_days"),
        _number(table.get("min_overlap", default.min_overlap), where, "[consolidate] min_overlap", most=1),
        int(_number(table.get("min_group", default.min_group), where, "[consolidate] min_group", whole=True)),
        _number(table.get("expires_days", default.expires_days), where, "[consolidate] expires_days"),
    )


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
    route = table.get("route", "direct")
    if not is_sync_route(route):
        raise InvalidConfig(f'{where}: [sync] route = {route!r}; use "direct" or "writer-ref"')
    for key in ("remote", "branch", "writer"):
        if key in table and not isinstance(table[key], str):
            raise InvalidConfig(f"{where}: [sync] {key} must be a string")
    attempts = table.get("attempts", 5)
    if not isinstance(attempts, int) or isinstance(attempts, bool) or not 1 <= attempts <= 100:
        raise InvalidConfig(f"{where}: [sync] attempts = {attempts!r}; use a whole number from 1 to 100")
    seconds = {}
    for key, default in (("budget", 60.0), ("backoff", 0.1)):
        value = table.get(key, default)
        if not isinstance(value, int | float) or isinstance(value, bool) or not 0 <= value <= 3600:
            raise InvalidConfig(f"{where}: [sync] {key} = {value!r}; use a number of seconds from 0 to 3600")
        seconds[key] = float(value)
    return SyncConfig(mode, table.get("remote"), table.get("branch"), attempts, **seconds, route=route,
                      writer=table.get("writer"))


_ADOPT_KEYS = ("scope", "type", "source", "source_kind")


def _adopt(data: Mapping[str, Any], where: str) -> AdoptConfig:
    table = _table(data, "adopt", where)
    folders = _table(data, "adopt.folders", where)
    rules = {}
    for folder, value in folders.items():
        name = str(folder).strip("/")
        if not isinstance(value, Mapping) or not name or ".." in name.split("/"):
            raise InvalidConfig(f'{where}: [adopt.folders."{folder}"] must be a table named by a folder of the root')
        rules[name] = _adopt_rule(value, where, f'[adopt.folders."{folder}"]')
    return AdoptConfig(_adopt_rule(table, where, "[adopt]"), rules)


def _adopt_rule(table: Mapping[str, Any], where: str, name: str) -> AdoptRule:
    values: dict[str, str] = {}
    for key in _ADOPT_KEYS:
        if key not in table:
            continue
        value = table[key]
        problem = _adopt_problem(key, value)
        if problem:
            raise InvalidConfig(f"{where}: {name} {key} = {value!r}: {problem}")
        values[key] = value
    return AdoptRule(**values)


def _adopt_problem(key: str, value: Any) -> str | None:
    if not isinstance(value, str) or not value.strip():
        return "use a non-empty string"
    if key == "scope":
        return scope_problem(value)
    if key == "type" and value not in TYPES:
        return f"use one of {', '.join(TYPES)}"
    if key == "source_kind" and value not in SOURCE_KINDS:
        return f"use one of {', '.join(SOURCE_KINDS)}"
    return None
