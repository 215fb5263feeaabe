"""Per-term scores read from posting blocks (memfs.index.postings) against Whoosh's own scorer.

The index has several segments and deleted documents (memories edited and removed after the first
build, caught up incrementally), and words common enough that their postings span many blocks, so
every path of the block reader and the offset and deletion handling is exercised.
"""

from __future__ import annotations

import datetime as dt
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memfs import MemoryRepo, index
from memfs.index.documents import FIELD_BOOSTS
from memfs.index.postings import TermScores, read_postings
from memfs.index.reader import Handle, handle
from tests.helpers import commit_all, new_repo, put, segmented

WORDS = tuple(f"w{i:02d}" for i in range(40))
COUNT = 320
NOW = dt.datetime(2026, 12, 1, tzinfo=dt.UTC)


def _text(rng: random.Random, k: int) -> str:
    """``k`` words, the low-numbered ones far more often (so some are in most memories)."""
    return " ".join(WORDS[min(int(rng.expovariate(0.15)), len(WORDS) - 1)] for _ in range(k))


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> MemoryRepo:
    rng = random.Random(7)
    mem = new_repo(tmp_path_factory.mktemp("postings"))
    for i in range(COUNT):
        put(mem, f"notes/n{i:03d}-{WORDS[i % len(WORDS)]}.md", _text(rng, rng.randint(1, 60)) + "\n",
            description=_text(rng, 3), tags=[WORDS[rng.randrange(len(WORDS))]])
    commit_all(mem.root, "memories")
    index.rebuild(mem.store)
    for i in range(0, COUNT, 7):
        put(mem, f"notes/n{i:03d}-{WORDS[i % len(WORDS)]}.md", _text(rng, 5) + "\n", description=_text(rng, 2))
    for i in range(3, COUNT, 11):
        next((mem.root / "notes").glob(f"n{i:03d}-*.md")).unlink()
    commit_all(mem.root, "edits and deletions")
    index.sync(mem.store)
    return mem


@pytest.fixture
def opened(repo: MemoryRepo) -> Handle:
    return segmented(repo)


def _whoosh(opened: Handle, field: str, word: str) -> dict[int, float]:
    from whoosh.query import Term

    results = opened.searcher.search(Term(field, word, boost=FIELD_BOOSTS[field]), limit=None)
    return {hit.docnum: hit.score for hit in results}


def test_scores_are_whooshs_own_in_every_field(opened: Handle) -> None:
    compared = 0
    for field in FIELD_BOOSTS:
        for word in WORDS:
            if opened.stats.df(field, word):
                assert opened.terms.of(field, word).as_dict() == _whoosh(opened, field, word), (field, word)
                compared += 1
    assert compared > 2 * len(WORDS)


def test_long_posting_lists_are_read_a_block_at_a_time(opened: Handle) -> None:
    from whoosh.codec.whoosh3 import W3LeafMatcher
    from whoosh.matching.wrappers import FilterMatcher

    blocks = 0
    for leaf, _offset in opened.stats.reader.leaf_readers():
        for word in WORDS:
            btext = word.encode()
            if ("body", btext) not in leaf:
                continue
            matcher: Any = leaf.postings("body", btext)
            if isinstance(matcher, FilterMatcher):
                matcher = matcher.child
                matcher.reset()
            walked = ([], [])
            while matcher.is_active():
                walked[0].append(matcher.id())
                walked[1].append(matcher.weight())
                blocks += matcher.next() and isinstance(matcher, W3LeafMatcher)
            ids, weights = read_postings(leaf, "body", btext)
            assert (ids.tolist(), weights.tolist()) == walked
    assert blocks > 3


def test_segment_files_are_read_in_place_not_copied(opened: Handle) -> None:
    """whoosh3 copies every file of a segment into a ``BytesIO`` (the whole index per open
    reader); memfs reads the memory map in place (:mod:`memfs.index.mapped`), and the postings
    read through it are the ones above."""
    from memfs.index.mapped import MappedFile, Window

    for leaf, _offset in opened.stats.reader.leaf_readers():
        terms: Any = leaf._terms
        for found in (terms._dbfile, terms._postfile):
            assert isinstance(found, MappedFile) and isinstance(found.file, Window)
            assert found.get(0, 16) == bytes(found._buf[:16])


