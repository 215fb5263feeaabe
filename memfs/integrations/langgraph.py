"""A LangGraph store (``langgraph.store.base.BaseStore``) whose items are memfs memories.

>>> from langgraph.store.base import BaseStore
>>> from memfs.integrations.langgraph import MemfsStore
>>> store = MemfsStore("path/to/memory", actor="agent:graph")                # doctest: +SKIP
>>> store.put(("memories", "u5"), "coffee", {"text": "U5 takes oat milk"})  # doctest: +SKIP
>>> store.search(("memories",), query="oat milk")                           # doctest: +SKIP

How LangGraph's model maps onto memfs:

* **An item is a memory**: namespace → ``scope``, key → ``key`` (memfs's "one active memory per
  (scope, key)"), the value → the body, as a fenced JSON block (``json.dumps``, so it reads back
  exactly), ``created``/``updated`` → ``created_at``/``updated_at``. It lives at
  ``langgraph/<namespace labels>/<key>.md``, each part percent-encoded where a file name could
  not hold it, so ``memfs show``, ``git log`` and ``memfs search`` see it like any memory.
* **Namespaces are scopes, reversibly.** Each label becomes one scope segment: letters, digits
  and ``_ : @ + -`` stay as they are, every other character is written as ``=XX`` per UTF-8 byte
  (``=`` too), so any label LangGraph allows round-trips and ``("memories", "user 5")`` is the
  scope ``memories/user=205``.
* **Namespace-prefix search reads the scopes below**, by whole labels, through the search index
  when there is a query (BM25F; ``SearchItem.score``), by listing the namespace's folder when
  there is none (newest first). ``filter`` takes LangGraph's operators (``$eq $ne $gt $gte $lt
  $lte``, nested objects, exact lists).
* **Semantic search with the caller's embedder.** ``index={"dims": …, "embed": …, "fields": […]}``
  is LangGraph's ``IndexConfig`` (:mod:`memfs.integrations.langgraph_semantic`); memfs ships no
  model. Vectors are derived data in ``.memfs/vectors/``, keyed by text and embedder. A query is
  then ranked by BM25 first, in BM25's order, and the items BM25 does not find follow by vector
  similarity (:mod:`memfs.policy.hybrid`: never below BM25's recall), after eligibility and
  ``filter`` chose the candidates; ``score`` is the item's best cosine similarity (``None`` without vectors:
  ``index=False``), and every candidate is returned, the unranked last, as LangGraph's stores do.
* **A batch is one commit.** ``batch``/``abatch`` answer every read from the state before the
  batch, then apply all its puts and deletes (the last put of a key wins) in one transaction,
  through the core guard, by the store's actor. Puts from concurrent callers (``aput`` in a
  graph, ``put`` from threads) are grouped into one commit (:mod:`memfs.integrations.langgraph_commits`).
* **TTL is ``expires``.** A put with ``ttl`` (minutes) writes ``expires = updated + ttl``, which
  every memfs door honours. Reads that refresh the TTL do not commit: the refreshed times are
  kept in ``.memfs/langgraph-ttl.json`` (never in git), and the item expires ``ttl`` after its
  latest write or refreshed read. Expired items stay readable until :meth:`MemfsStore.sweep_ttl`
  deletes them (one commit), unless ``ttl_config={"omit_expired": True}``, as LangGraph's
  ``TTLConfig`` says.

Memories that a person retracts or supersedes are not items any more (memfs never recalls them).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import hashlib
import json
import os
import re
import threading
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from memfs.integrations import require

require("langgraph", "langgraph")

from langgraph.store.base import (  # noqa: E402
    BaseStore,
    GetOp,
    IndexConfig,
    InvalidNamespaceError,
    Item,
    ListNamespacesOp,
    MatchCondition,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
    TTLConfig,
    validate_op_namespace,
)

from memfs.api import MemoryRepo  # noqa: E402
from memfs.errors import InvalidMemory, UsageError  # noqa: E402
from memfs.format import names  # noqa: E402
from memfs.format.model import Memory, Problem  # noqa: E402
from memfs.index.state import ensure_cache  # noqa: E402
from memfs.index.vectors import EmbeddingFailed  # noqa: E402
from memfs.integrations.langgraph_commits import AsyncGroups, GroupCommit  # noqa: E402
from memfs.integrations.langgraph_semantic import IndexSpec, Semantic, index_spec_of, info_of, spec_of_info  # noqa: E402
from memfs.policy.hybrid import guarded  # noqa: E402
from memfs.store import atomic  # noqa: E402

__all__ = ["EmbeddingFailed", "MemfsStore", "label_of", "namespace_of", "scope_of", "segment_of"]

#: Folder (under the memory root) that holds the store's items.
BASE = "langgraph"
#: Where refreshed read times are kept (in ``.memfs/``, so reads never commit).
TTL_FILE = "langgraph-ttl.json"
DEFAULT_ACTOR = "agent:langgraph"
#: Largest value the store keeps (the body must stay well under memfs's 1 MB read cap).
MAX_VALUE_BYTES = 500_000
_FENCE = "```json"
_SEGMENT_SAFE = re.compile(r"[A-Za-z0-9_:@+-]")
_PATH_UNSAFE = frozenset('/\\%:*?"<>|')
_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)


# --- names ----------------------------------------------------------------------------------
def segment_of(label: str) -> str:
    """The scope segment for a namespace label: safe characters as they are, others as ``=XX``."""
    return "".join(ch if _SEGMENT_SAFE.fullmatch(ch) else "".join(f"={b:02X}" for b in ch.encode()) for ch in label)


def label_of(segment: str) -> str:
    """The namespace label a scope segment encodes (:func:`segment_of` reversed)."""
    out = bytearray()
    i = 0
    while i < len(segment):
        if segment[i] == "=":
            out.append(int(segment[i + 1 : i + 3], 16))
            i += 3
        else:
            out.extend(segment[i].encode())
            i += 1
    return out.decode()


def scope_of(namespace: tuple[str, ...]) -> str:
    """The memfs scope of a LangGraph namespace."""
    return "/".join(segment_of(label) for label in namespace)


def namespace_of(scope: str) -> tuple[str, ...]:
    """The LangGraph namespace of a memfs scope (:func:`scope_of` reversed)."""
    return tuple(label_of(segment) for segment in scope.split("/"))


def _part(text: str, *, key: bool = False) -> str:
    """A file or folder name for a label or key: what no file system, git or memfs could hold
    (separators, ``% : * ? " < > |``, control and format characters, a leading or trailing dot
    or space) percent-encoded; a name too long, or one NFC would change, becomes a hash."""
    out = []
    for i, ch in enumerate(text):
        edge = i in (0, len(text) - 1) and (ch == "." or ch.isspace())
        odd = unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp")
        out.append("".join(f"%{b:02X}" for b in ch.encode("utf-8", "surrogatepass")) if (
            ch in _PATH_UNSAFE or edge or odd) else ch)
    part = "".join(out)
    if key and part.upper() == "README":
        part = "%52" + part[1:]
    if len(part.encode()) > 200 or not names.is_nfc(part) or names.char_problem(part):
        digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:24]
        part = "~" + digest
    return part


def _path(namespace: tuple[str, ...], key: str) -> str:
    return "/".join([BASE, *(_part(label) for label in namespace), _part(key, key=True) + ".md"])


def _folder(namespace: tuple[str, ...]) -> str:
    return "/".join([BASE, *(_part(label) for label in namespace)])


# --- values and filters -------------------------------------------------------------------------
def _body(value: Mapping[str, Any], spec: IndexSpec = None) -> str:
    try:
        text = json.dumps(dict(value), ensure_ascii=False, indent=2, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise UsageError(f"the value must be JSON (a mapping of JSON values): {exc}", param="value") from None
    if len(text.encode()) > MAX_VALUE_BYTES:
        raise UsageError(f"the value is over {MAX_VALUE_BYTES} bytes as JSON; store less in one item", param="value")
    return _FENCE + info_of(spec) + "\n" + text + "\n```\n"


def _value(memory: Memory) -> tuple[dict[str, Any], IndexSpec]:
    """The item's value, and the put's ``index`` recorded in the fence's info string."""
    first, newline, rest = memory.body.partition("\n")
    if not first.startswith(_FENCE) or not newline or not rest.rstrip().endswith("```"):
        raise InvalidMemory(f"{memory.path}: the body is not the item's JSON block (```json ... ```); fix it by hand")
    try:
        spec = spec_of_info(first[len(_FENCE):])
        value = json.loads(rest[: rest.rstrip().rfind("```")])
    except ValueError as exc:
        raise InvalidMemory(f"{memory.path}: the item's JSON does not parse ({exc}); fix it by hand") from None
    if not isinstance(value, dict):
        raise InvalidMemory(f"{memory.path}: the item's JSON is not an object; fix it by hand")
    return value, spec


