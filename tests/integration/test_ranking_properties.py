"""The ranking rules (memfs.policy.recall) on generated corpora, checked against counts made here
from the generated texts, not against the index.

Each example is a small repository of memories that hold random subsets of the query's words,
repeated, in the body or in the path, title (description) or tags, with random ages, types,
confidences, statuses and scopes, plus filler memories. For every query:

* coverage never goes up down the list: a memory holding more of the query's counted terms (those
  found in at most half of the memories) ranks above one holding fewer, whatever its boosts, age
  or confidence; so a memory with all the terms in its body is never below one with a single term
  in its path and title;
* within the same coverage, freshness and confidence reorder only relevances within a factor of 2;
* eligibility is unchanged: every hit is eligible, and every eligible memory holding a query word
  is found;
* the top N is the first N of the whole list.

Hypothesis is derandomized with a modest number of examples, so the run is reproducible and short.
"""

from __future__ import annotations

import datetime as dt
import itertools
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memfs import MemoryRepo, index
from memfs.index.analysis import tokens
from memfs.policy import recall
from memfs.store.gitcli import watch
from memfs.store.paths import stat_memory_files
from tests.helpers import ACTOR, copy_repo, hit_paths, put

NOW = dt.datetime(2026, 12, 1, tzinfo=dt.UTC)
WORDS = ("tabbouleh", "tallinn", "kayak", "quorum", "saffron")
FILLER = ("garden", "ledger", "violin", "harbor", "meadow", "lantern", "pepper", "canyon", "orchid", "copper")
TYPES = ("note", "fact", "episode", "procedure")
_counter = itertools.count()


@dataclass(frozen=True)
class Spec:
    """One generated memory: which query words go where, and its rank/eligibility fields."""

    body: tuple[str, ...]
    title: tuple[str, ...]
    path: tuple[str, ...]
    tags: tuple[str, ...]
    repeat: int
    filler: int
    days_old: int
    type: str
    confidence: float
    status: str
    scope: str

    def text(self) -> str:
        """Every indexed text of this memory, for counting here which words it holds."""
        return " ".join((*self.body, *self.title, *self.path, *self.tags))


def _spec(words: tuple[str, ...]) -> st.SearchStrategy[Spec]:
    subset = st.lists(st.sampled_from(words), unique=True, max_size=len(words)).map(tuple)
    return st.builds(
        Spec,
        body=subset,
        title=subset,
        path=st.lists(st.sampled_from(words), unique=True, max_size=1).map(tuple),
        tags=st.lists(st.sampled_from(words), unique=True, max_size=2).map(tuple),
        repeat=st.integers(1, 4),
        filler=st.integers(0, 40),
        days_old=st.integers(0, 1500),
        type=st.sampled_from(TYPES),
        confidence=st.sampled_from((0.05, 0.3, 0.6, 1.0)),
        status=st.sampled_from(("active", "active", "active", "retracted")),
        scope=st.sampled_from(("user:U5", "user:U5", "user:U6")),
    )


@st.composite
def corpora(draw: st.DrawFn) -> tuple[list[Spec], tuple[str, ...], int]:
    words = tuple(draw(st.lists(st.sampled_from(WORDS), min_size=2, max_size=4, unique=True)))
    specs = draw(st.lists(_spec(words), min_size=3, max_size=9))
    padding = draw(st.integers(0, 8))
    return specs, words, padding


def _build(template: Path, specs: list[Spec], padding: int) -> tuple[MemoryRepo, dict[str, Spec]]:
    root = copy_repo(template, Path(tempfile.mkdtemp(prefix="rank-")) / f"mem{next(_counter)}")
    repo = MemoryRepo.open(root, ACTOR)
    made: dict[str, Spec] = {}
    for i, spec in enumerate(specs):
        rel = f"facts/{'-'.join((*spec.path, f'm{i}'))}.md"
        fill = " ".join(FILLER[(i + j) % len(FILLER)] for j in range(spec.filler))
        when = (NOW - dt.timedelta(days=spec.days_old)).isoformat()
        put(repo, rel, f"{' '.join(spec.body * spec.repeat)} {fill}".strip() or "nothing",
            description=" ".join(spec.title) or None, tags=list(spec.tags), type=spec.type,
            confidence=spec.confidence, status=spec.status, scope=spec.scope, created=when, updated=when)
        made[rel] = spec
    for i in range(padding):
        put(repo, f"notes/pad{i}.md", f"{FILLER[i % len(FILLER)]} {FILLER[(i + 3) % len(FILLER)]}")
    return repo, made


