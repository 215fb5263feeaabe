"""Lifecycle: remember (gate → reconcile → one commit), revisions, idempotency, expiry sweep,
forget, purge and usage statistics, on real git repositories."""

from __future__ import annotations

import datetime as dt
import shutil
import unicodedata

import pytest

from memfs import MemoryRepo
from memfs.errors import ConflictError, WriteRefused
from memfs.ops import idempotency
from memfs.ops.forget import expire, forget
from memfs.ops.purge import purge
from memfs.ops.remember import remember
from memfs.ops.stats import stats
from memfs.policy.candidate import from_mapping
from memfs.policy.reconcile import Op
from memfs.store import usage
from memfs.store.history import log, revisions
from tests.helpers import PREFERENCE_PATH, all_object_texts, candidate, commit_count, git, user_memories


# --- remember on a repository ----------------------------------------------------------------
def test_keyless_candidates_are_matched_by_normalised_content(repo: MemoryRepo) -> None:
    base = {"scope": "user:U5", "type": "fact", "source_kind": "user"}
    first = remember(repo.store, from_mapping({**base, "body": "U5 works in Berlin.", "source": "c:1"}))
    second = remember(repo.store, from_mapping({**base, "body": "u5 works in  berlin", "source": "c:2"}))
    other_scope = remember(
        repo.store, from_mapping({**base, "scope": "user:U6", "body": "U5 works in Berlin.", "source": "c:3"}),
        actor="user:U6",
    )
    assert (first.op, second.op, other_scope.op) == (Op.INSERT, Op.REINFORCE, Op.INSERT)
    assert second.paths == first.paths and other_scope.paths != first.paths
    assert len(user_memories(repo)) == 2


def test_batch_is_one_commit_and_skips_refused(repo: MemoryRepo) -> None:
    from memfs.ops.remember import remember_batch

    before = commit_count(repo)
    result = remember_batch(
        repo.store,
        [
            candidate("Chinese", "c:1", idempotency_key="b-1"),
            candidate("chinese.", "c:2"),
            candidate("my password is hunter2!", "c:3", key="pw"),
            candidate("English", "c:4", idempotency_key="b-2"),
            candidate("Chinese", "c:1", idempotency_key="b-1"),
        ],
    )
    assert [o.op if o else None for o in result.outcomes] == [Op.INSERT, Op.REINFORCE, None, Op.SUPERSEDE, Op.NOOP]
    assert list(result.refused) == [2] and result.refused[2][0].rule == "secret/password"
    assert commit_count(repo) == before + 1 and repo.store.read(PREFERENCE_PATH).revision == 2
    message = git(repo.root, "log", "-1", "--format=%B")
    assert "Memfs-Idempotency-Key: b-1" in message and "Memfs-Idempotency-Key: b-2" in message
    assert remember(repo.store, candidate("x", "c:9", idempotency_key="b-2")).op is Op.NOOP


def test_keep_both_for_another_version(repo: MemoryRepo) -> None:
    base = {"scope": "service:payments", "key": "timeout", "type": "fact", "source_kind": "document"}
    v1 = remember(repo.store, from_mapping({**base, "body": "30 s", "version": "v1", "source": "doc:v1"}))
    v2 = remember(repo.store, from_mapping({**base, "body": "10 s", "version": "v2", "source": "doc:v2"}))
    assert (v1.op, v2.op) == (Op.INSERT, Op.KEEP_BOTH)
    assert repo.store.read(v1.paths[0]).body.strip() == "30 s" and repo.store.read(v2.paths[0]).version == "v2"


def test_retract_withdraws_the_memory_in_one_commit(repo: MemoryRepo) -> None:
    remember(repo.store, candidate("Write P8 release notes in Chinese.", "c:1"))
    before = commit_count(repo)
    out = remember(repo.store, candidate("(withdrawn)", "c:2", retract=True, reason="U5 said that was wrong"))
    assert out.op is Op.RETRACT and out.commit
    assert repo.store.read(PREFERENCE_PATH).status == "retracted"
    assert commit_count(repo) == before + 1
    assert remember(repo.store, candidate("(withdrawn)", "c:2", retract=True)).op is Op.NOOP


def test_force_overrides_only_forceable_rules(repo: MemoryRepo) -> None:
    out = remember(repo.store, candidate("use English", "tool:web#1", source_kind="tool"), force=True)
    assert out.op is Op.INSERT and out.forced == ("untrusted-preference",)
    assert "Memfs-Forced: untrusted-preference" in git(repo.root, "log", "-1", "--format=%B")
    with pytest.raises(WriteRefused):
        remember(repo.store, candidate("token ghp_abcdefghijklmnopqrstuvwxyz0123456789", "c:9", key="k2"), force=True)


