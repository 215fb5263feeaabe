"""``memfs eval CASES``: the seeds' metrics for context assembly, from a cases file.

A cases file is YAML (a list of cases, or ``{cases: [...]}``) or JSONL (one case per line). A case:

``name`` (optional, default ``case N``), ``task`` (required), ``scope`` (a string) or ``scopes``
(a list; at least one is required), ``inherit`` (bool), ``version``, ``at`` (ISO 8601 time,
required: an eval never depends on the wall clock), ``budget`` (tokens, default 4000),
``expect`` (paths that must be in the context), ``forbid`` (paths that must not appear: a list, or
a mapping ``path: cause`` with cause one of :data:`CAUSES`; without a cause it is inferred from
the memory at that time). Every path must be a committed memory, except that ``forbid`` may also
name a purged one (its path's digest is in a purge's audit commit). Any problem is a
:class:`~memfs.errors.UsageError` naming the case and the field.

Metrics (:class:`EvalReport`): hit rate (expected memories injected, ``system/`` files included,
/ expected), wrong-injection rate (forbidden memories injected / memories recalled, ``system/``
not counted among the recalled) split by cause, cross-scope leakage
(recalled memories whose scope the request does not allow; must be 0), duplicate rate (cases whose
context holds two values for one subject: one ``(scope, key, version)`` twice or a probable
conflict, :mod:`memfs.policy.conflicts`; must be 0), tokens injected and the
saving against injecting every eligible memory, deletion propagation (on scratch clones: forget
one expected memory, and separately purge it, then ask search, context and the index at once; the
operations that still return it, and the time each took, reported, never asserted), and writes by operation and actor
kind read from the ``Memfs-Op`` / ``Memfs-Actor`` commit trailers, and refused writes by rule from
the refusal log in ``.memfs/`` (a refused write makes no commit, so history cannot tell).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import json
import re
import shutil
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memfs.agents.context import _block, _committed_in_scope, assemble
from memfs.agents.gate_eval import GateReport
from memfs.agents.rendering import render_block
from memfs.errors import MemfsError, UsageError
from memfs.format import yamlio
from memfs.format.parse import parse
from memfs.format.times import parse_time
from memfs.format.validate import identity_of
from memfs.format.yamlio import YamlError
from memfs.policy import conflict_pairs, recall
from memfs.policy.tokens import estimate_tokens
from memfs.store.repo import Store

CAUSES = ("superseded", "conflicting", "out of scope", "expired", "wrong version", "retracted")
#: The thresholds below which ``memfs eval`` exits 1.
MIN_HIT_RATE = 1.0
MAX_WRONG_RATE = 0.0
MAX_DUPLICATE_RATE = 0.0
_PURGED = re.compile(r"^Memfs-Purged-Path-Sha256: ([0-9a-f]{64})$", re.MULTILINE)


@dataclass(frozen=True)
class Case:
    name: str
    task: str
    scopes: tuple[str, ...]
    inherit: bool
    version: str | None
    at: dt.datetime
    budget: int
    expect: tuple[str, ...]
    forbid: dict[str, str | None]


@dataclass
class CaseResult:
    name: str
    injected: list[str]
    missing: list[str]
    wrong: dict[str, str]
    leaked: list[str]
    tokens: int
    baseline_tokens: int
    recalled: int = 0
    #: Pairs injected together that give two values for one subject: a probable conflict
    #: (:mod:`memfs.policy.conflicts`) or one ``(scope, key, version)`` twice.
    duplicates: list[tuple[str, str]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.missing and not self.wrong and not self.leaked and not self.duplicates

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "ok": self.ok, "injected": self.injected, "missing": self.missing,
                "wrong": self.wrong, "leaked": self.leaked, "tokens": self.tokens,
                "baseline_tokens": self.baseline_tokens,
                "duplicates": [{"older": a, "newer": b} for a, b in self.duplicates]}


@dataclass
class EvalReport:
    cases: list[CaseResult] = field(default_factory=list)
    expected: int = 0
    hits: int = 0
    recalled: int = 0
    wrong_by_cause: dict[str, int] = field(default_factory=dict)
    leakage: int = 0
    tokens: int = 0
    baseline_tokens: int = 0
    deletion: dict[str, Any] = field(default_factory=dict)
    writes: dict[str, Any] = field(default_factory=dict)
    gate: GateReport | None = None

    @property
    def hit_rate(self) -> float:
        return self.hits / self.expected if self.expected else 1.0

    @property
    def wrong_rate(self) -> float:
        return sum(self.wrong_by_cause.values()) / self.recalled if self.recalled else 0.0

    @property
    def duplicate_rate(self) -> float:
        """The share of cases whose context holds both sides of a duplicate or probable conflict."""
        return sum(bool(c.duplicates) for c in self.cases) / len(self.cases) if self.cases else 0.0

    @property
    def savings(self) -> float:
        return 1 - self.tokens / self.baseline_tokens if self.baseline_tokens else 0.0

    @property
    def passed(self) -> bool:
        return (self.hit_rate >= MIN_HIT_RATE and self.wrong_rate <= MAX_WRONG_RATE and self.leakage == 0
                and self.duplicate_rate <= MAX_DUPLICATE_RATE
                and all(c.ok for c in self.cases) and not self.deletion.get("still_returned")
                and not self.deletion.get("purge", {}).get("still_returned")
                and (self.gate is None or self.gate.passed))

    def to_json(self) -> dict[str, Any]:
        return {
            "passed": self.passed, "cases_total": len(self.cases), "cases_ok": sum(c.ok for c in self.cases),
            "hit_rate": round(self.hit_rate, 4), "wrong_injection_rate": round(self.wrong_rate, 4),
            "wrong_injection_by_cause": {cause: self.wrong_by_cause.get(cause, 0) for cause in CAUSES},
            "cross_scope_leakage": self.leakage, "duplicate_rate": round(self.duplicate_rate, 4),
            "duplicate_pairs_injected": sum(len(c.duplicates) for c in self.cases),
            "tokens_injected": self.tokens,
            "tokens_all_eligible": self.baseline_tokens, "token_savings": round(self.savings, 4),
            "deletion_propagation": self.deletion, "writes": self.writes,
            "cases": [c.to_json() for c in self.cases],
            **({"gate": self.gate.to_json()} if self.gate is not None else {}),
        }

    def table(self) -> str:
        rows = self.gate.rows() if self.gate is not None and not self.cases else self._context_rows()
        width = max(len(name) for name, _ in rows)
        lines = [f"{name.ljust(width)}  {value}" for name, value in rows]
        for case in self.cases:
            if not case.ok:
                why = [f"missing {', '.join(case.missing)}"] if case.missing else []
                why += [f"wrongly injected {p} ({c})" for p, c in case.wrong.items()]
                why += [f"leaked {', '.join(case.leaked)}"] if case.leaked else []
                why += [f"injected {a} with {b}, two values for one subject" for a, b in case.duplicates]
                lines.append(f"FAIL {case.name}: {'; '.join(why)}")
        return "\n".join(lines) + "\n"

    def _context_rows(self) -> list[tuple[str, str]]:
        rows = [
            ("cases ok", f"{sum(c.ok for c in self.cases)}/{len(self.cases)}"),
            ("hit rate", f"{self.hit_rate:.0%} ({self.hits}/{self.expected})"),
            ("wrong-injection rate", f"{self.wrong_rate:.0%} ({sum(self.wrong_by_cause.values())}/{self.recalled})"),
            *((f"  {cause}", str(self.wrong_by_cause.get(cause, 0))) for cause in CAUSES),
            ("cross-scope leakage", f"{self.leakage} (must be 0)"),
            ("duplicate rate", f"{self.duplicate_rate:.0%} ({sum(bool(c.duplicates) for c in self.cases)} case(s) "
                               f"with both sides of a conflict; must be 0)"),
            ("tokens injected", str(self.tokens)),
            ("tokens, every eligible memory", str(self.baseline_tokens)),
            ("token savings", f"{self.savings:.0%}"),
        ]
        d = self.deletion
        if d:
            rows.append(("deletion propagation", d["path"]))
            for op, one in (("forget", d), ("purge", d.get("purge"))):
                if one:
                    gone = "none" if not one.get("still_returned") else ", ".join(one["still_returned"])
                    error = f" ({one['error']})" if one.get("error") else ""
                    rows.append((f"  after {op}", f"still returned by {gone}{error}; {one['seconds']:.2f} s"))
        for kind, count in sorted(self.writes.get("accepted_by_op", {}).items()):
            rows.append((f"writes accepted: {kind}", str(count)))
        for kind, count in sorted(self.writes.get("accepted_by_actor_kind", {}).items()):
            rows.append((f"writes by {kind}", str(count)))
        w = self.writes
        if w.get("refused"):
            rows.append(("writes refused", f"{w['refused']} since {w['refused_since']} "
                                           f"({w['refusal_rate']:.0%} of writes since then)"))
            rows.extend((f"  refused by {rule}", str(n)) for rule, n in sorted(w["refused_by_rule"].items()))
        else:
            rows.append(("writes refused", "none recorded in this checkout"))
        if self.gate is not None:
            rows.extend(self.gate.rows())
        return rows


# --- reading cases -------------------------------------------------------------------------------
def load_cases(path: Path, repo: Store) -> list[Case]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path}: cannot read the cases file ({exc})", param="cases") from None
    raw: Any
    lines: list[int] = []
    if path.suffix == ".jsonl":
        raw = []
        for number, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                raw.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise UsageError(f"{path}: line {number} is not JSON ({exc.msg})", param="cases") from None
            lines.append(number)
    else:
        try:
            raw = yamlio.load(text)
        except YamlError as exc:
            raise UsageError(f"{path}: malformed YAML: {exc}", param="cases") from None
        listed = isinstance(raw, dict) and "cases" in raw
        raw = raw["cases"] if listed else raw
        lines = yamlio.item_lines(text, "cases" if listed else None)
    if not isinstance(raw, list) or not raw:
        raise UsageError(f"{path}: give a list of cases (or cases: [...])", param="cases")
    known = set(repo.memory_paths_at("HEAD")) if repo.git.head() else set()
    purged = purged_digests(repo) if repo.git.head() else set()
    cases = []
    for n, item in enumerate(raw, 1):
        try:
            cases.append(_case(item, n, known, purged))
        except UsageError as exc:
            where = f"line {lines[n - 1]}, " if len(lines) == len(raw) else ""
            raise UsageError(f"{path}: {where}{exc.message}", param="cases") from None
    return cases


def purged_digests(repo: Store) -> set[str]:
    """The SHA-256 of every path a purge's audit commit names (``Memfs-Purged-Path-Sha256``): a
    purged memory is in no commit, so this is how a case may still forbid it by its path."""
    return {match.group(1) for _, body in repo.git.messages("HEAD", "^Memfs-Op: purge$")
            for match in _PURGED.finditer(body)}


def _case(item: Any, number: int, known: set[str], purged: set[str]) -> Case:
    name = item.get("name") if isinstance(item, dict) and isinstance(item.get("name"), str) else f"case {number}"

    def bad(field_name: str, message: str) -> UsageError:
        return UsageError(f"case {name!r}, field {field_name}: {message}", param="cases")

    if not isinstance(item, dict):
        raise bad("-", "a case is a mapping of fields")
    unknown = set(item) - {"name", "task", "scope", "scopes", "inherit", "version", "at", "budget", "expect", "forbid"}
    if unknown:
        raise bad(sorted(unknown)[0], "unknown field")
    task = item.get("task")
    if not isinstance(task, str) or not task.strip():
        raise bad("task", "missing (the task text)")
    scopes = item.get("scopes", [item["scope"]] if "scope" in item else None)
    if not isinstance(scopes, list) or not scopes or not all(isinstance(s, str) for s in scopes):
        raise bad("scope", "missing (give scope: user:U5, or scopes: [a list])")
    at = parse_time(item.get("at")) if item.get("at") is not None else None
    if at is None:
        raise bad("at", "missing or not an ISO 8601 time (an eval fixes its time)")
    version = item.get("version")
    if version is not None and not isinstance(version, str):
        raise bad("version", "must be a string")
    budget = item.get("budget", 4000)
    if isinstance(budget, bool) or not isinstance(budget, int) or budget < 1:
        raise bad("budget", "must be a whole number of tokens >= 1")
    inherit = item.get("inherit", False)
    if not isinstance(inherit, bool):
        raise bad("inherit", "must be true or false")
    expect = item.get("expect", [])
    if not isinstance(expect, list) or not all(isinstance(p, str) for p in expect):
        raise bad("expect", "must be a list of memory paths")
    forbid_raw = item.get("forbid", [])
    if isinstance(forbid_raw, list) and all(isinstance(p, str) for p in forbid_raw):
        forbid: dict[str, str | None] = dict.fromkeys(forbid_raw)
    elif isinstance(forbid_raw, dict) and all(isinstance(k, str) for k in forbid_raw):
        forbid = {}
        for key, cause in forbid_raw.items():
            if cause is not None and cause not in CAUSES:
                raise bad("forbid", f"{key}: cause {cause!r} is not one of {', '.join(CAUSES)}")
            forbid[key] = cause
    else:
        raise bad("forbid", "must be a list of memory paths or a mapping path: cause")
    for field_name, listed in (("expect", expect), ("forbid", list(forbid))):
        for rel in listed:
            if rel not in known and not (field_name == "forbid" and _digest(rel) in purged):
                raise bad(field_name, f"{rel}: no such committed memory")
    return Case(str(name), task, tuple(scopes), inherit, version, at, budget, tuple(expect), forbid)


def _digest(rel: str) -> str:
    return hashlib.sha256(rel.encode("utf-8")).hexdigest()


# --- running -------------------------------------------------------------------------------------
def _cause(repo: Store, rel: str, case: Case) -> str:
    data = repo.files_at("HEAD", [rel]).get(rel)
    if data is None:
        return "conflicting"
    memory = parse(rel, data)
    rules = [recall.ScopeRule(s, case.inherit) for s in case.scopes]
    if not any(rule.allows(memory.scope) for rule in rules):
        return "out of scope"
    if case.version is not None and memory.version not in (None, case.version):
        return "wrong version"
    if memory.status in ("superseded", "retracted"):
        return memory.status
    if memory.expires is not None and case.at >= memory.expires:
        return "expired"
    return "conflicting"


def run_case(repo: Store, case: Case) -> CaseResult:
    ctx = assemble(repo, case.task, scope=list(case.scopes), version=case.version, budget=case.budget,
                   inherit=case.inherit, at=case.at)
    recalled = [b for b in ctx.blocks if b.kind == "recalled"]
    injected = [b.path for b in ctx.blocks]
    rules = [recall.ScopeRule(s, case.inherit) for s in case.scopes]
    leaked = [b.path for b in recalled if not any(rule.allows(b.scope) for rule in rules)]
    wrong = {rel: cause or _cause(repo, rel, case) for rel, cause in case.forbid.items() if rel in injected}
    requests: list[tuple[str | None, bool]] = [(s, case.inherit) for s in case.scopes]
    every = _committed_in_scope(repo, requests, case.version, case.at)
    system_tokens = sum(estimate_tokens(render_block(b, "markdown", ctx.fence)) for b in ctx.blocks
                        if b.kind == "system")
    baseline = system_tokens + sum(estimate_tokens(render_block(_block(m, "recalled"), "markdown", ctx.fence))
                                   for m in every)
    return CaseResult(case.name, injected, [p for p in case.expect if p not in injected], wrong, leaked,
                      ctx.tokens, max(baseline, ctx.tokens), len(recalled),
                      injected_together(repo, [b.path for b in recalled]))


def injected_together(repo: Store, paths: list[str]) -> list[tuple[str, str]]:
    """The pairs among the injected memories ``paths`` (read at HEAD, as the context reads them)
    that give two values for one subject: one ``(scope, key, version)`` twice, or a probable
    conflict. Judged here from the files, not from what the context says it did."""
    memories = []
    for rel, data in repo.files_at("HEAD", paths).items():
        if data is not None:
            with contextlib.suppress(MemfsError):
                memories.append(parse(rel, data))
    found = [(pair.older, pair.newer) for pair in conflict_pairs.pairs(memories)]
    by_identity: dict[tuple[str | None, str, str | None], list[str]] = {}
    for memory in memories:
        identity = identity_of(memory)
        if identity is not None:
            by_identity.setdefault(identity, []).append(memory.path)
    found += [(group[0], other) for group in by_identity.values() for other in group[1:]]
    return found


def evaluate(repo: Store, cases: list[Case], *, deletion: bool = True) -> EvalReport:
    report = EvalReport()
    causes: Counter[str] = Counter()
    for case in cases:
        result = run_case(repo, case)
        report.cases.append(result)
        report.expected += len(case.expect)
        report.hits += len(case.expect) - len(result.missing)
        report.recalled += result.recalled
        causes.update(result.wrong.values())
        report.leakage += len(result.leaked)
        report.tokens += result.tokens
        report.baseline_tokens += result.baseline_tokens
    report.wrong_by_cause = dict(causes)
    report.writes = write_counts(repo)
    if deletion:
        target = next((c for c in cases if c.expect), None)
        if target is not None:
            report.deletion = deletion_propagation(repo, target)
    return report


def write_counts(repo: Store) -> dict[str, Any]:
    """Accepted writes by ``Memfs-Op`` and by actor kind, from the commit trailers; refused writes
    by rule and by operation, from this checkout's refusal log (:mod:`memfs.store.refusal_log`).

    The refusal rate compares like with like: refused writes against the accepted commits made
    after the commit HEAD was on at the log's first entry (before it, refusals were not recorded
    here). A batch commit counts as one accepted write."""
    from memfs.store import refusal_log
    from memfs.store.history import log

    ops: Counter[str] = Counter()
    kinds: Counter[str] = Counter()
    refused = refusal_log.load(repo.cache_dir)
    first = refused[0] if refused else None
    accepted_since, before_first = 0, first is None
    for entry in log(repo):
        before_first = before_first or (first is not None and entry.commit == first.head)
        if entry.op is None:
            continue
        ops[entry.op] += 1
        actor = (entry.trailers.get("Memfs-Actor") or [entry.actor])[0]
        kinds[actor.split(":", 1)[0]] += 1
        accepted_since += not before_first
    rules = Counter(rule for r in refused for rule in r.rules)
    return {
        "accepted_by_op": dict(ops), "accepted_by_actor_kind": dict(kinds),
        "refused": len(refused), "refused_by_rule": dict(rules),
        "refused_by_op": dict(Counter(r.op for r in refused)),
        "refused_since": first.at.isoformat().replace("+00:00", "Z") if first else None,
        "refusal_rate": round(len(refused) / (len(refused) + accepted_since), 4) if refused else 0.0,
    }


def deletion_propagation(repo: Store, case: Case) -> dict[str, Any]:
    """Forget the case's first expected memory in a scratch clone, then ask search, context and the
    index straight away: which of them still return it, and the seconds it all took; and the same
    for a purge (hard deletion, history rewritten) in another scratch clone, under ``purge``."""
    forgotten = _propagation(repo, case, "forget")
    return {**forgotten, "purge": _propagation(repo, case, "purge")}


def _propagation(repo: Store, case: Case, operation: str) -> dict[str, Any]:
    from memfs import index
    from memfs.ops.forget import forget
    from memfs.ops.purge import purge

    rel = case.expect[0]
    workdir = repo.git.workdir
    if repo.git.git_dir.resolve() != (workdir / ".git").resolve() or not (workdir / ".git").is_dir():
        return {"path": rel, "operation": operation, "skipped": "the repository's git directory is not its own "
                ".git folder, so it is not copied for a scratch run", "still_returned": [], "seconds": 0.0}
    scratch = Path(tempfile.mkdtemp(prefix="memfs-eval-"))
    try:
        shutil.copytree(workdir, scratch / "r", symlinks=True)
        clone = Store.open(scratch / "r" / repo.root.relative_to(repo.git.workdir), "user:memfs-eval")
        started = time.perf_counter()
        reason = f"memfs eval: deletion propagation ({operation})"
        if operation == "purge":
            purge(clone, rel, reason=reason)
        else:
            forget(clone, rel, reason=reason)
        still: list[str] = []
        if any(h.path == rel for s in case.scopes
               for h in index.search(clone, case.task, scope=s, inherit=case.inherit, at=case.at, limit=50).hits):
            still.append("search")
        ctx = assemble(clone, case.task, scope=list(case.scopes), inherit=case.inherit, at=case.at,
                       version=case.version)
        if any(b.path == rel for b in ctx.blocks):
            still.append("context")
        reader = index.search(clone, rel, scope=None, at=case.at, limit=50)
        if any(h.path == rel for h in reader.hits):
            still.append("index")
        seconds = time.perf_counter() - started
    except (MemfsError, OSError) as exc:
        return {"path": rel, "operation": operation, "error": str(exc), "still_returned": ["unknown"],
                "seconds": 0.0}
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return {"path": rel, "operation": operation, "still_returned": still, "seconds": round(seconds, 3)}
