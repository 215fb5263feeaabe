"""Search and recall: eligibility before relevance, the index following git, CJK, bad input."""

from __future__ import annotations

import datetime as dt
import json
import os
import random
import threading

import pytest

from memfs import MemoryRepo, index
from memfs.errors import MemfsError
from memfs.index.analysis import tokens
from memfs.policy import recall
from memfs.store import locking
from tests.helpers import VALID, commit_all, git, hit_paths, put, raw_memory, write_file


# --- eligibility ------------------------------------------------------------------------------
def test_version_trap_returns_v2_never_the_more_similar_v1(repo: MemoryRepo) -> None:
    text = "deploy command for the release pipeline deploy release pipeline deploy"
    put(repo, "facts/a.md", text, scope="project:x", version="v1")
    put(repo, "facts/b.md", "the release uses make ship", scope="project:x", version="v2")
    result = index.search(repo.store, "deploy release pipeline", scope="project:x", version="v2", explain=True)
    assert hit_paths(result) == ["facts/b.md"]
    assert [(f.path, f.reason) for f in result.filtered] == [("facts/a.md", "wrong version (v1)")]
    assert set(hit_paths(index.search(repo.store, "deploy release", scope="project:x"))) == {"facts/a.md", "facts/b.md"}


def test_expiry_boundary(repo: MemoryRepo) -> None:
    put(repo, "facts/promo.md", "the promo code is SPRING", expires="2026-06-01T00:00:00Z")
    at = dt.datetime(2026, 6, 1, tzinfo=dt.UTC)
    assert hit_paths(index.search(repo.store, "promo", scope="user:U5", at=at)) == []
    just_before = at - dt.timedelta(seconds=1)
    assert hit_paths(index.search(repo.store, "promo", scope="user:U5", at=just_before)) == ["facts/promo.md"]
    explained = index.search(repo.store, "promo", scope="user:U5", at=at, explain=True)
    assert explained.filtered[0].reason.startswith("expired at 2026-06-01")


#: A broken value for each eligibility field, as people write them by hand.
BROKEN = {
    "scope": "scope: user U5",
    "version": "version: 1.10",
    "status": "status: activ",
    "source": "source: {kind: user}",
    "expires": "expires: next week",
}


def _broken(repo: MemoryRepo, rel: str, field: str, body: str) -> None:
    """A memory of user U5 whose ``field`` cannot be read, as a person might save it."""
    lines = {"id": "broken", "type": "fact", "scope": "user:U5", "source": "tool:ci", "status": "active"}
    text = "".join(f"{k}: {v}\n" for k, v in lines.items() if k != field) + BROKEN[field] + "\n"
    write_file(repo.root / rel, raw_memory(text, body))


@pytest.mark.parametrize("field", list(BROKEN))
def test_a_memory_with_an_unreadable_eligibility_field_is_never_recalled(repo: MemoryRepo, field: str) -> None:
    _broken(repo, "facts/broken.md", field, "the deploy freeze starts on Friday deploy freeze deploy freeze\n")
    put(repo, "facts/good.md", "a deploy freeze is announced in the channel")
    at = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    for scope in (None, "user:U5"):
        for version in (None, "1.10", "1.1"):
            result = index.search(repo.store, "deploy freeze", scope=scope, version=version, at=at, explain=True,
                                  limit=1)
            assert hit_paths(result) == ["facts/good.md"], (scope, version)
        reasons = {f.path: f.reason for f in result.filtered}
        assert reasons["facts/broken.md"] == f"unreadable {field} (memfs validate says why)"
    assert hit_paths(repo.search("deploy freeze", scope=None, at=at)) == ["facts/good.md"]
    commit_all(repo.root, "memories")
    ctx = repo.context("deploy freeze", scope="user:U5", at=at)
    assert [b.path for b in ctx.blocks if b.kind == "recalled"] == ["facts/good.md"]
    problems = [p for p in repo.validate() if p.path == "facts/broken.md" and p.field == field]
    assert any("never recalled" in p.message for p in problems)


