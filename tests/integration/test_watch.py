"""The watcher with a real observer thread and real files (events + polling, generous timeouts)."""

from __future__ import annotations

import os
import threading

import pytest

from memfs import MemoryRepo
from memfs.agents.watch import Watcher, WatchEvent, watched_path
from tests.helpers import add, git, memory_text, wait_for

pytestmark = pytest.mark.filterwarnings("ignore:Callback with id:RuntimeWarning")


class Recorder:
    def __init__(self) -> None:
        self.events: list[WatchEvent] = []
        self.lock = threading.Lock()

    def __call__(self, event: WatchEvent) -> None:
        with self.lock:
            self.events.append(event)

    def seen(self, path: str, outcome: str) -> bool:
        with self.lock:
            return any(e.path == path and e.outcome == outcome for e in self.events)


def head_files(repo: MemoryRepo) -> str:
    return git(repo.root, "show", "--name-status", "--format=%an|%s", "HEAD")


def is_clean(repo: MemoryRepo, rel: str) -> bool:
    return git(repo.root, "status", "--porcelain", "--", rel).strip() == ""


@pytest.fixture
def watching(repo: MemoryRepo):
    recorder = Recorder()
    watcher = Watcher(repo.store, actor="user:editor", debounce=0.05, report=recorder, index=False)
    watcher.start()
    try:
        yield repo, watcher, recorder
    finally:
        watcher.stop()


def test_watched_path(repo: MemoryRepo):
    root = str(repo.root)
    assert watched_path(repo.store, f"{root}/facts/a.md") == "facts/a.md"
    for other in (".git/index", ".memfs/x.md", "facts/.a.md.swp", "facts/a.md~", "4913", "README.md", "a.txt"):
        assert watched_path(repo.store, f"{root}/{other}") is None
    assert watched_path(repo.store, "/elsewhere/a.md") is None


def test_in_place_save_is_committed(watching):
    repo, _, rec = watching
    (repo.root / "facts").mkdir()
    (repo.root / "facts/a.md").write_text(memory_text("first", id="a"))
    assert wait_for(lambda: rec.seen("facts/a.md", "committed"))
    shown = head_files(repo)
    assert shown.startswith("user:editor|memfs: watch facts/a.md") and "A\tfacts/a.md" in shown
    assert is_clean(repo, "facts/a.md")


def test_atomic_save_and_vim_style_save(watching):
    repo, _, rec = watching
    target = repo.root / "b.md"
    tmp = repo.root / ".b.md.x1y2.tmp"
    tmp.write_text(memory_text("atomic", id="b"))
    os.replace(tmp, target)
    assert wait_for(lambda: rec.seen("b.md", "committed"))
    assert wait_for(lambda: is_clean(repo, "b.md"))
    rec.events.clear()
    # vim: 4913 probe, move the file to a backup, write a new file, delete the backup
    (repo.root / "4913").write_text("")
    (repo.root / "4913").unlink()
    os.replace(target, repo.root / "b.md~")
    target.write_text(memory_text("vim edit", id="b"))
    (repo.root / "b.md~").unlink()
    assert wait_for(lambda: "vim edit" in git(repo.root, "show", "HEAD:b.md"))
    assert not any(e.outcome == "invalid" for e in rec.events)
    assert "b.md~" not in git(repo.root, "ls-files")


def test_invalid_file_is_not_committed_and_left_untouched(watching):
    repo, _, rec = watching
    broken = "---\nid: c\ntype: rumour\n---\nbody\n"
    (repo.root / "c.md").write_text(broken)
    assert wait_for(lambda: rec.seen("c.md", "invalid"))
    event = next(e for e in rec.events if e.path == "c.md")
    assert "type" in str(event) and "NOT committed" in str(event)
    assert (repo.root / "c.md").read_text() == broken
    assert "c.md" not in git(repo.root, "ls-files")
    (repo.root / "c.md").write_text(memory_text("fixed", id="c"))
    assert wait_for(lambda: rec.seen("c.md", "committed"))


