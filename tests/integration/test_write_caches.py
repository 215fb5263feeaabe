"""The write-path cache (``.memfs/catalog.json``) answers exactly as ``git grep`` does.

Random sequences of hand edits (valid memories, broken YAML, an unreadable ``depends_on``, a
body line that looks like a key), deletions, memfs writes, commits, resets, checkouts of older
files, ``.gitignore`` and ``.memfsignore`` edits, a corrupted or deleted cache file and a fresh
process: after every step, the id checks, ``remember``'s related memories and the lineage graph
are the same with the cache as without it. Deterministic tests pin each way a cache could go
stale, and that no ``git grep`` runs when the cache can be used.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memfs import MemoryRepo
from memfs.errors import MemfsError
from memfs.ops.remember import _related_memories
from memfs.ops.retract import load_graph
from memfs.policy.candidate import from_mapping
from memfs.store import catalog, gitcli
from tests.helpers import ACTOR, PERSON, commit_all, copy_repo, git, write_file

FILES = 5
IDS = ("alpha", "beta", "facts/f0")
KEYS = ("k0", "k1")
SCOPES = ("user:U5", "project:P")


def _text(i: int, variant: int) -> str:
    """One of a few shapes of memory file, chosen by ``variant``."""
    mid, key, scope = IDS[variant % 3], KEYS[variant % 2], SCOPES[(variant // 2) % 2]
    deps = [f"facts/f{j}.md" for j in range((variant // 3) % 3) if j != i]
    dep_line = f"depends_on: [{', '.join(deps)}]\n" if deps else ""
    shape = (variant // 9) % 5
    if shape == 1:
        return "---\nid: [unclosed\nkey: k0\n---\nbroken\n"
    if shape == 2:
        return f"---\nid: {mid}\ntype: fact\nscope: {scope}\nsource: test:x\ndepends_on: [unclosed\n---\nbody\n"
    if shape == 3:
        return f"---\ntype: fact\nscope: {scope}\nsource: test:x\n---\nkey: {key}\nid: {mid}\n"
    version = f"version: v{variant % 2}\n" if shape == 4 else ""
    if shape == 4 and deps:
        dep_line = "depends_on:\n" + "".join(f'  - "[[{d[:-3]}]]"\n' for d in deps)
    return (f"---\nid: {mid}\ntype: fact\nscope: {scope}\nkey: {key}\n{version}source: test:{variant}\n"
            f"{dep_line}---\nvalue {variant}\n")


def _answers(repo: MemoryRepo) -> dict[str, Any]:
    """Everything the cache replaces ``git grep`` for, as the callers use it."""
    ids = {mid: repo.store.id_users(mid) for mid in IDS}
    related: dict[str, list[str]] = {}
    with repo.store.transaction("probe") as tx:
        for key in KEYS:
            found = _related_memories(repo.store, tx, from_mapping({"scope": "user:U5", "key": key, "body": "x"}))
            related["key " + key] = sorted(m.path for m in found if m.key == key)
        for scope in SCOPES:
            found = _related_memories(repo.store, tx, from_mapping({"scope": scope, "body": "x"}))
            related["scope " + scope] = sorted(m.path for m in found if m.scope == scope)
    graph = load_graph(repo.store)
    dependents = {f"facts/f{i}.md": repo.store.dependents(f"facts/f{i}.md") for i in range(FILES)}
    return {
        "dependents": dependents,
        "ids": ids,
        "related": related,
        "parents": {k: tuple(v) for k, v in sorted(graph.parents.items())},
        "children": dict(sorted(graph.children.items())),
        "broken": sorted(str(p) for p in graph.broken),
        "raw": sorted(graph.raw_broken),
    }


def _same_with_and_without(repo: MemoryRepo) -> None:
    repo.store.use_catalog = False
    expected = _answers(repo)
    repo.store.use_catalog = True
    assert _answers(repo) == expected


def _step(repo: MemoryRepo, op: str, i: int, variant: int) -> None:
    root = repo.root
    rel = f"facts/f{i}.md"
    if op == "hand":
        write_file(root / rel, _text(i, variant))
    elif op == "rm":
        with contextlib.suppress(FileNotFoundError):
            (root / rel).unlink()
    elif op == "commit":
        git(root, "add", "-A")
        git(root, *PERSON, "commit", "-q", "--allow-empty", "-m", "by hand")
    elif op == "memfs":
        with contextlib.suppress(MemfsError):
            repo.write(rel, fields={"type": "fact", "scope": SCOPES[variant % 2], "key": KEYS[variant % 2],
                                    "id": IDS[variant % 3], "source": "test:w"}, body=f"written {variant}\n",
                       force=True)
    elif op == "reset" and int(git(root, "rev-list", "--count", "HEAD")) > 1:
        git(root, "reset", "-q", "--hard", "HEAD~1")
    elif op == "checkout" and int(git(root, "rev-list", "--count", "HEAD")) > 1:
        with contextlib.suppress(Exception):
            git(root, "checkout", "-q", "HEAD~1", "--", "facts")
    elif op == "gitignore":
        with (root / ".gitignore").open("a", encoding="utf-8") as handle:
            handle.write(f"{rel}\n")
    elif op == "memfsignore":
        write_file(root / ".memfsignore", f"facts/f{i}.md\n" if variant % 2 else "")
    elif op == "corrupt":
        write_file(root / ".memfs" / catalog.CACHE_FILE, "{not json" if variant % 2 else '{"format": "catalog1"}')
    elif op == "drop":
        shutil.rmtree(root / ".memfs", ignore_errors=True)
    elif op == "process":
        catalog._memo.clear()
    elif op == "torn journal":
        with (root / ".memfs" / catalog.JOURNAL_FILE).open("ab") as handle:
            handle.write(b'{"base":"' if variant % 2 else b'{"base":"other","head":null,"listed":[],"files":{}}\n')
        catalog._memo.clear()


OPS = ("hand", "hand", "hand", "rm", "commit", "commit", "memfs", "reset", "checkout", "gitignore",
       "memfsignore", "corrupt", "drop", "process", "process", "torn journal")


@settings(max_examples=12, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from(OPS), st.integers(0, FILES - 1), st.integers(0, 44)),
                min_size=1, max_size=10))
def test_the_cache_answers_as_git_grep_does(template_repo: Path, steps: list[tuple[str, int, int]]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        repo = MemoryRepo.open(copy_repo(template_repo, Path(tmp) / "mem"), ACTOR)
        (repo.root / "facts").mkdir()
        for op, i, variant in steps:
            _step(repo, op, i, variant)
            _same_with_and_without(repo)


# --- each way the cache could go stale -----------------------------------------------------------
def _put(repo: MemoryRepo, rel: str, text: str) -> None:
    write_file(repo.root / rel, text)


def _users(repo: MemoryRepo, mid: str) -> list[str]:
    return repo.store.id_users(mid)


def test_a_same_size_edit_right_after_the_cache_read_it_is_seen(repo: MemoryRepo) -> None:
    _put(repo, "facts/a.md", _text(0, 0))
    commit_all(repo.root, "a")
    assert _users(repo, "alpha") == ["facts/a.md"]
    before = os.stat(repo.root / "facts/a.md")
    _put(repo, "facts/a.md", _text(0, 0).replace("alpha", "gamma"))
    os.utime(repo.root / "facts/a.md", ns=(before.st_atime_ns, before.st_mtime_ns))
    assert _users(repo, "alpha") == []
    assert _users(repo, "gamma") == ["facts/a.md"]


def test_a_checkout_of_another_branch_is_seen(repo: MemoryRepo) -> None:
    _put(repo, "facts/a.md", _text(0, 0))
    commit_all(repo.root, "a")
    git(repo.root, "checkout", "-q", "-b", "other")
    _put(repo, "facts/b.md", _text(1, 1))
    commit_all(repo.root, "b")
    assert _users(repo, "beta") == ["facts/b.md"]
    git(repo.root, "checkout", "-q", "main")
    assert _users(repo, "beta") == []
    assert _users(repo, "alpha") == ["facts/a.md"]


def test_a_corrupt_or_foreign_cache_file_is_rebuilt_never_trusted(repo: MemoryRepo) -> None:
    _put(repo, "facts/a.md", _text(0, 0))
    assert _users(repo, "alpha") == ["facts/a.md"]
    cache = repo.store.cache_dir / catalog.CACHE_FILE
    raw = cache.read_text(encoding="utf-8").replace("alpha", "beta")
    catalog._memo.clear()
    cache.write_text(raw.replace('"catalog1"', '"catalog0"'), encoding="utf-8")
    assert _users(repo, "beta") == []
    catalog._memo.clear()
    cache.write_text("\0garbage", encoding="utf-8")
    assert _users(repo, "alpha") == ["facts/a.md"]


def test_untracked_ignored_and_memfsignored_files_count_as_git_grep_counts_them(repo: MemoryRepo) -> None:
    _put(repo, "facts/a.md", _text(0, 0))
    _put(repo, "drafts/b.md", _text(1, 1))
    assert _users(repo, "beta") == ["drafts/b.md"]
    write_file(repo.root / ".gitignore", (repo.root / ".gitignore").read_text(encoding="utf-8") + "drafts/\n")
    assert _users(repo, "beta") == []
    write_file(repo.root / ".memfsignore", "facts/\n")
    assert _users(repo, "alpha") == []


def test_remember_and_retract_run_no_git_grep_when_the_cache_answers(
    repo: MemoryRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo.remember({"scope": "user:U5", "key": "k0", "type": "fact", "source": "test:1", "body": "first"})
    root = repo.remember({"scope": "user:U5", "key": "k1", "type": "fact", "source": "test:2", "body": "root"})
    _put(repo, "facts/child.md", "---\ntype: fact\nscope: user:U5\nsource: test:3\n"
         f"depends_on: [{root.paths[0]}]\n---\nchild\n")
    commit_all(repo.root, "child")

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("git grep ran although the cache could answer")

    monkeypatch.setattr(gitcli.Git, "grep_files", refuse)
    monkeypatch.setattr(gitcli.Git, "grep_lines", refuse)
    repo.remember({"scope": "user:U5", "key": "k2", "type": "fact", "source": "test:4", "body": "new"})
    result = repo.retract([root.paths[0]], reason="wrong")
    assert "facts/child.md" in result.plan.closure


def test_without_an_answer_from_git_status_the_callers_grep(repo: MemoryRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    _put(repo, "facts/a.md", _text(0, 0))
    monkeypatch.setattr(gitcli.Git, "probe", lambda self, pathspec: None)
    assert repo.store.catalog() is None
    assert _users(repo, "alpha") == ["facts/a.md"]


def test_a_refresh_that_rechecked_many_files_is_saved_for_the_next_process(repo: MemoryRepo) -> None:
    many = catalog.SAVE_AFTER_RECHECKS + 1
    for i in range(many):
        _put(repo, f"facts/m{i}.md", _text(i, 0).replace("alpha", f"m{i}"))
    commit_all(repo.root, "many")
    assert _users(repo, "m0") == ["facts/m0.md"]
    saved = _on_disk(repo)
    for i in range(many):
        _put(repo, f"facts/m{i}.md", _text(i, 0).replace("alpha", f"n{i}"))
    commit_all(repo.root, "renamed ids")
    catalog._memo.clear()
    assert _users(repo, "n0") == ["facts/m0.md"]
    again = _on_disk(repo)
    assert again != saved and git(repo.root, "rev-parse", "HEAD").strip() in again.decode()


def _on_disk(repo: MemoryRepo) -> bytes:
    journal = repo.store.cache_dir / catalog.JOURNAL_FILE
    whole = (repo.store.cache_dir / catalog.CACHE_FILE).read_bytes()
    return whole + (journal.read_bytes() if journal.exists() else b"")


def test_a_save_appends_the_changed_entries_and_replays_to_the_same_catalog(repo: MemoryRepo) -> None:
    """The journal holds only what changed; a process reading the whole file and the journal gets
    the catalog the writing process holds; a journal past its share is folded into a whole file."""
    for i in range(3):
        _put(repo, f"facts/j{i}.md", _text(i, 0).replace("alpha", f"j{i}"))
    commit_all(repo.root, "three")
    assert _users(repo, "j0") == ["facts/j0.md"]
    whole = (repo.store.cache_dir / catalog.CACHE_FILE).read_bytes()
    _put(repo, "facts/j1.md", _text(1, 0).replace("alpha", "jj"))
    assert _users(repo, "jj") == ["facts/j1.md"]
    journal = (repo.store.cache_dir / catalog.JOURNAL_FILE).read_bytes()
    assert (repo.store.cache_dir / catalog.CACHE_FILE).read_bytes() == whole and b"facts/j1.md" in journal
    assert b"facts/j0.md" not in journal and b"facts/j2.md" not in journal
    held = catalog._memo[str(repo.store.cache_dir / catalog.CACHE_FILE)][1]
    catalog._memo.clear()
    _, replayed = catalog._load(repo.store.cache_dir / catalog.CACHE_FILE)
    assert replayed is not None and replayed.files == held.files
    assert (replayed.head, replayed.listed, replayed.snapshot_ns) == (held.head, held.listed, held.snapshot_ns)
    replayed.disk.journal_bytes = catalog.COMPACT_MIN
    _put(repo, "facts/j2.md", _text(2, 0).replace("alpha", "j2b"))
    assert _users(repo, "j2b") == ["facts/j2.md"]
    assert not (repo.store.cache_dir / catalog.JOURNAL_FILE).exists()