def matches(value: Mapping[str, Any], conditions: Mapping[str, Any] | None) -> bool:
    """Whether an item's value passes a LangGraph ``filter``: every key's condition holds (an exact
    value, a nested object compared key by key, a list compared whole, or operators ``$eq``,
    ``$ne``, ``$gt``, ``$gte``, ``$lt``, ``$lte``). A key the value lacks that holds dots is read
    as a path into nested objects (``"user.level"``), as LangGraph's SQL stores read it."""
    return not conditions or all(_compare(_at(value, k), c) for k, c in conditions.items())


def _at(value: Mapping[str, Any], key: str) -> Any:
    if key in value or "." not in key:
        return value.get(key)
    found: Any = value
    for part in key.split("."):
        if not isinstance(found, Mapping) or part not in found:
            return None
        found = found[part]
    return found


def _compare(value: Any, condition: Any) -> bool:
    if isinstance(condition, Mapping):
        if any(str(k).startswith("$") for k in condition):
            return all(_operator(value, op, operand) for op, operand in condition.items())
        return isinstance(value, Mapping) and all(_compare(value.get(k), c) for k, c in condition.items())
    if isinstance(condition, list | tuple):
        return (isinstance(value, list | tuple) and len(value) == len(condition)
                and all(_compare(v, c) for v, c in zip(value, condition, strict=True)))
    return bool(value == condition)