@pytest.mark.parametrize("field", list(BROKEN))
def test_fixing_the_field_makes_the_memory_recallable_again(repo: MemoryRepo, field: str) -> None:
    _broken(repo, "facts/broken.md", field, "the deploy freeze starts on Friday\n")
    assert hit_paths(index.search(repo.store, "deploy freeze", scope="user:U5")) == []
    put(repo, "facts/broken.md", "the deploy freeze starts on Friday")
    assert hit_paths(index.search(repo.store, "deploy freeze", scope="user:U5")) == ["facts/broken.md"]


@pytest.mark.parametrize(
    ("line", "boundary"),
    [
        ("expires: 2025-10-17", dt.datetime(2025, 10, 17, tzinfo=dt.UTC)),
        ("expires: 2025-10-17T10:30:00", dt.datetime(2025, 10, 17, 10, 30, tzinfo=dt.UTC)),
    ],
)
def test_natural_expiry_forms_at_the_exact_boundary(repo: MemoryRepo, line: str, boundary: dt.datetime) -> None:
    write_file(repo.root / "facts/promo.md", raw_memory(VALID.format(id="promo") + line + "\n", "the promo code\n"))
    commit_all(repo.root, "promo")
    assert hit_paths(index.search(repo.store, "promo", scope="user:U5", at=boundary)) == []
    before = boundary - dt.timedelta(seconds=1)
    [hit] = index.search(repo.store, "promo", scope="user:U5", at=before).hits
    assert hit.to_json()["expires"] == boundary.isoformat().replace("+00:00", "Z")
    assert [b.path for b in repo.context("promo", scope="user:U5", at=boundary).blocks if b.kind == "recalled"] == []
    assert [b.path for b in repo.context("promo", scope="user:U5", at=before).blocks if b.kind == "recalled"] == [
        "facts/promo.md"
    ]


def test_an_integer_version_is_recalled_for_that_version_only(repo: MemoryRepo) -> None:
    write_file(repo.root / "facts/v1.md", raw_memory(VALID.format(id="v1") + "version: 1\n", "the api token header\n"))
    assert hit_paths(index.search(repo.store, "api token header", scope="user:U5", version="1")) == ["facts/v1.md"]
    assert hit_paths(index.search(repo.store, "api token header", scope="user:U5", version="2")) == []
    assert [p for p in repo.validate() if p.path == "facts/v1.md"] == []


@pytest.mark.parametrize("status", ["retracted", "superseded", "needs_review", "expired"])
def test_inactive_statuses_never_returned(repo: MemoryRepo, status: str) -> None:
    put(repo, "facts/bad.md", "the database password rotation policy", status=status)
    put(repo, "facts/good.md", "rotation happens monthly")
    result = index.search(repo.store, "database password rotation policy", scope="user:U5", explain=True)
    assert hit_paths(result) == ["facts/good.md"]
    assert result.filtered[0].reason == f"status is {status}"


def test_unsourced_never_returned(repo: MemoryRepo) -> None:
    put(repo, "facts/nosource.md", "the office wifi name", source=None)
    put(repo, "facts/blank.md", "the office wifi name again", source="  ")
    result = index.search(repo.store, "office wifi", scope="user:U5", explain=True)
    assert hit_paths(result) == []
    assert {f.reason for f in result.filtered} == {"no source"}


def test_scope_exact_and_inheritance_by_whole_segments(repo: MemoryRepo) -> None:
    put(repo, "a.md", "tea preference", scope="user:U5")
    put(repo, "b.md", "tea preference", scope="user:U50")
    put(repo, "c.md", "tea preference", scope="user:U5/project:P8")
    put(repo, "d.md", "tea preference", scope="user:U5/project:P80")
    assert hit_paths(index.search(repo.store, "tea", scope="user:U5")) == ["a.md"]
    assert set(hit_paths(index.search(repo.store, "tea", scope="user:U5/project:P8", inherit=True))) == {"a.md", "c.md"}
    assert hit_paths(index.search(repo.store, "tea", scope="user:U5/project:P8")) == ["c.md"]
    assert len(index.search(repo.store, "tea").hits) == 4


