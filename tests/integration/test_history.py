"""History: log by operation, a memory as of a commit or a date, semantic diffs, revert."""

from __future__ import annotations

import pytest

from memfs import MemoryRepo
from memfs.errors import GitError, MemfsError, MemoryNotFound
from memfs.store import history
from tests.helpers import commit_all, count_git_commands, git, put, write_file


def test_log_of_repo_path_and_op(lang: MemoryRepo) -> None:
    assert [e.op for e in history.log(lang.store)] == ["update", "create", "create", "init"]
    entries = history.log(lang.store, "prefs/lang.md")
    assert [e.op for e in entries] == ["update", "create"] and entries[1].reason == "user said so"
    assert [e.paths for e in history.log(lang.store, op="create")] == [("facts/b17.md",), ("prefs/lang.md",)]
    assert history.log(lang.store, op="retract") == []
    assert len(history.log(lang.store, limit=2)) == 2


def test_a_kept_repository_runs_one_git_log_per_commit(lang: MemoryRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    """Sessions of one repository object share the log read at HEAD's commit; a commit made by
    hand, behind the object's back, is in the next one."""
    before = [e.commit for e in lang.session("user:U5").log(limit=10)]
    started = count_git_commands(monkeypatch)
    assert [e.commit for e in lang.session("user:U5").log(limit=10)] == before and started["log"] == 0
    put(lang, "facts/by-hand.md", body="kiwi\n", scope="user:U5")
    commit_all(lang.root, "by hand")
    after = lang.session("user:U5").log(limit=10)
    assert started["log"] == 1 and [e.commit for e in after][1:] == before and after[0].paths == ("facts/by-hand.md",)


def test_show_at_commit_and_date(lang: MemoryRepo) -> None:
    first = history.log(lang.store, "prefs/lang.md")[-1].commit
    assert history.show_at(lang.store, "prefs/lang.md", first).body == "Release notes in Chinese.\n"
    assert history.show_at(lang.store, "prefs/lang.md", "HEAD").revision == 2
    assert history.show_at(lang.store, "prefs/lang.md", "2999-01-01T00:00:00Z").revision == 2
    with pytest.raises(MemoryNotFound):
        history.show_at(lang.store, "prefs/lang.md", "2000-01-01T00:00:00Z")
    with pytest.raises(MemfsError, match="time zone"):
        history.show_at(lang.store, "prefs/lang.md", "2026-01-01T00:00:00")
    with pytest.raises(GitError, match="not a commit"):
        history.show_at(lang.store, "prefs/lang.md", "no-such-branch")


def test_semantic_diff_summarises_field_changes(lang: MemoryRepo) -> None:
    [change] = history.diff(lang.store, "HEAD~1", "HEAD")
    summary = {str(c).split(":")[0]: str(c) for c in change.fields}
    assert summary["revision"] == "revision: 1 → 2"
    assert summary["source"] == "source: conversation:C1#msg-12 → conversation:C2#msg-3"
    assert change.body_changed and "+Release notes in English." in change.text


def test_diff_against_the_working_tree(lang: MemoryRepo) -> None:
    path = lang.root / "prefs/lang.md"
    path.write_text(path.read_text().replace("status: active", "status: retracted"))
    write_file(lang.root / "new.md", "---\nid: new\n---\n")
    files = {f.path: f for f in history.diff(lang.store, "HEAD")}
    assert [str(c) for c in files["prefs/lang.md"].fields] == ["status: active → retracted"]
    assert files["new.md"].change == "added"


def test_revert_restores_the_bytes_as_a_new_revision(lang: MemoryRepo) -> None:
    before = (lang.root / "prefs/lang.md").read_bytes()
    assert b"\nrevision: 2\n" in before
    lang.write("prefs/lang.md", fields={"status": "retracted"}, force=True)
    sha = history.revert(lang.store, "HEAD", reason="bad retraction")
    after = (lang.root / "prefs/lang.md").read_bytes()
    assert after == before.replace(b"\nrevision: 2\n", b"\nrevision: 4\n")  # above the retraction's 3
    body = git(lang.root, "log", "-1", "--format=%B")
    assert body.startswith("memfs: revert ") and "Memfs-Op: revert" in body and sha


def test_revert_refuses_with_staged_changes(lang: MemoryRepo) -> None:
    write_file(lang.root / "x.txt", "x")
    git(lang.root, "add", "x.txt")
    with pytest.raises(MemfsError, match="staged"):
        history.revert(lang.store, "HEAD")