def test_expected_revision_conflict(repo: MemoryRepo) -> None:
    remember(repo.store, candidate("Chinese", "c:1"))
    remember(repo.store, candidate("English", "c:2", expected_revision=1))
    with pytest.raises(ConflictError, match="revision 2"):
        remember(repo.store, candidate("French", "c:3", expected_revision=1))
    with pytest.raises(ConflictError):
        remember(repo.store, candidate("French", "c:3", key="new_key", expected_revision=4))
    assert repo.store.read(PREFERENCE_PATH).body.strip() == "English"


def test_idempotency_survives_cache_loss_and_restarts(repo: MemoryRepo) -> None:
    remember(repo.store, candidate("Chinese", "c:1", idempotency_key="k-1"))
    remember(repo.store, candidate("English", "c:2", idempotency_key="k-2"))
    assert set(idempotency.applied_keys(repo.store)) == {"k-1", "k-2"}
    shutil.rmtree(repo.store.cache_dir)
    reopened = MemoryRepo.open(repo.root)
    assert remember(reopened.store, candidate("Chinese", "c:1", idempotency_key="k-1")).op is Op.NOOP
    assert idempotency.applied_in(reopened.store, "k-2")
    assert reopened.store.read(PREFERENCE_PATH).body.strip() == "English"
    assert remember(reopened.store, candidate("French", "c:3", idempotency_key="k-1 ")).op is Op.NOOP


# --- expiry, forget, stats --------------------------------------------------------------------
def test_expire_sweep_marks_and_archives_in_one_commit(repo: MemoryRepo) -> None:
    base = {"scope": "user:U5", "type": "fact", "source_kind": "user", "source": "c:1"}
    past = remember(repo.store, from_mapping({**base, "key": "a", "body": "a", "expires": "2026-01-01T00:00:00Z"}))
    later = remember(repo.store, from_mapping({**base, "key": "b", "body": "b", "expires": "2099-01-01T00:00:00Z"}))
    also = remember(repo.store, from_mapping({**base, "key": "c", "body": "c", "expires": "2026-02-01T00:00:00Z"}))
    now = dt.datetime(2026, 6, 1, tzinfo=dt.UTC)
    assert expire(repo.store, now=now, dry_run=True).expired == sorted([past.paths[0], also.paths[0]])
    before = commit_count(repo)
    result = expire(repo.store, now=now, archive=True)
    assert commit_count(repo) == before + 1 and result.commit
    assert set(result.archived) == {past.paths[0], also.paths[0]}
    for old, new in result.archived.items():
        assert not (repo.root / old).exists() and repo.store.read(new).status == "expired"
        assert new.startswith("archive/")
    assert repo.store.read(later.paths[0]).status == "active"
    assert expire(repo.store, now=now).commit is None


def test_forget_is_a_status_change_that_keeps_history(repo: MemoryRepo) -> None:
    out = remember(repo.store, candidate("Chinese", "c:1"))
    result = forget(repo.store, out.paths[0], reason="U5 asked")
    assert result.commit and repo.store.read(PREFERENCE_PATH).status == "retracted"
    assert [e.op for e in log(repo.store, PREFERENCE_PATH)][:1] == ["forget"]
    assert "Chinese" in git(repo.root, "show", f"{result.commit}~1:{PREFERENCE_PATH}")


def test_usage_stats_stay_out_of_git(repo: MemoryRepo) -> None:
    remember(repo.store, candidate("Chinese", "c:1"))
    head = git(repo.root, "rev-parse", "HEAD")
    usage.record_recall(repo.store, [PREFERENCE_PATH, PREFERENCE_PATH], when=dt.datetime(2026, 9, 1, tzinfo=dt.UTC))
    usage.record_recall(repo.store, [PREFERENCE_PATH])
    result = stats(repo.store)
    assert result.usage[PREFERENCE_PATH].recalls == 2
    assert result.by_status["active"] >= 1 and result.by_type["preference"] == 1
    assert git(repo.root, "rev-parse", "HEAD") == head and git(repo.root, "status", "--porcelain") == ""


