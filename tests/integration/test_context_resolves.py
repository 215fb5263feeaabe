"""Context that resolves (#13, item 4): one memory per (scope, key, version), preferences always,
several exact scopes, version/type/confidence labels, a minimum relevance."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from memfs import MemoryRepo
from memfs.agents.context import assemble
from memfs.agents.rendering import Block, Context
from memfs.errors import UsageError
from memfs.policy.tokens import estimate_tokens
from tests.helpers import add, commit_all, put

AT = dt.datetime(2026, 9, 25, tzinfo=dt.UTC)


def paths(ctx: Context) -> list[str]:
    return [b.path for b in ctx.blocks if b.kind == "recalled"]


def test_one_active_memory_per_scope_key_version_the_highest_revision(repo: MemoryRepo):
    put(repo, "facts/tz-old.md", "The deploy timezone is UTC.", key="deploy_tz", revision=1)
    put(repo, "facts/tz-new.md", "The deploy timezone is Europe/Berlin.", key="deploy_tz", revision=3)
    put(repo, "facts/tz-v2.md", "On v2 the deploy timezone is Asia/Shanghai.", key="deploy_tz", version="v2")
    commit_all(repo.root, "two files for one key")
    ctx = assemble(repo.store, "deploy timezone", scope="user:U5", at=AT)
    got = paths(ctx)
    assert "facts/tz-new.md" in got and "facts/tz-old.md" not in got
    assert "facts/tz-v2.md" in got  # another version is another identity
    reasons = {i.path: i.reason for i in ctx.left_out}
    assert reasons["facts/tz-old.md"].startswith("duplicate of facts/tz-new.md")
    assert any("share scope user:U5, key 'deploy_tz'" in w for w in ctx.warnings)
    assert set(ctx.duplicates) == {"facts/tz-old.md", "facts/tz-new.md"}


def test_the_higher_revision_replaces_a_lower_one_that_matched_better(repo: MemoryRepo):
    put(repo, "facts/a.md", "kiwi kiwi kiwi banana", key="fruit", revision=1)
    put(repo, "facts/b.md", "the answer changed", key="fruit", revision=2)
    commit_all(repo.root, "same key")
    got = paths(assemble(repo.store, "kiwi", scope="user:U5", at=AT))
    assert got == ["facts/b.md"]


def test_validate_flags_two_active_memories_with_the_same_identity(repo: MemoryRepo):
    put(repo, "facts/x1.md", "one", key="k", revision=1)
    put(repo, "facts/x2.md", "two", key="k", revision=2)
    put(repo, "facts/x3.md", "three", key="k", revision=1, status="superseded")
    put(repo, "facts/y.md", "other version", key="k", version="v9")
    problems = [p for p in repo.validate() if p.field == "key"]
    assert sorted(p.path for p in problems) == ["facts/x1.md", "facts/x2.md"]
    assert "same scope user:U5, key 'k', version any" in problems[0].message


def test_preferences_of_the_scope_chain_are_always_included(repo: MemoryRepo):
    add(repo, "prefs/lang.md", type="preference", scope="user:U5/project:P8", key="lang",
        body="Write P8 release notes in English.")
    add(repo, "prefs/style.md", type="preference", scope="user:U5", key="style", body="Conclusion first.")
    add(repo, "prefs/other.md", type="preference", scope="user:U50", key="style", body="Other user's style.")
    add(repo, "facts/changelog.md", scope="user:U5/project:P8", body="The changelog lives in CHANGES.md.")
    ctx = assemble(repo.store, "draft the changelog", scope="user:U5/project:P8", inherit=True, at=AT)
    got = paths(ctx)
    assert got[0] == "facts/changelog.md"
    assert {"prefs/lang.md", "prefs/style.md"} <= set(got) and "prefs/other.md" not in got
    exact = paths(assemble(repo.store, "draft the changelog", scope="user:U5/project:P8", at=AT))
    assert "prefs/lang.md" in exact and "prefs/style.md" not in exact


def test_preferences_stay_within_the_budget(repo: MemoryRepo):
    add(repo, "prefs/long.md", type="preference", key="long", body="word " * 400)
    ctx = assemble(repo.store, "unrelated task", scope="user:U5", budget=300, at=AT)
    assert "prefs/long.md" in ctx.left_out_for_budget and ctx.tokens <= 300


def test_several_scopes_each_matched_exactly(repo: MemoryRepo):
    add(repo, "facts/u5.md", body="kiwi for U5")
    add(repo, "facts/p8.md", scope="project:P8", body="kiwi for P8")
    add(repo, "facts/u50.md", scope="user:U50", body="kiwi for U50")
    add(repo, "facts/p8x.md", scope="project:P8/team:x", body="kiwi for the team")
    ctx = assemble(repo.store, "kiwi", scope=["user:U5", "project:P8"], at=AT)
    assert sorted(paths(ctx)) == ["facts/p8.md", "facts/u5.md"]
    assert ctx.scopes == ["user:U5", "project:P8"] and ctx.scope is None


def test_a_bound_session_refuses_other_scopes_in_a_multi_scope_request(repo: MemoryRepo):
    add(repo, "facts/p8.md", scope="project:P8", body="kiwi for P8")
    session = repo.session("user:U5")
    with pytest.raises(UsageError, match="bound to scope user:U5"):
        session.context("kiwi", scope=["user:U5", "project:P8"])
    assert session.context("kiwi", scope=["user:U5"], at=AT).scopes == ["user:U5"]


def test_versions_are_said_and_labelled_when_none_was_asked(repo: MemoryRepo):
    add(repo, "config/v1.md", key="timeout", version="v1", confidence=0.9, body="timeout in seconds")
    add(repo, "config/v2.md", key="timeout", version="v2", confidence=0.9, body="timeout in milliseconds")
    ctx = assemble(repo.store, "timeout", scope="user:U5", at=AT)
    assert any("carry versions (v1, v2)" in w for w in ctx.warnings)
    text = ctx.render()
    assert "version=v1>>>" in text and "version=v2>>>" in text
    assert " fact source=" in text and "conf=90%" in text and "status=" not in text
    asked = assemble(repo.store, "timeout", scope="user:U5", version="v2", at=AT)
    assert paths(asked) == ["config/v2.md"] and not any("carry versions" in w for w in asked.warnings)


def test_labels_cost_fewer_tokens_than_before(tmp_path: Path) -> None:
    demo = MemoryRepo.open(MemoryRepo.demo(tmp_path / "demo").root)
    ctx = assemble(demo.store, "P8 release notes B17 timeout", scope=["user:U5/project:P8", "project:P8"], at=AT,
                   budget=8000, min_relevance=0)
    recalled = [b for b in ctx.blocks if b.kind == "recalled"]
    assert recalled
    from memfs.agents.rendering import render_block

    def before(block: Block) -> str:  # the label as it was: path, scope, source, time, revision, status
        label = (f"path={block.path} scope={block.scope} source={block.source} time={block.time} "
                 f"revision={block.revision} status=active")
        return f"<<<MEMORY {ctx.fence} {label}>>>\n{block.text}\n<<<END {ctx.fence}>>>\n\n"

    now = [estimate_tokens(render_block(b, "markdown", ctx.fence)) - estimate_tokens(b.text) for b in recalled]
    then = [estimate_tokens(before(b)) - estimate_tokens(b.text) for b in recalled]
    assert all(n < t for n, t in zip(now, then, strict=True)), (now, then)
    assert all(f" {b.type} source=" in render_block(b, "markdown", ctx.fence) for b in recalled)


def test_minimum_relevance_drops_noise(repo: MemoryRepo):
    add(repo, "facts/strong.md", body="kiwi kiwi kiwi smoothie recipe kiwi")
    add(repo, "facts/weak.md", body="a long text about many other things " * 20 + "smoothie")
    ctx = assemble(repo.store, "kiwi smoothie", scope="user:U5", at=AT)
    assert paths(ctx) == ["facts/strong.md"] and ctx.low_relevance == ["facts/weak.md"]
    everything = assemble(repo.store, "kiwi smoothie", scope="user:U5", at=AT, min_relevance=0)
    assert sorted(paths(everything)) == ["facts/strong.md", "facts/weak.md"]
    with pytest.raises(UsageError):
        assemble(repo.store, "kiwi", scope="user:U5", min_relevance=2)


def test_a_hit_covering_every_word_is_never_noise(repo: MemoryRepo):
    add(repo, "facts/loud.md", body="kiwi kiwi kiwi kiwi kiwi")
    add(repo, "facts/full.md", body="a long text about many other things " * 30 + "kiwi smoothie")
    add(repo, "facts/other.md", body="plums and pears")
    add(repo, "facts/more.md", body="apples and figs")
    ctx = assemble(repo.store, "kiwi smoothie", scope="user:U5", at=AT, min_relevance=0.9)
    assert paths(ctx)[0] == "facts/full.md" and "facts/full.md" not in ctx.low_relevance


def test_no_scope_reads_every_scope_and_one_scope_is_named(repo: MemoryRepo):
    put(repo, "facts/u5.md", "The kiwi harvest is in May.", scope="user:U5")
    put(repo, "facts/u6.md", "The kiwi boxes are blue.", scope="user:U6")
    commit_all(repo.root, "two scopes")
    with pytest.raises(UsageError, match="more than one person"):
        assemble(repo.store, "kiwi", scope=None, at=AT)
    every = assemble(repo.store, "kiwi", scope=None, at=AT, all_scopes=True)
    assert {"facts/u5.md", "facts/u6.md"} <= set(paths(every)) and every.scope is None
    assert assemble(repo.store, "kiwi", scope=["user:U5"], at=AT).scope == "user:U5"