def _parts(opened: Handle, word: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    return tuple((field, (word,)) for field in FIELD_BOOSTS if opened.stats.df(field, word))


def test_a_term_sums_its_fields_and_a_small_budget_keeps_less(opened: Handle) -> None:
    from whoosh.query import Or, Term

    stats = opened.stats
    small = TermScores(stats.reader, stats.idf, stats.avgfl, FIELD_BOOSTS, budget=100)
    for word in WORDS * 2:
        parts = _parts(opened, word)
        whooshs = Or([Term(field, word, boost=FIELD_BOOSTS[field]) for field, _words in parts])
        expected = {hit.docnum: hit.score for hit in opened.searcher.search(whooshs, limit=None)}
        got = small.term(parts).as_dict()
        assert got.keys() == expected.keys()
        assert all(abs(got[doc] - expected[doc]) <= 1e-12 * expected[doc] for doc in got), word
        assert small.kept <= 100 or len(small._cache) == 1


def test_search_is_the_same_whatever_is_kept(repo: MemoryRepo, opened: Handle, monkeypatch: pytest.MonkeyPatch) -> None:
    queries = ["w00 w07", "w12", "w03 w30 w31", "w39 w01 w02 w05"]
    before = [[(h.path, h.score) for h in index.search(repo.store, q, catch_up=False, at=NOW).hits] for q in queries]
    stats = opened.stats
    monkeypatch.setattr(opened, "terms", TermScores(stats.reader, stats.idf, stats.avgfl, FIELD_BOOSTS, budget=0))
    after = [[(h.path, h.score) for h in index.search(repo.store, q, catch_up=False, at=NOW).hits] for q in queries]
    assert after == before and all(before)


def test_deleted_memories_score_nothing(repo: MemoryRepo, opened: Handle) -> None:
    deleted = {offset + doc for leaf, offset in opened.stats.reader.leaf_readers() if leaf.has_deletions()
               for doc in leaf.deleted_docs_set}
    assert deleted
    for word in WORDS:
        assert not deleted & set(opened.terms.of("body", word).as_dict())
        assert not deleted & set(opened.terms.term(_parts(opened, word)).as_dict())
    assert not list(Path(repo.root, "notes").glob("n003-*.md"))


@pytest.mark.parametrize("limit", [1, 2, 3, 10])
def test_memories_holding_only_a_common_word_come_after_and_are_found(tmp_path: Path, limit: int) -> None:
    mem = new_repo(tmp_path / "m")
    for i in range(6):
        put(mem, f"notes/c{i}.md", f"ubiquitous word {i}\n" + ("with the scarce one\n" if i < 2 else ""))
    put(mem, "notes/other.md", "nothing shared\n")
    commit_all(mem.root, "memories")
    hits = [h.path for h in index.search(mem.store, "ubiquitous scarce", limit=limit, at=NOW).hits]
    assert sorted(hits[:2]) == ["notes/c0.md", "notes/c1.md"][:limit]
    assert len(hits) == min(limit, 6) and set(hits) <= {f"notes/c{i}.md" for i in range(6)}


def test_a_lone_cjk_character_scores_its_best_bigram_per_field(tmp_path: Path) -> None:
    """Each field counts the best of the bigrams the memory holds. (Whoosh's DisjunctionMax, which
    memfs used before, scored a memory with the best score of whatever posting each bigram's
    matcher stood on, a bigram the memory does not hold included: its ``score`` does not check
    that both sides are on the current document.)"""
    from whoosh.query import Term

    mem = new_repo(tmp_path / "m")
    texts = ["发布说明用中文", "发布日期", "说明书发发布", "中文发布说明发布", "没有"]
    for i, text in enumerate(texts):
        put(mem, f"notes/z{i}.md", text + "\n", description=texts[(i + 1) % len(texts)], tags=["发票"])
    commit_all(mem.root, "memories")
    index.rebuild(mem.store)
    opened = handle(mem.store)
    reader = opened.stats.reader
    parts = tuple((f, words) for f in FIELD_BOOSTS
                  if (words := tuple(w.decode() for w in reader.expand_prefix(f, "发"))))
    assert any(len(words) > 1 for _f, words in parts)
    expected: dict[int, float] = {}
    for field, words in parts:
        best: dict[int, float] = {}
        for word in words:
            for hit in opened.searcher.search(Term(field, word, boost=FIELD_BOOSTS[field]), limit=None):
                best[hit.docnum] = max(best.get(hit.docnum, 0.0), hit.score)
        for doc, score in best.items():
            expected[doc] = expected.get(doc, 0.0) + score
    got = opened.terms.term(parts).as_dict()
    assert got.keys() == expected.keys()
    assert all(abs(got[doc] - expected[doc]) <= 1e-12 * expected[doc] for doc in got)
    assert got[0] < max(got.values())


@pytest.mark.parametrize("seed", range(20))
def test_a_pools_best_n_breaks_ties_by_document_so_a_longer_ask_extends_a_shorter_one(seed: int) -> None:
    import numpy as np

    from memfs.index.query import _Pool

    rng = random.Random(seed)
    size = rng.randint(1, 400)
    pool = object.__new__(_Pool)
    scores = np.array([float(rng.randint(0, 6)) for _ in range(size)])
    present = np.array([rng.random() < 0.8 for _ in range(size)])
    pool.ids, pool.scores = np.flatnonzero(present).astype(np.int32), scores[present]
    pool.keep, pool.rest, pool._candidates = None, False, None
    everything = sorted((-scores[d], d) for d in range(size) if present[d])
    for n in (1, 2, 16, 17, 64, size):
        assert pool.top(n) == [(-score, doc) for score, doc in everything[:n]], n


@pytest.mark.parametrize("seed", range(12))
def test_a_union_sums_each_documents_postings_in_order_sparse_or_dense(seed: int) -> None:
    """Few postings (sorted, no slot per document) and many (a slot per document): each document's
    score the same left-to-right sum over the parts, to the last bit, with ``add`` on each."""
    import numpy as np

    from memfs.index.postings import SPARSE_BELOW, Postings, union

    rng = random.Random(seed)
    crowd = rng.randint(5, 40)
    for size in (crowd * 3 * SPARSE_BELOW * 8, crowd + 1):
        parts = []
        for _ in range(rng.randint(3, 7)):
            ids = sorted(rng.sample(range(crowd), rng.randint(1, crowd)))
            parts.append(Postings(np.array(ids, np.int32), np.array([rng.random() * 10 for _ in ids])))
        add = rng.choice([0.0, 7.0])
        expected: dict[int, float] = {}
        for part in parts:
            for doc, score in zip(part.ids.tolist(), part.scores.tolist(), strict=True):
                expected[doc] = expected.get(doc, 0.0) + (score + add)
        got = union(parts, size, add=add)
        assert got.ids.tolist() == sorted(expected) and got.as_dict() == expected


class _DensePool:
    """The pool as it was before it held only the matching documents: a score and a flag per
    document of the index (the reference :class:`memfs.index.query._Pool` is compared with)."""

    def __init__(self, counted: list[Any], uncounted: list[Any], size: int, tier: float, keep: Any) -> None:
        import numpy as np

        def union_sum(parts: list[Any], add: float = 0.0) -> tuple[Any, Any]:
            present = np.zeros(size, np.bool_)
            if not parts:
                return np.zeros(size, np.float64), present
            ids = np.concatenate([p.ids for p in parts])
            weights = np.concatenate([p.scores for p in parts])
            if add:
                weights = weights + add
            present[ids] = True
            return np.bincount(ids, weights=weights, minlength=size).astype(np.float64), present

        self.union_sum, self.uncounted, self.keep = union_sum, uncounted, keep
        if counted:
            self.scores, self.present = union_sum(counted, add=tier)
            for total in uncounted:
                held = self.present[total.ids]
                self.scores[total.ids[held]] += total.scores[held]
        else:
            self.scores, self.present = union_sum(uncounted)
        self.rest = bool(counted) and bool(uncounted)

    def top(self, n: int) -> list[tuple[float, int]]:
        import numpy as np

        found = np.flatnonzero(self.present if self.keep is None else self.present & self.keep)
        if len(found) < n and self.rest:
            extra, held = self.union_sum(self.uncounted)
            new = held & ~self.present
            self.scores[new] = extra[new]
            self.present |= new
            self.rest = False
            found = np.flatnonzero(self.present if self.keep is None else self.present & self.keep)
        ranked = sorted((-self.scores[d], int(d)) for d in found)[:n]
        return [(-score, doc) for score, doc in ranked]


@settings(max_examples=200)
@given(data=st.data(), size=st.integers(1, 3000), terms=st.integers(1, 6), sparse=st.booleans())
def test_a_pool_ranks_as_a_slot_per_document_did(data: st.DataObject, size: int, terms: int, sparse: bool) -> None:
    """Random posting lists (few, so the postings are sorted, or many, so they are added up in an
    array), counted and uncounted terms, kept and left-out documents: the same best ``n`` with
    the same scores, to the last bit, as the dense pool, before and after it takes in the
    documents holding only uncounted terms."""
    import numpy as np

    from memfs.index.postings import Postings
    from memfs.index.query import TermPlan, TextQuery, _Pool

    rng = random.Random(data.draw(st.integers(0, 2**32)))
    cap = max(1, size // 200) if sparse else size
    crowd = range(min(size, 3 * cap))  # the documents most postings go to: many hold several terms
    ties = rng.random() < 0.5  # scores from a few values: ties at the n-th place

    def postings() -> Postings:
        pool = crowd if rng.random() < 0.8 else range(size)
        ids = sorted(rng.sample(pool, rng.randint(0, min(cap, len(pool)))))
        return Postings(np.array(ids, np.int32), np.array([rng.choice([0.5, 1.25, 2.0]) if ties else rng.random() * 9
                                                           for _ in ids], np.float64))

    lists = [postings() for _ in range(terms)]
    counted = [rng.random() < 0.6 for _ in lists]
    keep = None if rng.random() < 0.2 else np.array([rng.random() < 0.7 for _ in range(size)])
    tier = float(int(sum(float(p.scores.sum()) for p in lists)) + 1)
    plans = tuple(TermPlan(f"t{i}", ((f"t{i}", (f"t{i}",)),), c) for i, c in enumerate(counted))
    by_parts = {plan.parts: found for plan, found in zip(plans, lists, strict=True)}

    class Terms:
        def __init__(self) -> None:
            self.size = size

        def term(self, parts: Any) -> Postings:
            return by_parts[parts]

    class Opened:
        terms = Terms()

    pool = _Pool(Opened(), TextQuery(plans, tier), keep)  # type: ignore[arg-type]
    dense = _DensePool(sorted((p for p, c in zip(lists, counted, strict=True) if c), key=len, reverse=True),
                       [p for p, c in zip(lists, counted, strict=True) if not c], size, tier, keep)
    for n in sorted(data.draw(st.lists(st.integers(1, size + 5), min_size=1, max_size=4))):
        assert pool.top(n) == dense.top(n), n


def test_the_eligibility_flags_are_what_whooshs_query_matches(tmp_path: Path) -> None:
    """The restriction is read from the ID fields' posting lists; it must match exactly what the
    equivalent Whoosh query matches, deleted memories left out, across segments."""
    from whoosh.query import And, Or, Prefix, Term

    from memfs.index.documents import NONE
    from memfs.index.reader import Holds

    rng = random.Random(3)
    scopes = ["user:U1", "user:U1/project:P1", "user:U1/project:P1/x", "user:U2", "user:U10"]
    mem = new_repo(tmp_path / "m")

    def spread(i: int) -> None:
        fields: dict[str, Any] = {"scope": rng.choice(scopes), "status": rng.choice(["active", "active", "retracted"]),
                                  "type": rng.choice(["fact", "note"]), "version": rng.choice([None, "v1", "v2"])}
        if rng.random() < 0.2:
            fields["source"] = None
        put(mem, f"notes/r{i:03d}.md", f"text {i}\n", **fields)

    for i in range(150):
        spread(i)
    commit_all(mem.root, "memories")
    index.rebuild(mem.store)
    for i in range(0, 150, 4):
        spread(i)
    for i in range(1, 150, 9):
        (mem.root / f"notes/r{i:03d}.md").unlink()
    commit_all(mem.root, "edits and deletions")
    index.sync(mem.store)
    opened = handle(mem.store)
    assert len(opened.stats.reader.leaf_readers()) > 1 and opened.stats.deleted
    deleted = {offset + doc for leaf, offset in opened.stats.reader.leaf_readers() if leaf.has_deletions()
               for doc in leaf.deleted_docs_set}
    base = [Holds("status", ("active",)), Holds("sourced", ("yes",)), Holds("readable", ("yes",))]
    cases = [
        (base, []),
        ([*base, Holds("scope", ("user:U1",))], [Term("scope", "user:U1")]),
        ([*base, Holds("scope", ("user:U1", "user:U2"), "user:U1/")],
         [Or([Term("scope", "user:U1"), Term("scope", "user:U2"), Prefix("scope", "user:U1/")])]),
        ([*base, Holds("scope", ("user:U1/project:P1",)), Holds("version", ("v1", NONE))],
         [Term("scope", "user:U1/project:P1"), Or([Term("version", "v1"), Term("version", NONE)])]),
        ([*base, Holds("type", ("note",)), Holds("scope", (), "user:U1/")],
         [Term("type", "note"), Prefix("scope", "user:U1/")]),
    ]
    matched = set()
    for n, (clauses, more) in enumerate(cases):
        whoosh = And([Term("status", "active"), Term("sourced", "yes"), Term("readable", "yes"), *more])
        expected = set(opened.searcher.docs_for_query(whoosh)) - deleted
        got = set(opened.allowed(("case", n), tuple(clauses)).nonzero()[0].tolist())
        assert got == expected, clauses
        matched.add(len(got))
    assert len(matched) == len(cases) and 0 not in matched