def test_half_lives_from_config(repo: MemoryRepo) -> None:
    config = repo.root / ".memfs.toml"
    config.write_text(config.read_text() + "\n[recall.half_life_days]\nfact = 30\nnote = 0\n")
    policy = recall.RankPolicy.from_config(repo.store.config())
    assert policy.half_lives["fact"] == 30.0 and policy.half_lives["note"] is None
    config.write_text("[recall.half_life_days]\nfact = -1\n")
    with pytest.raises(MemfsError, match=r"half_life_days\.fact"):
        repo.store.config()


@pytest.mark.slow
def test_cross_scope_leakage_property(repo: MemoryRepo) -> None:
    """Seeded random repo: every hit is in the asked scope, and eligible matches are never crowded out."""
    rng = random.Random(1234)
    scopes = ["user:U5", "user:U50", "user:U5/project:P8", "user:U5/project:P80", "user:U", "team:a", "team:a-b"]
    words = "alpha beta gamma delta release notes deploy 发布 说明 B17 B170 error".split()
    truth: dict[str, tuple[str, str, set[str]]] = {}
    for i in range(600):
        scope = rng.choice(scopes)
        body = " ".join(rng.choices(words, k=rng.randint(2, 8)))
        status = rng.choices(["active", "retracted"], [9, 1])[0]
        version = rng.choice([None, None, "v1", "v2"])
        put(repo, f"m/{i:04d}.md", body, scope=scope, status=status, version=version)
        truth[f"m/{i:04d}.md"] = (scope, status, set(tokens(body)), version)
    for _ in range(60):
        scope = rng.choice(scopes)
        inherit = rng.random() < 0.3
        version = rng.choice([None, "v1", "v2"])
        query = " ".join(rng.sample(words, 2))
        result = index.search(repo.store, query, scope=scope, version=version, inherit=inherit, limit=5)
        allowed = recall.ScopeRule(scope, inherit).scopes
        qterms = set(tokens(query))
        eligible = [
            p
            for p, (s, st, terms, v) in truth.items()
            if s in allowed and st == "active" and terms & qterms and (version is None or v in (None, version))
        ]
        assert len(result.hits) == min(5, len(eligible)), (scope, query)
        for hit in result.hits:
            assert hit.memory.scope in allowed
            assert hit.memory.status == "active"


# --- relevance, CJK, identifiers ----------------------------------------------------------------
def test_cjk_query_finds_mixed_text(repo: MemoryRepo) -> None:
    put(repo, "prefs/lang.md", "以后P8的发布说明请用中文", type="preference")
    put(repo, "prefs/other.md", "代码评审意见请简洁")
    assert hit_paths(index.search(repo.store, "发布说明", scope="user:U5")) == ["prefs/lang.md"]
    assert hit_paths(index.search(repo.store, "P8 release 发布", scope="user:U5")) == ["prefs/lang.md"]
    assert set(hit_paths(index.search(repo.store, "请", scope="user:U5"))) == {"prefs/lang.md", "prefs/other.md"}


def test_identifiers_stay_exact_under_stemming(repo: MemoryRepo) -> None:
    put(repo, "facts/b17.md", "Bug B17 raised ERR_CONN_RESET during releases")
    put(repo, "facts/b170.md", "Bug B170 is unrelated")
    assert hit_paths(index.search(repo.store, "B17", scope="user:U5")) == ["facts/b17.md"]
    assert hit_paths(index.search(repo.store, "ERR_CONN_RESET", scope="user:U5")) == ["facts/b17.md"]
    assert hit_paths(index.search(repo.store, "released", scope="user:U5")) == ["facts/b17.md"]


def test_metadata_fields_are_searched_and_boosted(repo: MemoryRepo) -> None:
    put(repo, "facts/x.md", "something about kettles", description="Boiler maintenance schedule")
    put(repo, "facts/y.md", "boiler boiler mentioned in passing among many other words here")
    put(repo, "facts/z.md", "plain text", ticket="OPS-42")
    assert hit_paths(index.search(repo.store, "boiler", scope="user:U5"))[0] == "facts/x.md"
    assert hit_paths(index.search(repo.store, "OPS-42", scope="user:U5")) == ["facts/z.md"]