def _operator(value: Any, op: str, operand: Any) -> bool:
    if op == "$eq":
        return bool(value == operand)
    if op == "$ne":
        return bool(value != operand)
    if op not in ("$gt", "$gte", "$lt", "$lte"):
        raise UsageError(f"{op!r}: unknown filter operator; use $eq, $ne, $gt, $gte, $lt or $lte", param="filter")
    try:
        left, right = float(value), float(operand)
    except (TypeError, ValueError):
        return False
    return {"$gt": left > right, "$gte": left >= right, "$lt": left < right, "$lte": left <= right}[op]


def _namespace_matches(condition: MatchCondition, namespace: tuple[str, ...]) -> bool:
    pattern = tuple(condition.path)
    if len(namespace) < len(pattern):
        return False
    part = namespace[: len(pattern)] if condition.match_type == "prefix" else namespace[len(namespace) - len(pattern):]
    return all(p == "*" or p == n for p, n in zip(pattern, part, strict=True))


# --- the store ------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Stored:
    """One item as its memory file says it."""

    path: str
    namespace: tuple[str, ...]
    key: str
    value: dict[str, Any]
    created: dt.datetime
    updated: dt.datetime
    expires: dt.datetime | None
    index: IndexSpec = None

    @property
    def ttl(self) -> dt.timedelta | None:
        return None if self.expires is None else self.expires - self.updated

    def item(self) -> Item:
        return Item(value=self.value, key=self.key, namespace=self.namespace, created_at=self.created,
                    updated_at=self.updated)

    def search_item(self, score: float | None) -> SearchItem:
        return SearchItem(self.namespace, self.key, self.value, self.created, self.updated, score)