def test_delete_and_dependents(watching):
    repo, _, rec = watching
    (repo.root / "d.md").write_text(memory_text("source", id="d"))
    derived = memory_text("derived", id="e", depends_on=["d.md"])
    (repo.root / "e.md").write_text(derived)
    assert wait_for(lambda: rec.seen("d.md", "committed") and rec.seen("e.md", "committed"))
    (repo.root / "d.md").unlink()
    assert wait_for(lambda: rec.seen("d.md", "invalid"))
    assert "d.md" in git(repo.root, "ls-files")
    (repo.root / "e.md").unlink()
    assert wait_for(lambda: "e.md" not in git(repo.root, "ls-files"))


def test_memfs_own_writes_do_not_loop(watching):
    repo, _, rec = watching
    add(repo, "f.md", body="by memfs")
    count = git(repo.root, "rev-list", "--count", "HEAD")
    assert wait_for(lambda: rec.seen("f.md", "unchanged"))
    assert git(repo.root, "rev-list", "--count", "HEAD") == count


def test_git_operations_do_not_trigger_commits(watching):
    """A file saved after the git operations is processed after anything they touched (touches
    are processed in the order their debounce ends): once it is committed, the watcher has seen
    all they did, whatever the load, and it committed nothing else."""
    repo, _, rec = watching
    git(repo.root, "commit", "--allow-empty", "-qm", "empty")
    git(repo.root, "checkout", "-q", "HEAD~1")
    git(repo.root, "checkout", "-q", "-")
    (repo.root / "after.md").write_text(memory_text("saved after the git operations", id="after"))
    assert wait_for(lambda: rec.seen("after.md", "committed"))
    assert [(e.path, e.outcome) for e in rec.events if e.outcome in ("committed", "invalid")] == [
        ("after.md", "committed")]


def test_expected_host_write_is_skipped(repo: MemoryRepo):
    watcher = Watcher(repo.store, debounce=0.05, index=False)
    data = memory_text("host", id="g").encode()
    watcher.expect("g.md", data)
    (repo.root / "g.md").write_bytes(data)
    assert [e.outcome for e in watcher.process(["g.md"])] == ["unchanged"]


def test_reconcile_on_start_and_flush_on_stop(repo: MemoryRepo):
    (repo.root / "offline.md").write_text(memory_text("made while not watching", id="offline"))
    recorder = Recorder()
    watcher = Watcher(repo.store, debounce=30.0, report=recorder, index=False)
    done = watcher.start()
    try:
        assert [(e.path, e.outcome) for e in done] == [("offline.md", "committed")]
        (repo.root / "pending.md").write_text(memory_text("saved just before stop", id="pending"))
        assert wait_for(lambda: "pending.md" in watcher._pending)
    finally:
        watcher.stop()
    assert recorder.seen("pending.md", "committed")
    assert "pending.md" in git(repo.root, "ls-files")


def test_a_name_that_is_not_utf8_is_reported_alone_and_the_others_are_committed(repo: MemoryRepo):
    text = memory_text("fine\n", type="fact", scope="user:U5", source="tool:ci")
    (repo.root / "notes").mkdir()
    with open(os.fsencode(repo.root / "notes") + b"/bad\xff.md", "w", encoding="utf-8") as handle:
        handle.write(text)
    (repo.root / "notes" / "good.md").write_text(text, encoding="utf-8")
    events = repo.watcher(index=False, actor="agent:x").process([os.fsdecode(b"notes/bad\xff.md"), "notes/good.md"])
    outcome = {e.path: e.outcome for e in events}
    assert outcome == {os.fsdecode(b"notes/bad\xff.md"): "invalid", "notes/good.md": "committed"}
    said = str(next(e for e in events if e.outcome == "invalid"))
    assert "notes/bad\\xff.md" in said and "not valid UTF-8" in said
    assert git(repo.root, "ls-files", "notes").split() == ["notes/good.md"]
