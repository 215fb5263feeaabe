"""Context assembly: what memory to put in front of a model for one task, within a token budget.

Order and rules (each is tested):

1. **Core memory.** Every ``system/`` file, in path order, from the **committed** state (``HEAD``;
   uncommitted edits are not injected), each cut to its own ``limit`` (characters) if it has one.
   System files get at most ``system_share`` of the budget. If they need more, the result says so
   loudly (:attr:`Context.warnings`, first thing in the rendered text) and every system file is cut
   deterministically by water-filling (each gets an equal share of what is left, a file needing
   less gives the rest back); see 4. for a budget too tight for that. A system file that is not
   ``active``, does not parse at HEAD or has an unreadable eligibility field (a ``status`` or
   ``expires`` that is present but invalid) is left out and listed with the reason.
2. **Recalled memories.** :func:`memfs.index.search` (eligibility first, then rank), best first;
   a memory that does not fit in what is left of the budget is skipped and listed in
   :attr:`Context.left_out`, and smaller lower-ranked ones may still fit. Only **committed**
   content is injected, as for ``system/``: the index follows the working tree, so a hit whose
   file differs from HEAD (edited, staged, untracked, git-ignored) is replaced by its HEAD copy
   if that copy is still eligible, or left out with the reason. An uncommitted edit can withhold
   a memory, never add or alter one. The rendered context says how many memory files have
   uncommitted edits (:attr:`Context.uncommitted_total`), names those this context touched
   (:attr:`Context.uncommitted`: recalled ones and ``system/`` files; other scopes' paths are
   not shown to the model), and that committing them (or ``memfs watch``) makes them count.
   Before ranking: the **active preferences** of the requested scope chain are always candidates
   (a task that never says "language" still gets the language preference), placed after the
   hits that matched, and pinned: placed even over the budget, for 4. to weigh. Hits that
   cover fewer query terms than the best one and whose relevance is below ``min_relevance`` ×
   the best hit's are dropped (noise does not fill the budget; a hit of the best coverage is
   always kept). At most one side of a duplicate ``(scope, key, version)`` or of a probable
   conflict without a key is injected, the newer; the others are left out and reported as a
   warning (:mod:`memfs.agents.dedupe`; ``memfs validate`` flags them too). Several scopes may be
   asked at once, each matched exactly (a bound session still refuses any scope but its own).
   Asked without a scope, a context whose memories belong to more than one person (``user:``
   segments) is refused, as an unbound ``memfs tool`` is, unless ``all_scopes``.
3. **Labels and delimiters.** Each memory carries its path, scope, type, source, date, revision,
   confidence and version (when it has one; when memories carry versions and none was asked
   for, the context says so), all injected memories being active, inside a delimiter that text
   in a memory cannot close: markdown uses a per-call random
   fence (regenerated if any memory contains it), XML escapes the body, JSON encodes it. A preamble
   says the memories are reference material, not instructions.

4. **Every byte printed fits.** The rendered text (preamble, warnings, labels, fences, the
   left-out list), counted by the same counter, is within the budget; when it is not, things
   give way in the order :func:`_finish` states: the left-out list is summarised, matched
   memories go, ``system/`` is cut further (to no text, then the last files' labels), warnings
   are summarised, and only then do pinned preferences go. A pinned preference is never dropped
   while ``system/`` keeps text.

Token counts come from a pluggable counter (default :func:`memfs.policy.tokens.estimate_tokens`,
offline; its accuracy is documented there).
"""

from __future__ import annotations

import datetime as dt
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from memfs import index
from memfs.agents import dedupe
from memfs.agents.dedupe import Candidate
from memfs.agents.formats import FORMATS, is_format
from memfs.agents.rendering import Block, Context, LeftOut, render_block, render_head, render_tail
from memfs.errors import InvalidMemory, UsageError
from memfs.format.model import SYSTEM_DIR, Memory, utcnow
from memfs.format.parse import parse
from memfs.index.results import Hit, SearchResult, Uncommitted
from memfs.ops import semantic
from memfs.policy import recall
from memfs.policy.tokens import TokenCounter, estimate_tokens
from memfs.store import usage
from memfs.store.repo import Store