def test_freshness_orders_but_never_admits(repo: MemoryRepo) -> None:
    put(repo, "old.md", "coffee order", created="2020-01-01T00:00:00Z", type="note")
    put(repo, "new.md", "coffee order", created="2026-01-01T00:00:00Z", type="note")
    put(repo, "gone.md", "coffee order", created="2026-01-02T00:00:00Z", type="note", status="retracted")
    result = index.search(repo.store, "coffee", scope="user:U5", at=dt.datetime(2026, 2, 1, tzinfo=dt.UTC))
    assert hit_paths(result) == ["new.md", "old.md"]
    assert result.hits[0].freshness > result.hits[1].freshness


# --- the index follows the files --------------------------------------------------------------
def test_index_follows_git_without_reindex(repo: MemoryRepo) -> None:
    put(repo, "facts/deploy.md", "deploy with make ship")
    commit_all(repo.root, "first")
    assert hit_paths(index.search(repo.store, "ship", scope="user:U5")) == ["facts/deploy.md"]
    put(repo, "facts/deploy.md", "deploy with the rocket script")
    commit_all(repo.root, "second")
    assert hit_paths(index.search(repo.store, "ship", scope="user:U5")) == []
    git(repo.root, "revert", "--no-edit", "HEAD")
    assert hit_paths(index.search(repo.store, "ship", scope="user:U5")) == ["facts/deploy.md"]
    git(repo.root, "checkout", "-q", "HEAD~1")
    assert hit_paths(index.search(repo.store, "rocket", scope="user:U5")) == ["facts/deploy.md"]
    git(repo.root, "checkout", "-q", "main")
    assert hit_paths(index.search(repo.store, "rocket", scope="user:U5")) == []
    put(repo, "facts/deploy.md", "deploy with a hand-edited procedure")  # an editor's save
    assert hit_paths(index.search(repo.store, "hand edited", scope="user:U5")) == ["facts/deploy.md"]
    git(repo.root, "mv", "facts/deploy.md", "facts/shipping.md")
    assert hit_paths(index.search(repo.store, "hand edited", scope="user:U5")) == ["facts/shipping.md"]
    (repo.root / "facts/shipping.md").unlink()
    assert hit_paths(index.search(repo.store, "hand edited", scope="user:U5")) == []


def test_racy_same_size_edit_is_seen(repo: MemoryRepo) -> None:
    path = put(repo, "facts/a.md", "colour is red")
    assert hit_paths(index.search(repo.store, "red", scope="user:U5")) == ["facts/a.md"]
    stat = path.stat()
    path.write_bytes(path.read_bytes().replace(b"red", b"tan"))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert hit_paths(index.search(repo.store, "tan", scope="user:U5")) == ["facts/a.md"]


def test_indexing_never_writes_memory_files(repo: MemoryRepo) -> None:
    put(repo, "facts/a.md", "quiet file")
    commit_all(repo.root, "add")
    before = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in repo.root.rglob("*.md") if ".git" not in p.parts}
    index.reindex(repo.store)
    index.search(repo.store, "quiet", scope="user:U5")
    after = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in repo.root.rglob("*.md") if ".git" not in p.parts}
    assert before == after
    assert git(repo.root, "status", "--porcelain") == ""


