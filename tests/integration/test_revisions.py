"""Revisions never repeat: after a revert (memfs's or git's) or a file deleted and written again,
every writing verb numbers its change above every revision the memory ever had, so a writer
holding a revision it read before the revert can never pass ``expected_revision``."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

import pytest

from memfs import MemoryRepo
from memfs.errors import ConflictError
from memfs.store import revisions
from tests.helpers import FACT, PREFERENCE, candidate, git

T = dt.datetime(2026, 10, 1, tzinfo=dt.UTC)
PATH = "prefs/lang.md"


def _english_then_reverted(repo: MemoryRepo, how: str) -> None:
    """``lang``'s preference went Chinese (1) -> English (2); undo the English."""
    assert repo.store.read(PATH).revision == 2
    if how == "memfs":
        repo.revert("HEAD", reason="the English was a mistake")
        assert repo.store.read(PATH).revision == 3  # a revert is a new revision
    else:
        git(repo.root, "revert", "--no-edit", "HEAD")
        assert repo.store.read(PATH).revision == 1  # git restores the old bytes; memfs counts on from history
    assert "Chinese" in repo.store.read(PATH).body


def _write(repo: MemoryRepo) -> None:
    repo.write(PATH, body="Release notes in Japanese.\n", force=True)


def _remember(repo: MemoryRepo) -> None:
    repo.remember(candidate("Release notes in Japanese from now on.", "conversation:C9#msg-1"))


def _retract(repo: MemoryRepo) -> None:
    repo.retract([PATH], reason="wrong")


def _forget(repo: MemoryRepo) -> None:
    repo.forget(PATH, reason="asked")


def _expire(repo: MemoryRepo) -> None:
    repo.write(PATH, fields={"expires": T}, force=True)
    repo.expire(now=T + dt.timedelta(days=1))


def _tool(repo: MemoryRepo) -> None:
    result = repo.tool({"command": "str_replace", "path": PATH, "old_str": "Chinese", "new_str": "German"})
    assert result.ok, result.output


def _delete_and_create(repo: MemoryRepo) -> None:
    repo.delete(PATH, force=True)
    repo.write(PATH, fields=PREFERENCE, body="Release notes in Korean.\n", force=True)


VERBS: dict[str, Callable[[MemoryRepo], None]] = {
    "write": _write, "remember": _remember, "retract": _retract, "forget": _forget, "expire": _expire,
    "tool": _tool, "delete+create": _delete_and_create,
}


def _numbers(repo: MemoryRepo, path: str) -> list[int | None]:
    """Revision numbers of the committed states of ``path``, oldest first, repeats of the same
    state collapsed (a reinforcement keeps its revision)."""
    out: list[int | None] = []
    for sha in reversed(git(repo.root, "log", "--format=%H", "--", path).split()):
        data = repo.store.git.show_file(sha, path)
        number = None if data is None else revisions.revision_in(data)
        if number is not None and (not out or out[-1] != number):
            out.append(number)
    return out


@pytest.mark.parametrize("how", ["memfs", "git"])
@pytest.mark.parametrize("verb", sorted(VERBS))
def test_after_a_revert_every_verb_writes_above_history(lang: MemoryRepo, how: str, verb: str) -> None:
    _english_then_reverted(lang, how)
    highest = lang.store.read(PATH).revision if how == "memfs" else 2
    VERBS[verb](lang)
    new = lang.store.read(PATH).revision
    assert new > highest, f"{verb} after a {how} revert wrote revision {new}"
    with pytest.raises(ConflictError, match="you had revision 2"):
        lang.write(PATH, body="a writer who only saw the English\n", expected_revision=2, force=True)
    numbers = _numbers(lang, PATH)
    repeated = [n for i, n in enumerate(numbers) if n is not None and n in numbers[:i]]
    if how == "memfs":
        assert numbers == sorted(numbers) and not repeated, numbers
    else:  # git's own revert put revision 1 back; everything memfs wrote after it is above 2
        assert numbers[:3] == [1, 2, 1] and numbers[3:] == sorted(numbers[3:]) and numbers[3] == 3, numbers


def test_the_demo_revert_then_remember_never_repeats_revision_two(tmp_path) -> None:  # type: ignore[no-untyped-def]
    demo = MemoryRepo.demo(tmp_path / "demo")
    repo = MemoryRepo.open(demo.root, actor="user:U5")
    rel = "prefs/p8-release-note-language.md"
    english = repo.store.git.log(rev="HEAD", path=repo.store.git_path(rel), limit=1)[0].sha
    repo.revert(english, reason="back to Chinese")
    memory = repo.store.read(rel)
    assert memory.revision == 3 and "中文" in memory.body
    repo.remember({"scope": memory.scope, "key": memory.key, "type": "preference", "source_kind": "user",
                   "source": "conversation:C5#msg-1", "body": "Write P8 release notes in English from now on."})
    assert repo.store.read(rel).revision == 4
    with pytest.raises(ConflictError):
        repo.write(rel, body="stale\n", expected_revision=2)
    assert [r.revision for r in repo.history(rel)] == [1, 2, 3, 4]


def test_a_deleted_memory_written_again_continues_above_its_history(repo: MemoryRepo) -> None:
    repo.write("facts/a.md", fields=FACT, body="one\n")
    repo.write("facts/a.md", body="two\n")
    repo.delete("facts/a.md")
    assert not repo.store.exists("facts/a.md")
    repo.write("facts/a.md", fields=FACT, body="three\n")
    assert repo.store.read("facts/a.md").revision == 3
    assert [r.revision for r in repo.history("facts/a.md")] == [1, 2, 3]


def test_the_cache_is_derived_state(repo: MemoryRepo) -> None:
    repo.write("facts/a.md", fields=FACT, body="one\n")
    repo.write("facts/a.md", body="two\n")
    git(repo.root, "revert", "--no-edit", "HEAD")
    cache = revisions.cache_path(repo.store.git.git_dir, repo.store.pathspec)
    cache.unlink(missing_ok=True)
    repo.write("facts/a.md", body="three\n")
    assert repo.store.read("facts/a.md").revision == 3 and cache.exists()
    cache.write_text("{not json")
    repo.write("facts/a.md", body="four\n")
    assert repo.store.read("facts/a.md").revision == 4


def test_revision_in_reads_the_frontmatter_only() -> None:
    assert revisions.revision_in(b"---\nid: a\nrevision: 7 # seven\n---\nrevision: 99\n") == 7
    assert revisions.revision_in(b"\xef\xbb\xbf---\r\nrevision: 2\r\n---\r\nx\r\n") == 2
    assert revisions.revision_in(b"---\nid: a\n---\nrevision: 99\n") is None
    assert revisions.revision_in(b"no frontmatter\nrevision: 3\n") is None


def test_head_is_read_from_loose_refs_packed_refs_and_detached_heads(repo: MemoryRepo) -> None:
    repo.write("facts/a.md", fields=FACT, body="one\n")
    assert repo.store.git.head() == git(repo.root, "rev-parse", "HEAD").strip()
    git(repo.root, "pack-refs", "--all")
    assert repo.store.git.head() == git(repo.root, "rev-parse", "HEAD").strip()
    git(repo.root, "checkout", "-q", "--detach")
    assert repo.store.git.head() == git(repo.root, "rev-parse", "HEAD").strip()
    repo.write("facts/a.md", body="two\n")
    assert repo.store.read("facts/a.md").revision == 2
    assert repo.store.git.head() == git(repo.root, "rev-parse", "HEAD").strip()