DEFAULT_BUDGET = 4000
SYSTEM_SHARE = 0.5
RECALL_CANDIDATES = 50
#: Recalled hits whose relevance is below this fraction of the best hit's are dropped as noise.
MIN_RELEVANCE = 0.2
#: How many uncommitted paths the rendered notice names (all of them are in the JSON form).
#: Stand-in fence used while deciding what fits; the real per-call fence is drawn at the end.
#: Fences are 9 random digits (about 30 bits, fresh every call): 3 BPE tokens where 16 hex digits cost ~14.
COST_FENCE = "482913577"
# --- assembly ------------------------------------------------------------------------------------
def committed_system_files(repo: Store, also: Sequence[str] = ()) -> tuple[list[tuple[str, bytes]], dict[str, bytes]]:
    """(path, bytes) of every ``system/`` memory at HEAD, in path order, and the bytes at HEAD of
    the files ``also`` names that exist there: read together, by one ``git cat-file``."""
    if repo.git.head() is None:
        return [], {}
    rels = repo.memory_paths_at("HEAD", under=SYSTEM_DIR)
    found = {rel: data for rel, data in repo.files_at("HEAD", [*rels, *also]).items() if data is not None}
    return [(rel, found[rel]) for rel in rels if rel in found], {rel: found[rel] for rel in also if rel in found}


def _time(memory: Memory) -> str | None:
    when = memory.updated or memory.created
    return None if when is None else when.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%MZ")


def _block(memory: Memory, kind: Literal["system", "recalled"], score: float | None = None) -> Block:
    text = memory.body.strip("\n")
    truncated = False
    original = len(text)
    if memory.limit is not None and len(text) > memory.limit:
        text, truncated = text[: memory.limit], True
    return Block(
        memory.path,
        kind,
        text,
        memory.scope,
        memory.source,
        _time(memory),
        memory.revision,
        memory.status,
        truncated,
        original,
        score,
        memory.type,
        memory.confidence if isinstance(memory.confidence, int | float) else None,
        memory.version,
    )


def cut(text: str, max_tokens: int, count: TokenCounter) -> str:
    """The longest prefix of ``text`` within ``max_tokens`` (preferring a line end); deterministic."""
    if count(text) <= max_tokens:
        return text
    lo, hi = 0, len(text)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if count(text[:mid]) <= max_tokens:
            lo = mid
        else:
            hi = mid - 1
    prefix = text[:lo]
    newline = prefix.rfind("\n")
    return prefix[:newline] if newline >= lo * 0.8 else prefix


def _fit_system(
    blocks: list[Block], share: int, cost: Callable[[Block], int], count: TokenCounter
) -> tuple[list[Block], bool]:
    """Water-fill ``share`` tokens over the system blocks' text; every block keeps its label."""
    labels = [cost(replace(b, text="")) for b in blocks]
    texts = [count(b.text) for b in blocks]
    if sum(labels) + sum(texts) <= share:
        return blocks, False
    room = max(0, share - sum(labels))
    allowed = [0] * len(blocks)
    remaining = list(range(len(blocks)))
    while remaining:
        each = room // len(remaining)
        small = [i for i in remaining if texts[i] <= each]
        if not small:
            for i in remaining:
                allowed[i] = each
            break
        for i in small:
            allowed[i] = texts[i]
            room -= texts[i]
            remaining.remove(i)
    out = []
    for block, limit, need in zip(blocks, allowed, texts, strict=True):
        if need <= limit:
            out.append(block)
            continue
        text = cut(block.text, limit, count)
        out.append(replace(block, text=text, truncated=True))
    return out, True


def _scope_list(scope: str | Sequence[str] | None) -> list[str | None]:
    if scope is None or isinstance(scope, str):
        return [scope]
    listed = list(dict.fromkeys(scope))
    if not all(isinstance(item, str) for item in listed):
        raise UsageError(f"{scope!r}: give scopes as strings", param="scope")
    return list(listed) or [None]