@pytest.mark.slow
def test_reindex_equals_incremental_after_many_operations(repo: MemoryRepo) -> None:
    rng = random.Random(7)
    words = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu".split()
    live: list[str] = []
    for step in range(12):
        for _ in range(15):
            action = rng.random()
            if live and action < 0.25:
                (repo.root / live.pop(rng.randrange(len(live)))).unlink()
            elif live and action < 0.35:
                old = live.pop(rng.randrange(len(live)))
                new = f"r/{step}-{rng.randrange(10**6)}.md"
                (repo.root / new).parent.mkdir(exist_ok=True)
                (repo.root / old).rename(repo.root / new)
                live.append(new)
            else:
                rel = rng.choice(live) if live and action < 0.6 else f"m/{step}-{rng.randrange(10**6)}.md"
                put(repo, rel, " ".join(rng.choices(words, k=rng.randint(1, 30))), scope=rng.choice(["s:a", "s:b"]))
                if rel not in live:
                    live.append(rel)
        index.search(repo.store, "alpha", scope="s:a")  # catch up after each round
    queries = [" ".join(rng.sample(words, 3)) for _ in range(25)]
    at = dt.datetime(2026, 3, 1, tzinfo=dt.UTC)

    def snapshot() -> list:
        return [
            [(h.path, round(h.score, 9)) for h in index.search(repo.store, q, scope=s, limit=8, at=at).hits]
            for q in queries
            for s in ("s:a", "s:b")
        ]

    incremental = snapshot()
    index.reindex(repo.store)
    assert snapshot() == incremental


# --- robustness -------------------------------------------------------------------------------


def test_corrupt_or_outdated_index_is_rebuilt_with_a_notice(repo: MemoryRepo) -> None:
    put(repo, "facts/a.md", "mango")
    assert hit_paths(index.search(repo.store, "mango", scope="user:U5")) == ["facts/a.md"]
    state = repo.store.cache_dir / index.STATE_FILE
    state.write_text("{not json")
    result = index.search(repo.store, "mango", scope="user:U5")
    assert hit_paths(result) == ["facts/a.md"] and "rebuilding" in result.notices[0]
    raw = json.loads(state.read_text())
    raw["format"] = "schema0"
    state.write_text(json.dumps(raw))
    assert "another memfs version" in index.search(repo.store, "mango", scope="user:U5").notices[0]
    index.close(repo.store)
    for f in (repo.store.cache_dir / json.loads(state.read_text())["index_dir"]).iterdir():
        f.write_bytes(b"garbage")
    assert hit_paths(index.search(repo.store, "mango", scope="user:U5")) == ["facts/a.md"]
    import shutil

    shutil.rmtree(repo.store.cache_dir)
    assert hit_paths(index.search(repo.store, "mango", scope="user:U5")) == ["facts/a.md"]


def test_lock_held_elsewhere_searches_stale_index(repo: MemoryRepo) -> None:
    put(repo, "facts/a.md", "papaya")
    index.search(repo.store, "papaya", scope="user:U5")
    put(repo, "facts/b.md", "papaya again")
    held, release = threading.Event(), threading.Event()

    def hold() -> None:
        with locking.exclusive(repo.store.cache_dir / index.LOCK_FILE):
            held.set()
            release.wait(10)

    thread = threading.Thread(target=hold)
    thread.start()
    held.wait(5)
    try:
        report = index.sync(repo.store, wait=0.2)
        assert report.stale and "another process" in report.notices[0]
        assert hit_paths(index.search(repo.store, "papaya", scope="user:U5", catch_up=False)) == ["facts/a.md"]
    finally:
        release.set()
        thread.join()
    assert set(hit_paths(index.search(repo.store, "papaya", scope="user:U5"))) == {"facts/a.md", "facts/b.md"}


@pytest.mark.parametrize(
    "query", ['"release notes', "scope:user:U5 AND (notes OR *", "NOT ?", "a" * 200_000, "x " * 5000]
)
def test_query_syntax_is_plain_text(repo: MemoryRepo, query: str) -> None:
    put(repo, "facts/n.md", "release notes are written in Chinese")
    result = index.search(repo.store, query, scope="user:U5")
    assert isinstance(result.hits, list)


def test_syntax_characters_still_match_words(repo: MemoryRepo) -> None:
    put(repo, "facts/n.md", "release notes are written in Chinese")
    assert hit_paths(index.search(repo.store, '"release" AND (notes:*', scope="user:U5")) == ["facts/n.md"]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"query": "  "}, "empty"),
        ({"query": "x", "scope": "user:U5//x"}, "scope"),
        ({"query": "x", "limit": 0}, "limit"),
        ({"query": "x", "type": "opinion"}, "type"),
        ({"query": "x", "at": dt.datetime(2026, 1, 1)}, "time zone"),
    ],
)
def test_bad_input_is_a_clear_error(repo: MemoryRepo, kwargs: dict, message: str) -> None:
    query = kwargs.pop("query")
    with pytest.raises(MemfsError, match=message):
        index.search(repo.store, query, **kwargs)