class MemfsStore(BaseStore):
    """A LangGraph ``BaseStore`` over a memfs repository (a path or a :class:`memfs.MemoryRepo`;
    not a session: the namespaces are the scopes). Every batch that changes something is one
    commit by ``actor``; ``source`` is the ``source`` of new items (default ``langgraph``) and
    ``defaults`` further frontmatter for them (``type``, ``tags``...). ``ttl_config`` is
    LangGraph's ``TTLConfig`` (``default_ttl``, ``refresh_on_read``, ``omit_expired``).
    ``index`` is LangGraph's ``IndexConfig`` (semantic search with the caller's embedder).
    ``clock`` replaces the current time (tests, replays). Files that do not hold an item (their
    JSON was broken by hand), and items the embedder failed on while searching, are listed in
    :attr:`broken`; the first are left out of searches, the second rank by their words only."""

    supports_ttl = True

    def __init__(
        self,
        repo: MemoryRepo | str | os.PathLike[str],
        *,
        actor: str = DEFAULT_ACTOR,
        source: str = "langgraph",
        defaults: Mapping[str, Any] | None = None,
        ttl_config: TTLConfig | None = None,
        index: IndexConfig | None = None,
        clock: Callable[[], dt.datetime] | None = None,
    ) -> None:
        base = repo if isinstance(repo, MemoryRepo) else MemoryRepo.open(repo)
        if base.binding is not None:
            raise UsageError("MemfsStore maps namespaces to scopes itself: give it the repository, not a session")
        self.repo = base.session(None, actor=actor)
        self.source = source
        self.defaults = dict(defaults or {})
        self.ttl_config = ttl_config
        self.clock = clock
        self.broken: list[Problem] = []
        self._lock = threading.RLock()
        self._parsed: dict[str, tuple[tuple[int, ...], _Stored | None]] = {}
        self.index_config = index
        self.semantic = None if index is None else Semantic.configure(index, self.repo.store.cache_dir)
        self.embeddings = None if self.semantic is None else self.semantic.embeddings
        self.commits: GroupCommit[list[PutOp]] = GroupCommit(self._apply_group)
        self._async_commits = AsyncGroups(self.commits)

    # --- BaseStore ---------------------------------------------------------------------------
    def batch(self, ops: Iterable[Op]) -> list[Result]:
        ops = list(ops)
        for op in ops:
            validate_op_namespace(op)
        if ops and all(isinstance(op, PutOp) for op in ops):
            self.commits.submit(self._puts(ops))
            return [None] * len(ops)
        with self._lock:
            now = self._now()
            refreshed: dict[str, dt.datetime] = {}
            results: list[Result] = []
            puts: dict[tuple[tuple[str, ...], str], PutOp] = {}
            for op in ops:
                if isinstance(op, GetOp):
                    results.append(self._get(op, now, refreshed))
                elif isinstance(op, SearchOp):
                    results.append(self._search(op, now, refreshed))
                elif isinstance(op, ListNamespacesOp):
                    results.append(self._list_namespaces(op, now))
                elif isinstance(op, PutOp):
                    puts[(tuple(op.namespace), op.key)] = op
                    results.append(None)
                else:
                    raise TypeError(f"unknown operation {type(op).__name__}")
            if puts:
                self._apply(self._puts(list(puts.values())))
            if refreshed:
                self._save_refreshed(refreshed)
            return results

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        ops = list(ops)
        if ops and all(isinstance(op, PutOp) for op in ops):
            for op in ops:
                validate_op_namespace(op)
            await self._async_commits.submit(self._puts(ops))
            return [None] * len(ops)
        return await asyncio.to_thread(self.batch, ops)

    def _puts(self, ops: list[Op]) -> list[PutOp]:
        """One caller's puts checked before they queue (the last put of a key wins)."""
        puts: dict[tuple[tuple[str, ...], str], PutOp] = {}
        for op in ops:
            assert isinstance(op, PutOp)
            if op.value is not None and not op.namespace:
                raise InvalidNamespaceError("Namespace cannot be empty.")
            index_spec_of(op.index)
            puts[(tuple(op.namespace), op.key)] = op
        return list(puts.values())

    # --- TTL ---------------------------------------------------------------------------------
    def sweep_ttl(self) -> int:
        """Delete every item whose TTL has run out (one commit); how many were deleted."""
        with self._lock:
            now = self._now()
            refreshed = self._load_refreshed()
            expired = [s for s in self._items("") if self._expired(s, now, refreshed)]
            if expired:
                with self.repo.store.transaction("langgraph", reason=f"TTL sweep: {len(expired)} expired item(s)",
                                           when=self._when()) as tx:
                    for stored in expired:
                        tx.delete(stored.path)
            return len(expired)

    # --- reading -----------------------------------------------------------------------------
    def _get(self, op: GetOp, now: dt.datetime, refreshed: dict[str, dt.datetime]) -> Item | None:
        stored = self._read(_path(tuple(op.namespace), op.key), strict=True)
        if stored is None or stored.namespace != tuple(op.namespace) or stored.key != op.key:
            return None
        if self._omit_expired() and self._expired(stored, now, self._load_refreshed()):
            return None
        if op.refresh_ttl and stored.ttl is not None:
            refreshed[stored.path] = now
        return stored.item()

    def _search(self, op: SearchOp, now: dt.datetime, refreshed: dict[str, dt.datetime]) -> list[SearchItem]:
        prefix = tuple(op.namespace_prefix)
        known = self._load_refreshed()
        keep: Callable[[_Stored], bool] = lambda s: (  # noqa: E731
            s.namespace[: len(prefix)] == prefix and matches(s.value, op.filter)
            and not (self._omit_expired() and self._expired(s, now, known))
        )
        wanted = max(op.offset, 0) + max(op.limit, 0)
        found: list[tuple[_Stored, float | None]]
        if op.query and op.query.strip() and self.semantic is None:
            found = self._ranked(op.query, prefix, keep, wanted)
        else:
            listed = [s for s in self._items(_folder(prefix) if prefix else BASE) if keep(s)]
            listed.sort(key=lambda s: (-s.updated.timestamp(), s.namespace, s.key))
            query = op.query.strip() if op.query else ""
            found = self._hybrid(op.query or "", prefix, keep, listed, max(wanted, 10)) if query else [
                (s, None) for s in listed]
        page = found[max(op.offset, 0) : wanted]
        if op.refresh_ttl:
            refreshed.update((s.path, now) for s, _ in page if s.ttl is not None)
        return [s.search_item(score) for s, score in page]

    def _ranked(self, query: str, prefix: tuple[str, ...], keep: Callable[[_Stored], bool],
                wanted: int, *, words_only: bool = False) -> list[tuple[_Stored, float | None]]:
        """Hits of the search index in the namespace and below, best first, as many as asked
        (``words_only``: without those the repository's ``[semantic]`` vectors added)."""
        scope = scope_of(prefix) if prefix else None
        fetch = max(wanted * 2, 20)
        while True:
            result = self.repo.search(query, scope=scope, descendants=True, at=_EPOCH, limit=fetch)
            hits = [h for h in result.hits if h.similarity is None] if words_only else result.hits
            found: list[tuple[_Stored, float | None]] = []
            for hit in hits:
                if not hit.path.startswith(BASE + "/"):
                    continue
                stored = self._item_of(hit.memory)
                if stored is not None and keep(stored):
                    found.append((stored, hit.score))
            if len(found) >= wanted or len(hits) < fetch:
                return found
            fetch *= 4

    def _hybrid(self, query: str, prefix: tuple[str, ...], keep: Callable[[_Stored], bool],
                listed: list[_Stored], depth: int) -> list[tuple[_Stored, float | None]]:
        """Every candidate (``listed``: eligible and through the filter, newest first): BM25's
        first ``depth`` hits in BM25's order (equal scores by similarity), then the others by
        vector similarity (:func:`memfs.policy.hybrid.guarded`: never below BM25's recall), then
        those without vectors. An item put with ``index=False`` is ranked by neither, as LangGraph
        documents (it is returned among the unranked)."""
        assert self.semantic is not None
        hits = [(s.path, score or 0.0) for s, score in self._ranked(query, prefix, keep, depth, words_only=True)
                if s.index is not False]
        scores, problems = self.semantic.scores(query, [(s.path, s.value, s.index) for s in listed])
        self.broken.extend(problems)
        near = sorted(scores, key=lambda path: -scores[path])
        by_path = {s.path: s for s in listed}
        ranked = [path for path in guarded([p for p, _ in hits], near, scores=[s for _, s in hits]) if path in by_path]
        seen = set(ranked)
        return [(by_path[p], scores.get(p)) for p in ranked] + [(s, None) for s in listed if s.path not in seen]

    def _list_namespaces(self, op: ListNamespacesOp, now: dt.datetime) -> list[tuple[str, ...]]:
        known = self._load_refreshed()
        spaces = {s.namespace for s in self._items(BASE)
                  if not (self._omit_expired() and self._expired(s, now, known))}
        chosen = [ns for ns in spaces if all(_namespace_matches(c, ns) for c in op.match_conditions or ())]
        if op.max_depth is not None:
            chosen = list({ns[: op.max_depth] for ns in chosen})
        chosen.sort()
        return chosen[op.offset : op.offset + op.limit]

    def _items(self, folder: str) -> list[_Stored]:
        prefix = folder.rstrip("/") + "/" if folder else ""
        self.broken = [p for p in self.broken if not p.path.startswith(prefix)]
        found = []
        for rel in self.repo.store.memory_paths():
            if rel.startswith(prefix) and rel.startswith(BASE + "/"):
                stored = self._read(rel)
                if stored is not None:
                    found.append(stored)
        return found

    def _read(self, rel: str, *, strict: bool = False) -> _Stored | None:
        """The item in a file, parsed again only when the file changed (its ``lstat``: every
        memfs write replaces the file, a new inode)."""
        try:
            st = os.lstat(os.path.join(self.repo.store.root, rel))
            signature: tuple[int, ...] | None = (st.st_ino, st.st_mtime_ns, st.st_ctime_ns, st.st_size)
        except OSError:
            signature = None
        kept = self._parsed.get(rel)
        if kept is not None and signature is not None and kept[0] == signature:
            return kept[1]
        stored = self._load(rel, strict=strict)
        if signature is not None and (stored is not None or rel not in {p.path for p in self.broken}):
            self._parsed[rel] = (signature, stored)
        return stored

    def _load(self, rel: str, *, strict: bool) -> _Stored | None:
        _, memory, why = self.repo.store.load(rel)
        if memory is None:
            if why is not None:
                if strict:
                    raise InvalidMemory(f"{rel}: {why}")
                self.broken.append(Problem(rel, None, why, "fix the file by hand"))
            return None
        try:
            return self._item_of(memory)
        except InvalidMemory as exc:
            if strict:
                raise
            self.broken.append(Problem(rel, None, exc.message, "fix the file by hand"))
            return None

    def _item_of(self, memory: Memory) -> _Stored | None:
        """The item a memory file holds, if it is one: under the store's folder, with a scope and
        a key, at the path they give, and active (a retracted item is no item)."""
        if memory.scope is None or memory.key is None or memory.status != "active" or memory.unreadable:
            return None
        namespace = namespace_of(memory.scope)
        if memory.path != _path(namespace, memory.key):
            return None
        created = memory.created or memory.updated or _EPOCH
        value, spec = _value(memory)
        return _Stored(memory.path, namespace, memory.key, value, created, memory.updated or created,
                       memory.expires, spec)

    # --- writing -----------------------------------------------------------------------------
    def _apply_group(self, works: list[list[PutOp]]) -> None:
        """Several callers' puts as one transaction (a later put of a key wins)."""
        merged: dict[tuple[tuple[str, ...], str], PutOp] = {}
        for work in works:
            merged.update(((tuple(op.namespace), op.key), op) for op in work)
        with self._lock:
            self._apply(list(merged.values()))

    def _apply(self, puts: list[PutOp]) -> None:
        """The puts and deletes as one transaction; their vectors (when the store has an index)
        are embedded first, so an embedder failure writes nothing."""
        semantic = self.semantic
        if semantic is not None:
            semantic.prepare([(_path(tuple(op.namespace), op.key), op.value, op.index)
                              for op in puts if op.value is not None])
        changes = sum(op.value is not None for op in puts)
        reason = f"LangGraph store: {changes} put(s), {len(puts) - changes} delete(s)"
        with self.repo.store.transaction("langgraph", reason=reason, when=self._when()) as tx:
            for op in puts:
                namespace = tuple(op.namespace)
                rel = _path(namespace, op.key)
                current = tx.current_bytes(rel)
                if op.value is None:
                    if current is not None:
                        tx.delete(rel)
                    continue
                expires = None if op.ttl is None else tx.now + dt.timedelta(minutes=op.ttl)
                fields: dict[str, Any] = {"expires": expires}
                if current is None:
                    fields = {"type": "note", "source_kind": "agent", **self.defaults, **fields,
                              "scope": scope_of(namespace), "key": op.key, "source": self.source}
                    if expires is None:
                        del fields["expires"]
                tx.write(rel, fields=fields, body=_body(op.value, op.index if semantic is not None else None))
        if tx.result.commit:
            self._forget_refreshed({c.path for c in tx.result.changes})
        if semantic is not None:
            semantic.cache.save()

    # --- time and refreshed reads ------------------------------------------------------------
    def _now(self) -> dt.datetime:
        return (self.clock() if self.clock is not None else dt.datetime.now(dt.UTC)).replace(microsecond=0)

    def _when(self) -> dt.datetime | None:
        return self._now() if self.clock is not None else None

    def _omit_expired(self) -> bool:
        return bool((self.ttl_config or {}).get("omit_expired", False))

    def _expired(self, stored: _Stored, now: dt.datetime, refreshed: Mapping[str, dt.datetime]) -> bool:
        ttl = stored.ttl
        if ttl is None or stored.expires is None:
            return False
        last = refreshed.get(stored.path)
        ends = max(stored.expires, last + ttl) if last is not None else stored.expires
        return now >= ends

    @property
    def _ttl_path(self) -> str:
        return os.path.join(self.repo.store.cache_dir, TTL_FILE)

    def _load_refreshed(self) -> dict[str, dt.datetime]:
        try:
            with open(self._ttl_path, encoding="utf-8") as handle:
                raw = json.load(handle)
        except (FileNotFoundError, json.JSONDecodeError, UnicodeDecodeError):
            return {}
        out = {}
        for path, text in raw.items() if isinstance(raw, dict) else ():
            try:
                out[str(path)] = dt.datetime.fromisoformat(str(text))
            except ValueError:
                continue
        return out

    def _save_refreshed(self, changes: Mapping[str, dt.datetime | None]) -> None:
        known = self._load_refreshed()
        for path, when in changes.items():
            if when is None:
                known.pop(path, None)
            else:
                known[path] = when
        data = json.dumps({p: t.isoformat() for p, t in sorted(known.items())}, indent=0).encode()
        ensure_cache(self.repo.store.cache_dir)
        atomic.write_bytes(self.repo.store.cache_dir / TTL_FILE, data)

    def _forget_refreshed(self, paths: set[str]) -> None:
        known = self._load_refreshed()
        if known.keys() & paths:
            self._save_refreshed(dict.fromkeys(known.keys() & paths))