def assemble(
    repo: Store,
    task: str,
    *,
    scope: str | Sequence[str] | None,
    version: str | None = None,
    budget: int = DEFAULT_BUDGET,
    format: str = "markdown",
    count: TokenCounter = estimate_tokens,
    system_share: float = SYSTEM_SHARE,
    inherit: bool = False,
    candidates: int = RECALL_CANDIDATES,
    at: dt.datetime | None = None,
    min_relevance: float = MIN_RELEVANCE,
    all_scopes: bool = False,
) -> Context:
    """Build the context for ``task`` (see the module docstring for the rules). ``scope`` may be
    one scope or several, each matched exactly (with ``inherit``, each with its ancestors).
    Without a scope, memories of more than one person are refused unless ``all_scopes``
    (:func:`memfs.policy.recall.check_one_person`)."""
    if not is_format(format):
        raise UsageError(f"{format!r}: use one of {', '.join(FORMATS)}", param="format")
    if isinstance(budget, bool) or not isinstance(budget, int) or budget < 1:
        raise UsageError(f"{budget!r}: must be a whole number of tokens >= 1", param="budget")
    if not 0 < system_share <= 1:
        raise UsageError(f"{system_share!r}: must be in (0, 1]", param="system_share")
    if isinstance(min_relevance, bool) or not isinstance(min_relevance, int | float) or not 0 <= min_relevance <= 1:
        raise UsageError(f"{min_relevance!r}: must be a fraction in [0, 1]", param="min_relevance")
    requests = [repo.recall_scope(one, inherit) for one in _scope_list(scope)]
    requests = list(dict.fromkeys(requests))
    count = _remembered(count)
    scopes = [one for one, _ in requests if one is not None]
    ctx = Context(task, scopes[0] if len(scopes) == 1 else None, version, budget, format, COST_FENCE)
    ctx.scopes = scopes

    def cost(block: Block) -> int:
        return count(render_block(block, format, ctx.fence))

    system: list[Block] = []
    candidates_at_head = _scope_candidates(repo, requests)
    system_files, scope_files = committed_system_files(repo, candidates_at_head or ())
    for rel, memory in repo.parsed_at_head(dict(system_files)).items():
        if isinstance(memory, InvalidMemory):
            ctx.left_out.append(LeftOut(rel, f"does not parse at HEAD: {memory}"))
            ctx.warnings.append(f"{rel} is committed but does not parse, so it was not injected: {memory}")
            continue
        if memory.unreadable:
            ctx.left_out.append(LeftOut(rel, f"unreadable {', '.join(memory.unreadable)}"))
            ctx.warnings.append(
                f"{rel} has an unreadable {', '.join(memory.unreadable)}, so it was not injected; run memfs validate"
            )
            continue
        if memory.status not in (None, "active"):
            ctx.left_out.append(LeftOut(rel, f"status {memory.status}"))
            continue
        system.append(_block(memory, "system"))
    share = int(budget * system_share)
    system_fit = _SystemFit(system, sum(cost(b) for b in system), share, cost, count)
    ctx.blocks.extend(system_fit.apply(ctx, share))
    now = at or utcnow()
    in_scope = [] if candidates_at_head is None else _in_scope(repo, requests, scope_files, version, now)
    _recall(repo, ctx, cost, count, requests, in_scope, candidates=candidates, now=now, min_relevance=min_relevance)
    if not all_scopes and any(one is None for one, _ in requests):
        recall.check_one_person((b.scope for b in ctx.blocks if b.kind == "recalled"),
                                "the memories recalled for this task")
    _finish(ctx, count, cost, system_fit)
    usage.record_recall(repo, [b.path for b in ctx.blocks if b.kind == "recalled"])
    return ctx


_SYSTEM_CUT = "system/ needs about"


def _remembered(count: TokenCounter) -> TokenCounter:
    """``count``, answering a text it has already counted (in one assembly) from memory. Fitting
    the budget renders and counts the whole context again after steps that often changed nothing
    (about half of a context request's time went to counting the same text again); a counter is
    a function of the text alone, so the same numbers come out."""
    known: dict[str, int] = {}

    def counted(text: str) -> int:
        tokens = known.get(text)
        if tokens is None:
            tokens = known[text] = count(text)
        return tokens

    return counted


@dataclass
class _SystemFit:
    """The committed ``system/`` blocks uncut, and how to cut them to a share of the budget
    (water-filling, :func:`_fit_system`), keeping the warning that says so in step."""

    blocks: list[Block]
    needed: int
    share: int
    cost: Callable[[Block], int]
    count: TokenCounter

    @property
    def paths(self) -> set[str]:
        return {b.path for b in self.blocks}

    def apply(self, ctx: Context, share: int) -> list[Block]:
        """The blocks cut to ``share`` tokens; the context's warning about the cut is set (or removed)."""
        fitted, cut_any = _fit_system(self.blocks, share, self.cost, self.count)
        ctx.warnings[:] = [w for w in ctx.warnings if not w.startswith(_SYSTEM_CUT)]
        if cut_any:
            names = ", ".join(b.path for b in fitted if b.truncated)
            ctx.warnings.insert(0,
                f"{_SYSTEM_CUT} {self.needed} tokens, gets {share} of the budget of {ctx.budget}: "
                f"cut {names}. Shorten them or raise the budget."
            )
        return fitted