def _counted(specs: dict[str, Spec], words: tuple[str, ...], total: int) -> set[str]:
    """The query terms in at most half of the memories (rule 1), counted from the texts."""
    terms = [t for w in words for t in tokens(w)]
    return {t for t in terms if 2 * sum(t in tokens(s.text()) for s in specs.values()) <= total}


def _coverage(spec: Spec | None, counted: set[str]) -> int:
    return 0 if spec is None else len(counted & set(tokens(spec.text())))


SETTINGS = settings(max_examples=30, derandomize=True,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


@SETTINGS
@given(corpus=corpora(), scoped=st.booleans())
def test_ranking_rules_hold_on_generated_corpora(template_repo: Path, corpus: tuple[list[Spec], tuple[str, ...], int],
                                                 scoped: bool) -> None:
    specs, words, padding = corpus
    repo, made = _build(template_repo, specs, padding)
    try:
        _check_ranking(repo, made, words, padding, scoped)
    finally:  # each example's repository, in the system's temporary folder, goes with it
        index.close_all()
        watch.close_all()
        shutil.rmtree(repo.root.parent)


def _check_ranking(repo: MemoryRepo, made: dict[str, Spec], words: tuple[str, ...], padding: int,
                   scoped: bool) -> None:
    query = " ".join(words)
    scope = "user:U5" if scoped else None
    result = index.search(repo.store, query, scope=scope, at=NOW, limit=50)
    paths = hit_paths(result)
    counted = _counted(made, words, len(stat_memory_files(repo.root)))  # the template's system/ file too
    terms = {t for w in words for t in tokens(w)}

    eligible = {rel for rel, s in made.items() if s.status == "active" and (scope is None or s.scope == scope)}
    assert set(paths) <= eligible | {f"notes/pad{i}.md" for i in range(padding)}
    assert {rel for rel in eligible if terms & set(tokens(made[rel].text()))} <= set(paths)

    coverages = [_coverage(made.get(p), counted) for p in paths]
    assert coverages == sorted(coverages, reverse=True), list(zip(paths, coverages, strict=True))

    hits = result.hits
    for a, b in itertools.combinations(range(len(hits)), 2):
        if coverages[a] == coverages[b]:
            assert hits[b].relevance <= 2 * hits[a].relevance + 1e-9, (
                "freshness/confidence reordered relevances more than a factor of 2 apart")

    for n in (1, 3):
        assert hit_paths(index.search(repo.store, query, scope=scope, at=NOW, limit=n)) == paths[:n]


def test_all_words_in_an_old_body_beat_one_word_in_fresh_paths_titles_and_tags(repo: MemoryRepo) -> None:
    """The issue's example: the only memory with both words ranked 13th under memories holding
    one of them in their path, title and tags."""
    old = (NOW - dt.timedelta(days=1000)).isoformat()
    put(repo, "facts/trip.md", "we ate tabbouleh in tallinn " + "and walked a lot " * 20, created=old, updated=old,
        confidence=0.5)
    for i in range(12):
        word = ("tabbouleh", "tallinn")[i % 2]
        put(repo, f"facts/{word}-{i}.md", f"{word} {word}", description=f"{word} {word}", tags=[word],
            created=NOW.isoformat(), type="preference")
    for i in range(30):
        put(repo, f"notes/other{i}.md", "the garden needs water")
    assert hit_paths(index.search(repo.store, "tabbouleh tallinn", scope="user:U5", at=NOW))[0] == "facts/trip.md"


def test_a_term_in_most_memories_neither_rewards_nor_punishes(repo: MemoryRepo) -> None:
    """A word found in more than half of the memories (a speaker's name in a conversation) does
    not count toward coverage: the memory with the rare word wins over one with the common word,
    however often it repeats it."""
    for i in range(6):
        put(repo, f"facts/c{i}.md", "caroline talked about the weather")
    put(repo, "facts/race.md", "the charity race was on sunday")
    put(repo, "facts/lots.md", "caroline caroline caroline caroline said caroline")
    ranked = hit_paths(index.search(repo.store, "what did caroline do after the race?", scope="user:U5", at=NOW))
    assert ranked[0] == "facts/race.md"


def test_rank_key_damps_freshness_and_confidence_to_at_most_half() -> None:
    assert recall.rank_key(2, 10.0, 0.0, 0.0) == (2, 5.0)
    assert recall.rank_key(2, 10.0, 1.0, 1.0) == (2, 10.0)
    assert recall.rank_key(1, 100.0, 1.0, 1.0) < recall.rank_key(2, 0.1, 0.0, 0.0)
    partial, full = recall.rank_key(1, 100.0, 1.0, 1.0), recall.rank_key(2, 0.1, 0.0, 0.0)
    assert recall.final_score(*partial) < recall.final_score(*full)


def test_the_top_n_is_the_first_n_of_the_whole_ranking(repo: MemoryRepo) -> None:
    """On a corpus big enough for Whoosh's collector to prune sub-queries mid-search (it dropped
    documents of boosted fields that belonged in the top N), a short list is the head of a long one."""
    import random

    rng = random.Random(7)
    for i in range(120):
        words = rng.sample(FILLER, rng.randint(0, 3))
        body = " ".join(words * rng.randint(1, 3) + rng.choices(TYPES, k=rng.randint(0, 30)))
        title = " ".join(rng.sample(FILLER, rng.randint(0, 2))) or None
        put(repo, f"facts/{'-'.join(rng.sample(FILLER, rng.randint(0, 1)))}m{i}.md", body or "x",
            description=title, tags=rng.sample(FILLER, rng.randint(0, 1)))
    index.search(repo.store, "garden", scope="user:U5", at=NOW)
    for _ in range(10):
        query = " ".join(rng.sample(FILLER, rng.randint(2, 5)))
        whole = hit_paths(index.search(repo.store, query, scope="user:U5", at=NOW, limit=120, catch_up=False))
        for n in (1, 3, 10):
            found = index.search(repo.store, query, scope="user:U5", at=NOW, limit=n, catch_up=False)
            assert hit_paths(found) == whole[:n]


def test_hits_come_in_rank_order_when_age_and_confidence_reorder(repo: MemoryRepo) -> None:
    """A candidate is final as soon as its key beats the raw score of the best one not yet read.
    With ages and confidences spread wide (keys shrunk by up to half), every list must be in
    :func:`recall.rank_key` order (ties by path), whole, and a short one its head, whether the
    index's kept records are warm or not."""
    import random

    from memfs.index.reader import handle

    rng = random.Random(11)
    for i in range(150):
        words = rng.choices(FILLER[:4], k=rng.randint(1, 6))
        updated = NOW - dt.timedelta(days=rng.choice([0, 3, 40, 400, 3000]))
        put(repo, f"episodes/e{i:03d}.md", " ".join(words), type=rng.choice(TYPES),
            updated=updated.isoformat().replace("+00:00", "Z"), confidence=rng.choice([1.0, 0.9, 0.5, 0.1]))
    index.search(repo.store, "garden", scope="user:U5", at=NOW)
    for query in ("garden ledger", "violin harbor garden", "ledger", "harbor violin"):
        hits = index.search(repo.store, query, scope="user:U5", at=NOW, limit=200, catch_up=False).hits
        keys = [(recall.rank_key(int(h.score), h.relevance, h.freshness, h.confidence), h.path) for h in hits]
        assert len(hits) > 40 and len({h.freshness * h.confidence for h in hits}) > 5
        assert keys == sorted(keys, key=lambda k: (-k[0][0], -k[0][1], k[1])), query
        for n in (1, 2, 5, 17, 40):
            handle(repo.store)._records.clear()
            short = index.search(repo.store, query, scope="user:U5", at=NOW, limit=n, catch_up=False)
            assert hit_paths(short) == [h.path for h in hits[:n]]


def test_tied_memories_come_once_each_in_path_order_however_deep_the_list(repo: MemoryRepo) -> None:
    """Memories with equal scores tie on every key but the path; a list long enough to be fetched
    in several rounds must still hold each once, in path order."""
    for i in range(90):
        put(repo, f"facts/t{(i * 37) % 90:03d}.md", "quince marmalade")
    index.search(repo.store, "quince", scope="user:U5", at=NOW)
    for limit in (1, 15, 16, 17, 40, 64, 65, 90):
        paths = hit_paths(index.search(repo.store, "quince", scope="user:U5", at=NOW, limit=limit, catch_up=False))
        assert paths == [f"facts/t{i:03d}.md" for i in range(limit)], limit
