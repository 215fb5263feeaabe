"""The agents' file tools: confinement, exact edits, one commit per call, clear refusals."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from memfs import MemoryRepo
from memfs.agents.tools import MAX_FILE_BYTES, ToolContext, handle
from tests.helpers import Prepared, commit_all, commit_count, git

CTX = ToolContext(actor="agent:writer", scope="user:U5")

FACT = """---
id: b17
type: fact
scope: user:U5   # keep this comment
source: conversation:C1#msg-3
status: active
description: B17 status
---
B17 shipped on Monday.
It was tested twice.
"""


def call(repo: MemoryRepo, **request):
    return handle(repo.store, request, CTX)


def snapshot(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".git" not in p.parts
    }


def _seed(repo: MemoryRepo) -> None:
    assert call(repo, command="create", path="/memories/facts/b17.md", file_text=FACT, reason="seed").ok


@pytest.fixture
def fact(prepared: Prepared) -> MemoryRepo:
    """``facts/b17.md`` created through the tool, as agent:writer."""
    return prepared("tool-fact", _seed)


# --- confinement: a corpus of escape attempts -------------------------------------------------
ESCAPES = [
    "../outside.md",
    "../../etc/passwd",
    "facts/../../outside.md",
    "/etc/passwd",
    "/tmp/outside.md",
    "/memories/../outside.md",
    "/memories/../../etc/passwd",
    "%2e%2e/outside.md",
    "%2e%2e%2foutside.md",
    "..%2foutside.md",
    "%252e%252e%252foutside.md",
    "facts/%2e%2e/%2e%2e/outside.md",
    "facts/b17.md\x00.txt",
    "..\\outside.md",
    "facts\\..\\..\\outside.md",
    "~/outside.md",
    ".git/config",
    ".git/hooks/pre-commit.md",
    ".memfs/index.md",
    "facts/../.git/HEAD.md",
    "link/escape.md",
    "linkfile.md",
    "%00.md",
]


@pytest.fixture
def trap(repo: MemoryRepo, tmp_path: Path) -> MemoryRepo:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "escape.md").write_text(FACT)
    os.symlink(outside, repo.root / "link")
    os.symlink(outside / "escape.md", repo.root / "linkfile.md")
    commit_all(repo.root, "symlinks")
    return repo


@pytest.mark.parametrize("command", ["view", "create", "str_replace", "insert", "delete", "update_description"])
def test_escape_attempts_are_refused_and_change_nothing(trap: MemoryRepo, tmp_path: Path, command: str):
    before_inside, before_outside = snapshot(trap.root), snapshot(tmp_path / "outside")
    head = commit_count(trap)
    for path in ESCAPES:
        request = {
            "command": command,
            "path": path,
            "file_text": "pwned\n",
            "old_str": "shipped",
            "new_str": "pwned",
            "insert_line": 0,
            "insert_text": "pwned",
            "description": "pwned",
        }
        result = handle(trap.store, request, CTX)
        assert not result.ok, (path, result.output)
        assert result.error and result.output.startswith("Error: "), path
        assert snapshot(trap.root) == before_inside, path
        assert snapshot(tmp_path / "outside") == before_outside, path
        assert commit_count(trap) == head, path


def test_escape_corpus_is_big_enough():
    assert len(ESCAPES) >= 15


def test_rename_to_an_escape_is_refused(trap: MemoryRepo, tmp_path: Path):
    assert call(trap, command="create", path="facts/b17.md", file_text=FACT).ok
    before = snapshot(tmp_path / "outside")
    for path in ESCAPES:
        result = call(trap, command="rename", old_path="facts/b17.md", new_path=path)
        assert not result.ok, (path, result.output)
        assert (trap.root / "facts/b17.md").exists() and snapshot(tmp_path / "outside") == before, path
        result = call(trap, command="rename", old_path=path, new_path="facts/stolen.md")
        assert not result.ok and not (trap.root / "facts/stolen.md").exists(), path


# --- the commands -----------------------------------------------------------------------------
def test_create_commits_with_reason_and_agent_author(fact: MemoryRepo):
    author = git(fact.root, "log", "-1", "--format=%an|%s|%b")
    assert author.startswith("agent:writer|memfs: create facts/b17.md")
    assert "Reason: seed" in author and "Memfs-Tool: create" in author
    text = (fact.root / "facts/b17.md").read_text()
    assert "scope: user:U5   # keep this comment\n" in text
    assert "revision: 1\n" in text and "updated: " in text and "created: " in text


def test_create_from_bare_body_uses_host_defaults(repo: MemoryRepo):
    result = call(repo, command="create", path="notes/idea.md", file_text="Try BM25F.", description="an idea")
    assert result.ok, result.output
    memory = repo.store.read("notes/idea.md")
    assert (memory.scope, memory.source, memory.type, memory.description) == (
        "user:U5",
        "agent:writer",
        "note",
        "an idea",
    )


def test_create_without_scope_says_how(repo: MemoryRepo):
    request = {"command": "create", "path": "notes/x.md", "file_text": "hi"}
    result = handle(repo.store, request, ToolContext(actor="agent:a"))
    assert not result.ok and "scope" in result.output
    assert not (repo.root / "notes/x.md").exists()


def test_create_refuses_to_overwrite_unless_asked(fact: MemoryRepo):
    result = call(fact, command="create", path="facts/b17.md", file_text="new body")
    assert not result.ok and "already exists" in result.output
    result = call(fact, command="create", path="facts/b17.md", file_text="new body\n", overwrite=True)
    assert result.ok and result.revision == 2
    memory = fact.store.read("facts/b17.md")
    assert memory.body == "new body\n" and memory.description == "B17 status"


def test_view_file_and_directory(fact: MemoryRepo):
    shown = call(fact, command="view", path="/memories/facts/b17.md")
    assert shown.ok and "     1\t---" in shown.output and "B17 shipped" in shown.output
    assert shown.revision == 1
    # lines count the text the agent sent (FACT: 8 frontmatter lines, then the body), not memfs's own fields
    part = call(fact, command="view", path="facts/b17.md", view_range=[9, -1])
    assert part.output.splitlines()[0].endswith("B17 shipped on Monday.")
    listing = call(fact, command="view", path="/memories")
    assert "- facts/b17.md: B17 status" in listing.output
    assert "system/persona.md" in listing.output
    sub = call(fact, command="view", path="facts")
    assert "system/" not in sub.output and "(1 memories)" in sub.output


def test_a_listing_reads_only_its_folder_and_parses_only_what_it_shows(
    fact: MemoryRepo, monkeypatch: pytest.MonkeyPatch
):
    from memfs.agents import tools
    from memfs.store import paths

    for i in range(5):
        (fact.root / "notes").mkdir(exist_ok=True)
        (fact.root / f"notes/n{i}.md").write_text((fact.root / "facts/b17.md").read_text().replace("b17", f"n{i}"))
    read: list[str] = []
    parsed: list[str] = []
    reading, loading = paths.read_file, type(fact.store).load
    monkeypatch.setattr(paths, "read_file", lambda root, rel: read.append(rel) or reading(root, rel))
    monkeypatch.setattr(type(fact.store), "load", lambda self, rel: parsed.append(rel) or loading(self, rel))
    monkeypatch.setattr(tools, "MAX_LISTING", 2)
    listing = call(fact, command="view", path="notes")
    assert "(5 memories)" in listing.output and "... and 3 more" in listing.output
    assert sorted(rel for rel in set(read) if rel.endswith(".md")) == [f"notes/n{i}.md" for i in range(5)]
    assert parsed == ["notes/n0.md", "notes/n1.md"]


def test_str_replace_body_keeps_frontmatter_bytes(fact: MemoryRepo):
    before = (fact.root / "facts/b17.md").read_text()
    result = call(fact, command="str_replace", path="facts/b17.md", old_str="Monday", new_str="Tuesday", reason="typo")
    assert result.ok and result.revision == 2
    after = (fact.root / "facts/b17.md").read_text()
    changed = [(a, b) for a, b in zip(before.splitlines(), after.splitlines(), strict=True) if a != b]
    assert {a.split(":")[0] for a, _ in changed} <= {"revision", "updated", "B17 shipped on Monday."}
    assert {"revision", "B17 shipped on Monday."} <= {a.split(":")[0] for a, _ in changed}
    assert "Reason: typo" in git(fact.root, "log", "-1", "--format=%b")


def test_str_replace_needs_exactly_one_match(fact: MemoryRepo):
    head = commit_count(fact)
    none = call(fact, command="str_replace", path="facts/b17.md", old_str="Friday", new_str="x")
    assert not none.ok and "no match" in none.output
    assert call(fact, command="insert", path="facts/b17.md", insert_line=10, insert_text="shipped again").ok
    many = call(fact, command="str_replace", path="facts/b17.md", old_str="shipped", new_str="x")
    assert not many.ok and "2 matches" in many.output
    assert commit_count(fact) == head + 1


def test_frontmatter_text_edit_is_validated(fact: MemoryRepo):
    before = (fact.root / "facts/b17.md").read_bytes()
    bad = call(fact, command="str_replace", path="facts/b17.md", old_str="type: fact", new_str="type: rumour")
    assert not bad.ok and "type" in bad.output
    broken = call(fact, command="str_replace", path="facts/b17.md", old_str="---\nB17", new_str="B17")
    assert not broken.ok
    assert (fact.root / "facts/b17.md").read_bytes() == before
    good = call(fact, command="str_replace", path="facts/b17.md", old_str="B17 status", new_str="B17 release status")
    assert good.ok and good.revision == 2
    text = (fact.root / "facts/b17.md").read_text()
    assert "description: B17 release status\n" in text and "# keep this comment" in text


def test_insert_at_top_of_body_and_end(fact: MemoryRepo):
    assert call(fact, command="insert", path="facts/b17.md", insert_line=10, insert_text="Line three.").ok
    assert fact.store.read("facts/b17.md").body.endswith("It was tested twice.\nLine three.\n")
    bad = call(fact, command="insert", path="facts/b17.md", insert_line=99, insert_text="x")
    assert not bad.ok and "outside" in bad.output


def test_delete_and_rename(fact: MemoryRepo):
    renamed = call(fact, command="rename", old_path="facts/b17.md", new_path="facts/b17-release.md", reason="clearer")
    assert renamed.ok, renamed.output
    assert not (fact.root / "facts/b17.md").exists() and (fact.root / "facts/b17-release.md").exists()
    assert "R100" in git(fact.root, "show", "-M", "--name-status", "--format=", "HEAD")
    deleted = call(fact, command="delete", path="facts/b17-release.md")
    assert deleted.ok and not (fact.root / "facts/b17-release.md").exists()
    assert not call(fact, command="delete", path="facts").ok


@pytest.mark.parametrize("rel", ["笔记/会议.md", "notes/a b.md", "über.md"])
def test_names_in_any_script_through_the_tools(repo: MemoryRepo, rel: str):
    created = call(repo, command="create", path=f"/memories/{rel}", file_text="会议纪要: ship on Friday", reason="n")
    assert created.ok and created.path == rel, created.output
    memory = repo.store.read(rel)
    assert memory.id == rel[:-3] and memory.scope == "user:U5" and repo.validate() == []
    assert f"- {rel}: 会议纪要: ship on Friday" in call(repo, command="view", path="/memories").output
    assert call(repo, command="str_replace", path=rel, old_str="Friday", new_str="Monday").ok
    assert [h.path for h in repo.search("会议纪要 Monday", scope="user:U5").hits] == [rel]
    moved = rel.replace(".md", " 2.md")
    renamed = call(repo, command="rename", old_path=rel, new_path=moved, reason="clearer")
    assert renamed.ok and renamed.path == moved, renamed.output
    assert "R100" in git(repo.root, "show", "-M", "--name-status", "--format=", "HEAD")
    assert [h.path for h in repo.search("会议纪要", scope="user:U5").hits] == [moved]
    repo.revert("HEAD", reason="the old name was fine")
    assert repo.store.read(rel).body.startswith("会议纪要: ship on Monday") and not (repo.root / moved).exists()
    assert call(repo, command="delete", path=rel).ok and not (repo.root / rel).exists()


@pytest.mark.parametrize("path", ["notes/a\x07.md", "notes/x .md", "notes./x.md", "notes/\u202egpj.md"])
def test_tools_refuse_names_no_file_system_can_hold(repo: MemoryRepo, path: str):
    head = commit_count(repo)
    result = call(repo, command="create", path=path, file_text="x")
    assert not result.ok and result.error_type == "PathError" and commit_count(repo) == head


def test_rename_refused_while_others_depend(fact: MemoryRepo):
    derived = FACT.replace("id: b17", "id: d").replace("description: B17 status", "depends_on: [facts/b17.md]")
    assert call(fact, command="create", path="facts/derived.md", file_text=derived).ok
    result = call(fact, command="rename", old_path="facts/b17.md", new_path="facts/other.md")
    assert not result.ok and "depend" in result.output
    assert (fact.root / "facts/b17.md").exists()


def test_update_description(fact: MemoryRepo):
    result = call(fact, command="update_description", path="facts/b17.md", description="B17 shipped")
    assert result.ok and fact.store.read("facts/b17.md").description == "B17 shipped"
    assert not call(fact, command="update_description", path="facts/b17.md", description="a\nb").ok


def test_read_only_files_are_refused(repo: MemoryRepo):
    target = repo.root / "system/persona.md"
    before = target.read_bytes()
    head = commit_count(repo)
    for request in (
        {"command": "str_replace", "path": "system/persona.md", "old_str": "long-term", "new_str": "short-term"},
        {"command": "insert", "path": "system/persona.md", "insert_line": 0, "insert_text": "x"},
        {"command": "delete", "path": "system/persona.md"},
        {"command": "rename", "old_path": "system/persona.md", "new_path": "system/p.md"},
        {"command": "update_description", "path": "system/persona.md", "description": "x"},
        {"command": "create", "path": "system/persona.md", "file_text": "x", "overwrite": True},
    ):
        result = handle(repo.store, request, CTX)
        assert not result.ok and "read_only" in result.output, request
    assert target.read_bytes() == before and commit_count(repo) == head


def test_agents_may_not_toggle_read_only(fact: MemoryRepo):
    result = call(
        fact,
        command="str_replace",
        path="facts/b17.md",
        old_str="status: active",
        new_str="status: active\nread_only: true",
    )
    assert not result.ok and "read_only" in result.output
    new = call(fact, command="create", path="notes/n.md", file_text="x", fields={"read_only": True})
    assert not new.ok


def test_committed_read_only_wins_over_working_copy(repo: MemoryRepo):
    target = repo.root / "system/persona.md"
    target.write_text(target.read_text().replace("read_only: true", "read_only: false"))
    result = call(repo, command="insert", path="system/persona.md", insert_line=0, insert_text="x")
    assert not result.ok and "read_only" in result.output


# --- bad content ------------------------------------------------------------------------------
def test_oversized_binary_and_surrogate_content_is_refused(fact: MemoryRepo):
    before, head = snapshot(fact.root), commit_count(fact)
    cases = [
        {"command": "create", "path": "notes/big.md", "file_text": "x" * (MAX_FILE_BYTES + 1)},
        {"command": "create", "path": "notes/bin.md", "file_text": "PNG\x00\x01\x02"},
        {"command": "create", "path": "notes/sur.md", "file_text": "bad \ud800 text"},
        {"command": "str_replace", "path": "facts/b17.md", "old_str": "Monday", "new_str": "y" * MAX_FILE_BYTES},
        {"command": "insert", "path": "facts/b17.md", "insert_line": 1, "insert_text": "\x1b[31m"},
        {"command": "create", "path": "notes/x.md", "file_text": 42},
        {"command": "nuke", "path": "notes/x.md"},
        {"command": "str_replace", "path": "facts/b17.md", "old_str": "", "new_str": "x"},
    ]
    for request in cases:
        result = handle(fact.store, request, CTX)
        assert not result.ok, request["command"]
    assert snapshot(fact.root) == before and commit_count(fact) == head


def test_invalid_utf8_file_on_disk_is_refused_not_rewritten(fact: MemoryRepo):
    target = fact.root / "facts/b17.md"
    target.write_bytes(FACT.encode().replace(b"Monday", b"Mon\xffday"))
    before = target.read_bytes()
    assert "not UTF-8" in call(fact, command="view", path="facts/b17.md").output
    result = call(fact, command="str_replace", path="facts/b17.md", old_str="twice", new_str="once")
    assert not result.ok and "not UTF-8" in result.output
    assert target.read_bytes() == before


def test_bad_requests(repo: MemoryRepo):
    assert not handle(repo.store, ["view"], CTX).ok  # type: ignore[arg-type]
    assert "'path' is required" in handle(repo.store, {"command": "create"}, CTX).output
    assert not handle(repo.store, {"command": "view", "path": "system/persona.md", "view_range": [5]}, CTX).ok