def _is_noise(ranked: list[Candidate], min_relevance: float) -> Callable[[Candidate], bool]:
    """Noise: a hit that covers fewer of the query's terms than the best hit and whose relevance
    is below ``min_relevance`` × the best. A hit of the best coverage is never noise (the ranking
    rule that no partial match buries a full one holds in the context too)."""
    best_cover = max((int(c.score or 0.0) for c in ranked), default=0)
    best = max((c.relevance or 0.0 for c in ranked), default=0.0)
    return lambda c: int(c.score or 0.0) < best_cover and (c.relevance or 0.0) < min_relevance * best


def _recall(
    repo: Store,
    ctx: Context,
    cost: Callable[[Block], int],
    count: TokenCounter,
    requests: list[tuple[str | None, bool]],
    in_scope: list[Memory],
    *,
    candidates: int,
    now: dt.datetime,
    min_relevance: float,
) -> None:
    found_hits: dict[str, Candidate] = {}
    if not any(ch.isalnum() for ch in ctx.task):
        ctx.warnings.append("the task has no searchable words, so only system/ memory and preferences were included")
        _note_uncommitted(repo, ctx, index.uncommitted(repo), [])
    else:
        all_hits: list[Hit] = []
        changed: Uncommitted | None = None
        near = semantic.near(repo)
        for scope, inherit in requests:
            found = index.search(repo, ctx.task, scope=scope, version=ctx.version, limit=candidates,
                                 inherit=inherit, at=now, near=near)
            for note in found.notices:
                text = note.removeprefix("memfs: ")
                if "rebuilding" not in note and text not in ctx.warnings:
                    ctx.warnings.append(text)
            changed = found.uncommitted if changed is None else changed
            all_hits.extend(found.hits)
            committed = _committed_hits(repo, found, inherit)
            for hit in found.hits:
                if hit.memory.is_system:
                    continue
                memory = committed.get(hit.path, hit.memory)
                if isinstance(memory, str):
                    ctx.left_out.append(LeftOut(hit.path, memory))
                    continue
                seen = found_hits.get(hit.path)
                if seen is None or (seen.score or 0) < hit.score:
                    found_hits[hit.path] = Candidate(memory, hit.score, hit.relevance)
            if len(found.hits) >= candidates:
                ctx.warnings.append(f"only the best {candidates} matches were considered; more may exist")
        _note_uncommitted(repo, ctx, changed, all_hits)
    ranked = sorted(found_hits.values(), key=lambda c: -(c.score or 0.0))
    noise = _is_noise(ranked, min_relevance)
    kept = [c for c in ranked if not noise(c)]
    ctx.low_relevance = [c.memory.path for c in ranked if noise(c)]
    chosen = {c.memory.path for c in kept}
    kept.extend(Candidate(m, None, None) for m in in_scope if m.type == "preference" and m.path not in chosen)
    kept = dedupe.newer_side(ctx, dedupe.one_per_identity(ctx, kept, in_scope), in_scope)
    _note_versions(ctx, [c.memory for c in ranked] + in_scope)
    used = _used(ctx, count, cost)
    for candidate in kept:
        block = _block(candidate.memory, "recalled", candidate.score)
        need = cost(block)
        if used + need <= ctx.budget or _pinned(block):
            ctx.blocks.append(block)
            used += need
        else:
            ctx.left_out.append(LeftOut(block.path, "budget"))


def _pinned(block: Block) -> bool:
    """A recalled preference: placed even over the budget, for :func:`_finish` to weigh against
    ``system/`` (which is cut to nothing before a preference is dropped)."""
    return block.kind == "recalled" and block.type == "preference"


def _committed_in_scope(
    repo: Store, requests: list[tuple[str | None, bool]], version: str | None, now: dt.datetime
) -> list[Memory]:
    """Every committed memory eligible for one of the requested scopes (none when a request has no
    scope: an administrative context does not pull in every preference of every scope).

    Only files whose committed text contains one of the scope names are read (one ``git grep``
    over HEAD), so the cost follows the scope's memories, not the repository's; each is parsed
    and judged by :func:`recall.eligibility`."""
    rels = _scope_candidates(repo, requests)
    if rels is None:
        return []
    files = repo.files_at("HEAD", rels)
    return _in_scope(repo, requests, {rel: data for rel, data in files.items() if data is not None}, version, now)