def test_stop_words_only_query_is_empty_with_notice(repo: MemoryRepo) -> None:
    put(repo, "facts/n.md", "what is it")
    result = index.search(repo.store, "what is it", scope="user:U5")
    assert result.hits == [] and "no searchable words" in result.notices[-1]


def test_edits_inside_a_git_ignored_folder_are_seen_by_search(repo: MemoryRepo) -> None:
    write_file(repo.root / ".gitignore", (repo.root / ".gitignore").read_text() + "drafts/\n")
    commit_all(repo.root, "ignore drafts")
    put(repo, "drafts/idea.md", "an okapi idea\n")
    assert hit_paths(repo.search("okapi")) == ["drafts/idea.md"]
    put(repo, "drafts/idea.md", "a narwhal idea instead\n")
    assert hit_paths(repo.search("narwhal")) == ["drafts/idea.md"]
    assert hit_paths(repo.search("okapi")) == []


def test_the_expired_set_follows_the_time_asked_in_any_order(repo: MemoryRepo) -> None:
    from memfs.index.documents import epoch_us
    from memfs.index.reader import handle

    times = [dt.datetime(2026, 1, day, 12, tzinfo=dt.UTC) for day in range(1, 11)]
    for i, when in enumerate(times):
        put(repo, f"facts/e{i}.md", "kiwi", expires=when.isoformat().replace("+00:00", "Z"))
    put(repo, "facts/forever.md", "kiwi")
    index.search(repo.store, "kiwi", scope="user:U5")
    opened = handle(repo.store)
    rng = random.Random(5)
    for now in [times[3], times[3] - dt.timedelta(microseconds=1)] + [
        times[0] + dt.timedelta(hours=rng.randint(-30, 24 * 11)) for _ in range(30)
    ]:
        got = {opened.record(doc)[0] for doc in opened.expired(epoch_us(now)).nonzero()[0].tolist()}
        assert got == {f"facts/e{i}.md" for i, when in enumerate(times) if when <= now}, now


def test_the_expired_set_after_edits_keeps_what_old_segments_said_and_reads_the_new(repo: MemoryRepo) -> None:
    """Expiries are kept per index segment and handed to the index opened after a write; an edit
    (the old document deleted, the new one in a new segment) and a new memory are seen."""
    from memfs.index.documents import epoch_us
    from memfs.index.reader import handle

    day = [dt.datetime(2026, 1, d, 12, tzinfo=dt.UTC) for d in range(1, 8)]
    for i in range(4):
        put(repo, f"facts/x{i}.md", "plum", expires=day[i].isoformat())
    index.search(repo.store, "plum", scope="user:U5", at=day[0])
    before = handle(repo.store)
    before.expired(epoch_us(day[0]))
    put(repo, "facts/x1.md", "plum", expires=day[6].isoformat())
    put(repo, "facts/x9.md", "plum", expires=day[2].isoformat())
    (repo.root / "facts/x3.md").unlink()
    index.search(repo.store, "plum", scope="user:U5", at=day[0])
    after = handle(repo.store)
    assert after is not before
    expected = {"facts/x0.md": day[0], "facts/x1.md": day[6], "facts/x2.md": day[2], "facts/x9.md": day[2]}
    for now in day:
        flags = after.expired(epoch_us(now)) & after.live()
        assert {after.record(doc)[0] for doc in flags.nonzero()[0].tolist()} == {
            p for p, when in expected.items() if when <= now}, now
        hits = {h.path for h in index.search(repo.store, "plum", scope="user:U5", at=now, catch_up=False).hits}
        assert hits == {p for p, when in expected.items() if when > now}, now