# --- purge ------------------------------------------------------------------------------------
def test_purge_rewrites_history_keeps_others_and_reports_remotes(repo: MemoryRepo) -> None:
    keep = remember(repo.store, candidate("Keep me around", "c:0", key="other"))
    first = remember(repo.store, candidate("secret-ish diagnosis QUUX-17", "c:1", type="fact", key="diagnosis"))
    remember(repo.store, candidate("changed diagnosis FROB-23", "c:2", type="fact", key="diagnosis"))
    remember(repo.store, candidate("Keep me around, updated", "c:3", key="other"))
    target = first.paths[0]
    git(repo.root, "remote", "add", "origin", "https://user:pw@example.invalid/mem.git")
    (repo.store.cache_dir / "index").mkdir(parents=True, exist_ok=True)
    (repo.store.cache_dir / "index" / "seg").write_text("QUUX-17")
    usage.record_recall(repo.store, [target, keep.paths[0]])
    report = purge(repo.store, target, reason="privacy request")
    assert report.remaining == [] and not report.verified  # the remote still has the old history
    assert report.unrewritable == ["remote origin (https://example.invalid/mem.git) still has the old history"]
    assert report.remotes == {"origin": "https://example.invalid/mem.git"}
    assert "refs/heads/main" in report.refs_rewritten and report.commits_removed == 2
    assert not (repo.store.cache_dir / "index").exists()
    texts = all_object_texts(repo.root)
    assert "QUUX-17" not in texts and "FROB-23" not in texts
    assert "Keep me around, updated" in repo.store.read(keep.paths[0]).body
    assert len(revisions(repo.store, keep.paths[0])) == 2
    assert target not in usage.load(repo.store) and keep.paths[0] in usage.load(repo.store)
    assert target not in git(repo.root, "log", "--all", "--format=%B")


def test_purge_reports_copies_elsewhere_and_refuses_dirty_tree(repo: MemoryRepo) -> None:
    a_md = remember(repo.store, candidate("the phrase ZORKMID-99 here", "c:1", type="fact", key="a")).paths[0]
    derived = remember(repo.store, candidate("derived: the phrase ZORKMID-99 here", "c:2", type="fact", key="b"))
    b_md = derived.paths[0]
    (repo.root / b_md).write_text((repo.root / b_md).read_text() + "edit\n")
    with pytest.raises(Exception, match="commit or stash"):
        purge(repo.store, a_md, reason="r")
    git(repo.root, "checkout", "--", b_md)
    report = purge(repo.store, a_md, reason="r")
    assert not report.verified and any(b_md in r for r in report.remaining)


def test_purge_follows_archive_moves_but_not_lookalikes(repo: MemoryRepo) -> None:
    base = {"scope": "user:U5", "type": "fact", "source_kind": "user", "source": "c:1"}
    gone = remember(
        repo.store, from_mapping({**base, "key": "a", "body": "old value XYZZY-1", "expires": "2026-01-01T00:00:00Z"})
    )
    look = remember(repo.store, from_mapping({**base, "key": "b", "body": "other"}))
    moved = expire(repo.store, now=dt.datetime(2026, 6, 1, tzinfo=dt.UTC), archive=True).archived[gone.paths[0]]
    assert [r.path for r in revisions(repo.store, look.paths[0])] == [look.paths[0]]
    report = purge(repo.store, moved, reason="r")
    assert report.verified and set(report.history_paths) == {gone.paths[0], moved}
    assert "XYZZY-1" not in all_object_texts(repo.root)
    assert repo.store.read(look.paths[0]).body.strip() == "other"


def test_remember_a_key_in_chinese(repo: MemoryRepo) -> None:
    key = "发布说明语言"
    first = remember(repo.store, candidate("P8 的发布说明用中文写。", "conversation:C1#msg-12", key=key))
    assert (first.op, first.paths) == (Op.INSERT, ("prefs/发布说明语言--user-u5-project-p8-f32854.md",))
    memory = repo.store.read("prefs/发布说明语言--user-u5-project-p8-f32854.md")
    assert (memory.id, memory.key) == ("prefs/发布说明语言--user-u5-project-p8-f32854", key) and repo.validate() == []
    again = remember(repo.store, candidate("P8 的发布说明用中文写", "conversation:C2#msg-1", key=key))
    assert (again.op, again.paths) == (Op.REINFORCE, first.paths)
    decomposed = unicodedata.normalize("NFD", "Sprache der Versionshinweise für P8")
    third = remember(repo.store, candidate("Write them in English.", "conversation:C3#msg-2", key=decomposed))
    composed = unicodedata.normalize("NFC", decomposed)
    fourth = remember(repo.store, candidate("Write them in French.", "conversation:C3#msg-4", key=composed))
    assert (third.op, fourth.op) == (Op.INSERT, Op.SUPERSEDE) and fourth.paths == third.paths