def _scope_candidates(repo: Store, requests: list[tuple[str | None, bool]]) -> list[str] | None:
    """The files at HEAD (outside ``system/``) that name one of the requested scopes, by one ``git
    grep``: :func:`_committed_in_scope`'s candidates. ``None`` without HEAD or when a request has
    no scope."""
    if any(scope is None for scope, _ in requests) or repo.git.head() is None:
        return None
    names = {name for scope, inherit in requests for name in (recall.ScopeRule(scope, inherit).scopes or ())}
    return [rel for rel in repo.files_containing_at("HEAD", names) if not rel.startswith(SYSTEM_DIR + "/")]


def _in_scope(
    repo: Store, requests: list[tuple[str | None, bool]], files: dict[str, bytes], version: str | None,
    now: dt.datetime,
) -> list[Memory]:
    """The memories among ``files`` (path: bytes at HEAD) eligible for one of the requests."""
    rules = [recall.ScopeRule(scope, inherit) for scope, inherit in requests]
    out = []
    for memory in repo.parsed_at_head(files).values():
        if isinstance(memory, InvalidMemory):
            continue
        if any(recall.eligibility(memory, scope=rule, version=version, now=now) is None for rule in rules):
            out.append(memory)
    return sorted(out, key=lambda m: m.path)


def _note_versions(ctx: Context, memories: list[Memory]) -> None:
    if ctx.version is not None:
        return
    versions = sorted({m.version for m in memories if m.version})
    if versions:
        ctx.warnings.append(
            f"memories in scope carry versions ({', '.join(versions)}) and no version was asked for: "
            "each injected memory is labelled with its version; ask for one (--version) to get only it"
        )


def _note_uncommitted(repo: Store, ctx: Context, changed: Uncommitted | None, hits: list[Hit]) -> None:
    """Count the memory files with uncommitted edits; name the ``system/`` ones and the recalled ones."""
    if changed is None:
        ctx.warnings.append("git could not say which memory files are committed; recalled memories were read from HEAD")
        return
    every = changed.paths(repo.memory_paths)
    ctx.uncommitted_total = len(every)
    named = {rel for rel in every if rel.startswith(SYSTEM_DIR + "/")}
    named.update(hit.path for hit in hits if hit.uncommitted)
    ctx.uncommitted = sorted(named)


def _committed_hits(repo: Store, found: SearchResult, inherit: bool) -> dict[str, Memory | str]:
    """For each hit whose file differs from HEAD: its HEAD copy if that is still eligible for the
    request, else why it is left out (read in one ``git cat-file --batch``)."""
    changed = [hit for hit in found.hits if hit.uncommitted and not hit.memory.is_system]
    if not changed:
        return {}
    blobs = repo.files_at("HEAD", [hit.path for hit in changed]) if repo.git.head() else {}
    rule = recall.ScopeRule(found.scope, inherit)
    return {hit.path: _committed_copy(hit, blobs.get(hit.path), rule, found) for hit in changed}


def _committed_copy(hit: Hit, data: bytes | None, rule: recall.ScopeRule, found: SearchResult) -> Memory | str:
    if data is None:
        return "uncommitted: not in the last commit"
    try:
        memory = parse(hit.path, data)
    except InvalidMemory:
        return "uncommitted: the committed copy does not parse"
    why = recall.eligibility(memory, scope=rule, version=found.version, now=found.at)
    return memory if why is None else f"uncommitted: the committed copy is not eligible ({why})"


def _used(ctx: Context, count: TokenCounter, cost: Callable[[Block], int]) -> int:
    fixed = count(render_head(ctx, ctx.format)) + count(render_tail(ctx, ctx.format)) + 40
    return fixed + sum(cost(b) for b in ctx.blocks)


def _draw() -> str:
    return f"{secrets.randbelow(10**9):09d}"


def _new_fence(ctx: Context, count: TokenCounter) -> str:
    """A random fence no memory contains, costing what :data:`COST_FENCE` cost during assembly
    (so budget decisions, made with the placeholder, stay deterministic and still hold)."""
    target = count(COST_FENCE)
    fence = COST_FENCE
    for _ in range(200):
        fence = _draw()
        if count(fence) == target and not any(fence in b.text or fence in b.path for b in ctx.blocks):
            return fence
    while any(fence in b.text or fence in b.path for b in ctx.blocks):
        fence = _draw()
    return fence


