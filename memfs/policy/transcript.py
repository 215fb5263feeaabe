"""Chat transcripts: truncation to a token budget, and the thread summary record (pure).

:func:`truncate` keeps the most recent messages that fit, plus pinned ones (system/developer
messages and the first user turn by default) and always the newest user message, and never
separates a question from its answer or a tool call from its result: a user message and
everything up to the next user message (the assistant's reply, its tool calls and their results)
form one unit, and so do a message that issues calls and every message holding their results
(with whatever lies between); a unit is kept or dropped whole (the newest turn's question alone
first, then its pieces), so a kept answer is never shown after the wrong question. Both common
shapes are understood:

* OpenAI chat: ``assistant.tool_calls[].id`` answered by ``{"role": "tool", "tool_call_id"}``;
  Responses items ``{"type": "function_call", "call_id"}`` / ``{"type": "function_call_output"}``.
* Anthropic: ``{"type": "tool_use", "id"}`` content blocks answered by
  ``{"type": "tool_result", "tool_use_id"}`` blocks in a later user message.

Orphans already in the input (a result whose call is missing, or a call never answered) are
handled by ``orphans``: ``"drop"`` (default) removes just those calls/results (and a message left
empty) and lists them in :attr:`Truncation.orphans`; ``"error"`` raises :class:`TranscriptError`.
Input messages are never mutated.

:class:`SummaryRecord` is the contract for a rolling thread summary; :func:`next_summary` makes
version ``n + 1`` from version ``n``. Storing it as a ``type: summary`` memory is
:mod:`memfs.ops.thread_summary`.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from memfs.errors import InvalidMemory, MemfsError
from memfs.policy.tokens import TokenCounter, estimate_tokens

Message = Mapping[str, Any]
#: Fixed per-message cost (role, separators) that chat formats add on top of the content.
MESSAGE_OVERHEAD = 4


class TranscriptError(MemfsError):
    """A transcript the caller asked to be strict about has orphaned tool calls or results."""


@dataclass(frozen=True)
class Orphan:
    index: int
    id: str
    kind: Literal["call", "result"]

    def __str__(self) -> str:
        other = "result" if self.kind == "call" else "call"
        return f"message {self.index}: tool {self.kind} {self.id!r} has no {other}"


@dataclass(frozen=True)
class Truncation:
    """What :func:`truncate` kept. ``kept``/``dropped`` are indexes into the input."""

    messages: list[dict[str, Any]]
    kept: tuple[int, ...]
    dropped: tuple[int, ...]
    tokens: int
    budget: int
    over_budget: bool = False
    orphans: tuple[Orphan, ...] = ()


# --- tool call/result structure ----------------------------------------------------------------
def _blocks(message: Message) -> list[Any]:
    content = message.get("content")
    return content if isinstance(content, list) else []


def call_ids(message: Message) -> list[str]:
    """Ids of the tool calls a message issues (OpenAI, Responses or Anthropic shape)."""
    ids = [c["id"] for c in message.get("tool_calls") or () if isinstance(c, Mapping) and c.get("id")]
    ids += [b["id"] for b in _blocks(message) if isinstance(b, Mapping) and b.get("type") == "tool_use" and b.get("id")]
    if message.get("type") == "function_call" and message.get("call_id"):
        ids.append(message["call_id"])
    return [str(i) for i in ids]


def result_ids(message: Message) -> list[str]:
    """Ids of the tool calls a message answers."""
    ids: list[Any] = []
    if message.get("role") == "tool" and message.get("tool_call_id"):
        ids.append(message["tool_call_id"])
    ids += [
        b["tool_use_id"]
        for b in _blocks(message)
        if isinstance(b, Mapping) and b.get("type") == "tool_result" and b.get("tool_use_id")
    ]
    if message.get("type") == "function_call_output" and message.get("call_id"):
        ids.append(message["call_id"])
    return [str(i) for i in ids]


def find_orphans(messages: Sequence[Message]) -> list[Orphan]:
    """Calls without a later result and results without an earlier call."""
    found: list[Orphan] = []
    called: dict[str, int] = {}
    answered: set[str] = set()
    for i, message in enumerate(messages):
        for rid in result_ids(message):
            if rid in called and called[rid] < i:
                answered.add(rid)
            else:
                found.append(Orphan(i, rid, "result"))
        for cid in call_ids(message):
            called[cid] = i
    for cid, i in called.items():
        if cid not in answered:
            found.append(Orphan(i, cid, "call"))
    return sorted(found, key=lambda o: (o.index, o.kind, o.id))


def _without(message: Message, calls: set[str], results: set[str]) -> dict[str, Any] | None:
    """A copy of ``message`` without the given calls/results; ``None`` if nothing is left."""
    out = copy.deepcopy(dict(message))
    if out.get("role") == "tool" and str(out.get("tool_call_id")) in results:
        return None
    if out.get("type") in ("function_call", "function_call_output") and str(out.get("call_id")) in calls | results:
        return None
    if "tool_calls" in out:
        kept = [c for c in out["tool_calls"] or () if str(c.get("id")) not in calls]
        if kept:
            out["tool_calls"] = kept
        else:
            del out["tool_calls"]
    if isinstance(out.get("content"), list):
        out["content"] = [
            b
            for b in out["content"]
            if not (
                isinstance(b, Mapping)
                and (
                    (b.get("type") == "tool_use" and str(b.get("id")) in calls)
                    or (b.get("type") == "tool_result" and str(b.get("tool_use_id")) in results)
                )
            )
        ]
    if not out.get("content") and not out.get("tool_calls") and out.get("type") is None:
        return None
    return out


# --- cost --------------------------------------------------------------------------------------
def message_text(message: Message) -> str:
    """The text a model is charged for: content, tool arguments and results (not JSON syntax)."""
    parts: list[str] = [str(message.get("role") or message.get("type") or "")]
    parts += _content_text(message.get("content"))
    for call in message.get("tool_calls") or ():
        function = call.get("function") or {}
        parts += [str(function.get("name", "")), str(function.get("arguments", ""))]
    for key in ("name", "arguments", "output"):
        if isinstance(message.get(key), str):
            parts.append(message[key])
    return "\n".join(p for p in parts if p)


def _content_text(content: Any) -> list[str]:
    if content is None:
        return []
    if isinstance(content, str):
        return [content]
    if isinstance(content, list):
        out: list[str] = []
        for block in content:
            if isinstance(block, str):
                out.append(block)
            elif isinstance(block, Mapping):
                if isinstance(block.get("text"), str):
                    out.append(block["text"])
                if block.get("type") == "tool_use":
                    out += [str(block.get("name", "")), json.dumps(block.get("input", {}), ensure_ascii=False)]
                if block.get("type") == "tool_result":
                    out += _content_text(block.get("content"))
        return out
    return [json.dumps(content, ensure_ascii=False, default=str)]


def message_tokens(message: Message, count: TokenCounter = estimate_tokens) -> int:
    return count(message_text(message)) + MESSAGE_OVERHEAD


# --- truncation --------------------------------------------------------------------------------
def default_pin(messages: Sequence[Message]) -> set[int]:
    """System/developer messages and the first user turn that is not just tool results."""
    pinned = {i for i, m in enumerate(messages) if m.get("role") in ("system", "developer")}
    for i, message in enumerate(messages):
        if message.get("role") == "user" and not result_ids(message):
            pinned.add(i)
            break
    return pinned


def opens_turn(message: Message) -> bool:
    """A user message that is not just tool results: it starts a user/assistant turn."""
    return message.get("role") == "user" and not result_ids(message)


def _units(messages: Sequence[Message]) -> list[tuple[int, int]]:
    """Contiguous [start, end] spans that must be kept or dropped together: a user message with
    everything up to the next user message (the assistant's answer, its tool calls and their
    results), so an answer never follows another question; and a tool call with its results."""
    first_call: dict[str, int] = {}
    spans = [[i, i] for i in range(len(messages))]
    for i, message in enumerate(messages):
        for cid in call_ids(message):
            first_call.setdefault(cid, i)
        for rid in result_ids(message):
            if rid in first_call:
                start = first_call[rid]
                spans[start][1] = max(spans[start][1], i)
    starts = [i for i, message in enumerate(messages) if opens_turn(message)]
    for start, following in zip(starts, [*starts[1:], len(messages)], strict=False):
        spans[start][1] = max(spans[start][1], following - 1)
    merged: list[tuple[int, int]] = []
    for start, end in spans:
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def _newest_question(messages: Sequence[Message]) -> int | None:
    return next((i for i in range(len(messages) - 1, -1, -1) if opens_turn(messages[i])), None)


def _selectable(view: Sequence[Message], pinned: set[int]) -> list[list[int]]:
    """The units of :func:`_units`, except that the newest user turn, unless pinned, is split: its
    question alone, then each message or call-with-results after it, so that the question is kept
    whatever the budget and the newest of what follows it fill what is left (a kept answer still
    follows its own question, and no call is separated from its results)."""
    newest = _newest_question(view)
    out: list[list[int]] = []
    for start, end in _units(view):
        unit = list(range(start, end + 1))
        if start != newest or pinned & set(unit):
            out.append(unit)
            continue
        out.append([start])
        out.extend(list(range(start + 1 + a, start + 2 + b)) for a, b in _units(view[start + 1 : end + 1]))
    return out


def truncate(
    messages: Sequence[Message],
    budget: int,
    *,
    count: TokenCounter = estimate_tokens,
    pin: Callable[[Sequence[Message]], Iterable[int]] = default_pin,
    orphans: Literal["drop", "error"] = "drop",
) -> Truncation:
    """Keep pinned messages, the newest user message, and the newest whole units that fit in
    ``budget`` tokens.

    The newest user message (one that is not just tool results) is always kept, pinned or not;
    what follows it (the reply, its tool calls and their results) is kept newest first, a call
    with its results as one piece, as far as the budget allows. Selection walks back from the end
    and stops at the first unit that does not fit, so the kept tail is contiguous. If the pinned
    messages and the newest question alone exceed the budget they are still all kept and
    ``over_budget`` is set: dropping the user's constraints or request silently would be worse.
    """
    if budget < 0:
        raise TranscriptError(f"budget must be >= 0 tokens, got {budget}")
    found = find_orphans(messages)
    if found and orphans == "error":
        raise TranscriptError("orphaned tool calls/results: " + "; ".join(str(o) for o in found))
    cleaned: list[tuple[int, dict[str, Any]]] = []
    bad_calls = {o.id for o in found if o.kind == "call"}
    bad_results = {(o.index, o.id) for o in found if o.kind == "result"}
    for i, message in enumerate(messages):
        results = {rid for (j, rid) in bad_results if j == i}
        calls = bad_calls & set(call_ids(message))
        fixed = _without(message, calls, results) if (calls or results) else dict(message)
        if fixed is not None:
            cleaned.append((i, fixed))
    view = [m for _, m in cleaned]
    pinned_original = set(pin(messages))
    pinned_units: list[list[int]] = []
    other_units: list[list[int]] = []
    for unit in _selectable(view, {k for k, (i, _) in enumerate(cleaned) if i in pinned_original}):
        (pinned_units if any(cleaned[k][0] in pinned_original for k in unit) else other_units).append(unit)
    newest = _newest_question(view)
    for unit in [unit for unit in other_units if newest in unit]:
        pinned_units.append(unit)
        other_units.remove(unit)
    cost = [message_tokens(m, count) for m in view]
    keep = {k for unit in pinned_units for k in unit}
    used = sum(cost[k] for k in keep)
    over = used > budget
    if not over:
        for unit in reversed(other_units):
            unit_cost = sum(cost[k] for k in unit)
            if used + unit_cost > budget:
                break
            keep.update(unit)
            used += unit_cost
    kept = sorted(keep)
    kept_original = tuple(cleaned[k][0] for k in kept)
    dropped = tuple(i for i in range(len(messages)) if i not in set(kept_original))
    return Truncation([view[k] for k in kept], kept_original, dropped, used, budget, over, tuple(found))


# --- the summary record ------------------------------------------------------------------------
_THREAD = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.:@+=-]{0,127}")
LIST_FIELDS = ("confirmed_constraints", "completed_steps", "open_questions", "source_message_ids")


@dataclass(frozen=True)
class SummaryRecord:
    """A rolling summary of one conversation thread, versioned so updates never race silently."""

    thread_id: str
    summary_version: int
    covered_until_message_id: str
    goal: str
    confirmed_constraints: tuple[str, ...] = ()
    completed_steps: tuple[str, ...] = ()
    open_questions: tuple[str, ...] = ()
    source_message_ids: tuple[str, ...] = field(default=())

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        for name in LIST_FIELDS:
            data[name] = list(data[name])
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any], where: str = "summary") -> SummaryRecord:
        problems = summary_problems(data)
        if problems:
            raise InvalidMemory(f"{where}: " + "; ".join(problems), [])
        values = {name: data[name] for name in ("thread_id", "summary_version", "covered_until_message_id", "goal")}
        values.update({name: tuple(data.get(name) or ()) for name in LIST_FIELDS})
        return cls(**values)


def summary_problems(data: object) -> list[str]:
    """Everything wrong with a summary record (empty list if it is valid)."""
    problems = []
    if not isinstance(data, Mapping):
        return ["a summary record must be an object"]
    unknown = sorted(set(data) - {f for f in SummaryRecord.__dataclass_fields__})
    if unknown:
        problems.append(f"unknown field(s) {', '.join(unknown)}")
    thread = data.get("thread_id")
    if not isinstance(thread, str) or not _THREAD.fullmatch(thread):
        problems.append("thread_id must be 1-128 letters, digits or _ . : @ + = -")
    version = data.get("summary_version")
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        problems.append("summary_version must be a whole number >= 1")
    for name in ("covered_until_message_id", "goal"):
        if not isinstance(data.get(name), str) or not data[name].strip():
            problems.append(f"{name} must be a non-empty string")
    for name in LIST_FIELDS:
        value = data.get(name, ())
        if not isinstance(value, list | tuple) or not all(isinstance(v, str) and v.strip() for v in value):
            problems.append(f"{name} must be a list of non-empty strings")
    sources = data.get("source_message_ids")
    covered = data.get("covered_until_message_id")
    if isinstance(sources, list | tuple) and isinstance(covered, str) and covered not in sources:
        problems.append("covered_until_message_id must be one of source_message_ids")
    return problems


def next_summary(
    previous: SummaryRecord | None,
    *,
    thread_id: str | None = None,
    covered_until_message_id: str,
    source_message_ids: Iterable[str],
    goal: str | None = None,
    confirmed_constraints: Iterable[str] = (),
    completed_steps: Iterable[str] = (),
    new_questions: Iterable[str] = (),
    resolved_questions: Iterable[str] = (),
) -> SummaryRecord:
    """Version ``n + 1``: lists grow (duplicates ignored), resolved questions leave, sources accumulate."""
    if previous is None:
        if thread_id is None or goal is None:
            raise InvalidMemory("the first summary of a thread needs thread_id and goal", [])
        base = SummaryRecord(thread_id, 0, covered_until_message_id, goal)
    else:
        if thread_id is not None and thread_id != previous.thread_id:
            raise InvalidMemory(f"thread_id {thread_id!r} does not match the previous summary's", [])
        base = previous
    resolved = set(resolved_questions)
    record = SummaryRecord(
        thread_id=base.thread_id,
        summary_version=base.summary_version + 1,
        covered_until_message_id=covered_until_message_id,
        goal=goal if goal is not None else base.goal,
        confirmed_constraints=_merged(base.confirmed_constraints, confirmed_constraints),
        completed_steps=_merged(base.completed_steps, completed_steps),
        open_questions=_merged(tuple(q for q in base.open_questions if q not in resolved), new_questions),
        source_message_ids=_merged(base.source_message_ids, source_message_ids),
    )
    if previous is not None and covered_until_message_id == previous.covered_until_message_id:
        raise InvalidMemory(f"this summary already covers up to {covered_until_message_id!r}; nothing new", [])
    return SummaryRecord.from_json(record.to_json())


def _merged(old: Iterable[str], new: Iterable[str]) -> tuple[str, ...]:
    out = list(old)
    out += [item for item in dict.fromkeys(new) if item not in out]
    return tuple(out)


FENCE = "memfs-summary"


def summary_body(record: SummaryRecord) -> str:
    """The memory body: readable sections, then the record itself as a fenced JSON block."""

    def section(title: str, items: Sequence[str]) -> list[str]:
        return [f"## {title}", *([f"- {i}" for i in items] or ["(none)"]), ""]

    lines = ["## Goal", record.goal, ""]
    lines += section("Confirmed constraints", record.confirmed_constraints)
    lines += section("Completed steps", record.completed_steps)
    lines += section("Open questions", record.open_questions)
    lines += [f"```{FENCE}", json.dumps(record.to_json(), ensure_ascii=False, indent=2), "```", ""]
    return "\n".join(lines)


def record_from_body(body: str, where: str = "summary") -> SummaryRecord:
    """The record from a summary memory's body (the fenced block is authoritative)."""
    match = re.search(rf"^```{FENCE}[ \t]*\r?\n(.*?)^```[ \t]*$", body, re.MULTILINE | re.DOTALL)
    if match is None:
        raise InvalidMemory(f"{where}: has no ```{FENCE} block holding the summary record", [])
    try:
        data = json.loads(match.group(1))
    except json.JSONDecodeError as exc:
        raise InvalidMemory(f"{where}: the summary record is not valid JSON ({exc})", []) from None
    return SummaryRecord.from_json(data, where)