def _finish(ctx: Context, count: TokenCounter, cost: Callable[[Block], int], system: _SystemFit) -> None:
    """Make the printed context, every byte of it, fit the budget by ``count``. Given up in this
    order: the left-out list (summarised as "and N more"; it gets what is left at the end),
    recalled matches (lowest ranked first), ``system/`` text (cut further, down to nothing, then
    the last files' labels too), the warnings (summarised), and last the pinned preferences (last
    first; ``system/`` and the warnings then get back what fits). If even that is over, the
    context says so (:attr:`Context.over_budget`)."""
    ctx.fence = _new_fence(ctx, count)
    ctx.tokens = ctx.label_tokens = ctx.budget
    ctx.left_out_shown = 0

    def fits() -> bool:
        return count(ctx.render()) <= ctx.budget

    kept = len(system.blocks)
    top = kept + system.share

    def set_system(level: int) -> bool:
        """``level`` ≥ the number of system files: all of them, cut to ``level - n`` tokens;
        below it, only the first ``level`` files, cut to nothing, and the others left out."""
        nonlocal kept
        n = len(system.blocks)
        ctx.blocks[:kept] = system.apply(ctx, max(0, level - n))[: min(level, n)]
        kept = min(level, n)
        dropped = {b.path for b in system.blocks[kept:]}
        ctx.left_out[:] = [i for i in ctx.left_out if not (i.path in system.paths and i.reason == "budget")]
        ctx.left_out[:0] = [LeftOut(path, "budget") for path in sorted(dropped)]
        return fits()

    def show_warnings(k: int) -> bool:
        ctx.warnings_shown = k
        return fits()

    def show_left_out(k: int) -> bool:
        ctx.left_out_shown = k
        return fits()

    _drop(ctx, fits, pinned=False)
    if not fits():
        set_system(_largest(set_system, 0, top))
    if not fits():
        show_warnings(_largest(show_warnings, 0, len(ctx.warnings)))
    if not fits():
        _drop(ctx, fits, pinned=True)
        ctx.warnings_shown = None
        set_system(_largest(set_system, 0, top))
        show_warnings(_largest(show_warnings, 0, len(ctx.warnings)))
    show_left_out(_largest(show_left_out, 0, len(ctx.left_out)))
    ctx.warnings_shown = None if ctx.warnings_shown == len(ctx.warnings) else ctx.warnings_shown
    ctx.left_out_shown = None if ctx.left_out_shown == len(ctx.left_out) else ctx.left_out_shown
    ctx.label_tokens = sum(cost(b) - count(b.text) for b in ctx.blocks) + count(render_head(ctx, ctx.format))
    _count(ctx, count)
    if ctx.tokens > ctx.budget:
        ctx.over_budget = True
        ctx.warnings_shown = None
        set_system(max(kept, len(system.blocks)))
        ctx.warnings.append(
            f"the context is about {ctx.tokens} tokens, over the budget of {ctx.budget}: "
            "even cut to nothing, the system/ labels and notices do not fit; raise the budget"
        )
        _count(ctx, count)


def _count(ctx: Context, count: TokenCounter) -> None:
    """Set :attr:`Context.tokens` to the count of the rendering that prints it (JSON does)."""
    for _ in range(5):
        tokens = count(ctx.render())
        if tokens == ctx.tokens:
            return
        ctx.tokens = tokens


def _largest(ok: Callable[[int], bool], lo: int, hi: int) -> int:
    """The largest ``k`` in ``[lo, hi]`` with ``ok(k)`` (``ok`` holds up to some point), else ``lo``."""
    if ok(hi):
        return hi
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if ok(mid):
            lo = mid
        else:
            hi = mid - 1
    return lo


def _drop(ctx: Context, fits: Callable[[], bool], *, pinned: bool) -> None:
    """Drop recalled blocks, pinned preferences or the others, from the last until the context fits."""
    while not fits():
        last = next((i for i in range(len(ctx.blocks) - 1, -1, -1)
                     if ctx.blocks[i].kind == "recalled" and _pinned(ctx.blocks[i]) == pinned), None)
        if last is None:
            return
        ctx.left_out.insert(0, LeftOut(ctx.blocks.pop(last).path, "budget"))
