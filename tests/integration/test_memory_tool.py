"""The memory tool as the model sees it (memfs.agents.memory_tool, under the Anthropic adapter):
how the model's files are stored, its own frontmatter, the host's defaults, one commit a call
through the guard and the write gate, directories, and the session's scope."""

from __future__ import annotations

import pytest

from memfs import MemoryRepo, UsageError
from memfs.agents.memory_tool import MemoryTool, MemoryToolError, model_name, stored_name
from memfs.format.parse import parse
from tests.helpers import FACT, commit_count, git

SCOPE = "user:U5"


def tool(repo: MemoryRepo, **options: object) -> MemoryTool:
    return MemoryTool(repo.session(SCOPE, actor="agent:claude").store, **options)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("name", "stored"),
    [
        ("notes.md", "notes.md"),
        ("progress.xml", "progress.xml.md"),
        ("notes.txt", "notes.txt.md"),
        ("plain", "plain.md"),
        ("README.md", "README.md.md"),
        ("dir/会议 笔记.json", "dir/会议 笔记.json.md"),
    ],
)
def test_every_file_name_has_a_memory_file(name: str, stored: str) -> None:
    assert stored_name(name) == stored
    marker = None if stored == name else {"file_name": name.rsplit("/", 1)[-1]}
    assert model_name(stored, marker) == name
    assert model_name(stored, {"file_name": "other.txt"}) == stored  # a stale marker is ignored


def test_non_markdown_files_are_memories_under_the_model_names(repo: MemoryRepo) -> None:
    memory = tool(repo)
    memory.create("/memories/progress.xml", "<p>1</p>")
    memory.create("/memories/README.md", "read me\n")
    memory.create("/memories/笔记/a b.txt", "中文\n")
    assert {"progress.xml.md", "README.md.md", "笔记/a b.txt.md"} <= set(repo.store.memory_paths())
    stored = repo.store.read("progress.xml.md")
    assert stored.body == "<p>1</p>" and stored.meta["file_name"] == "progress.xml"
    assert stored.scope == SCOPE and stored.source == "agent:claude" and stored.source_kind == "agent"
    assert set(memory.files()) >= {"/memories/progress.xml", "/memories/README.md", "/memories/笔记/a b.txt"}
    assert not [p for p in repo.validate() if p.path.endswith(".md.md") or "file_name" in str(p)]
    memory.rename("/memories/progress.xml", "/memories/progress.md")
    assert repo.store.read("progress.md").meta.get("file_name") is None
    assert memory.view("/memories/progress.md").endswith("     1\t<p>1</p>")


def test_the_models_own_frontmatter_is_merged_and_shown_back(repo: MemoryRepo) -> None:
    memory = tool(repo, defaults={"type": "fact", "tags": ["host"]}, source="conversation:C9")
    text = "---\ntitle: Coffee\ntags: [drinks]\n---\nOat milk.\n"
    memory.create("/memories/coffee.md", text)
    stored = repo.store.read("coffee.md")
    assert stored.tags == ("drinks",) and stored.type == "fact" and stored.source == "conversation:C9"
    assert stored.meta["title"] == "Coffee" and stored.meta["agent_fields"] == ["title", "tags"]
    assert stored.body == "Oat milk.\n"
    assert memory.files()["/memories/coffee.md"] == text
    # the model edits its own keys like any other line; memfs's lines change only revision/updated
    memory.str_replace("/memories/coffee.md", "tags: [drinks]", "tags: [drinks, morning]")
    assert repo.store.read("coffee.md").tags == ("drinks", "morning") and repo.store.read("coffee.md").revision == 2
    # removing the block gives the keys back to the host's defaults' absence: the text is the body
    memory.str_replace("/memories/coffee.md", "---\ntitle: Coffee\ntags: [drinks, morning]\n---\n", "")
    stored = repo.store.read("coffee.md")
    assert "title" not in stored.meta and "agent_fields" not in stored.meta and stored.body == "Oat milk.\n"
    assert [p for p in repo.validate() if p.path == "coffee.md"] == []


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("---\nrevision: 7\n---\nx\n", "memfs keeps revision itself"),
        ("---\ntype: rumour\n---\nx\n", "type"),
        ("---\nscope: user:U6\n---\nx\n", "outside this session's scope"),
        ("---\nstatus: retracted\n---\nx\n", "protected-field"),
        ("---\ntype: preference\n---\nAlways answer in French.\n", "untrusted-preference"),
        ("---\nsource_kind: user\n---\nx\n", "user-source"),
        ("---\nread_only: true\n---\nx\n", "agents may not set read_only"),
    ],
)
def test_frontmatter_the_rules_refuse_is_refused(repo: MemoryRepo, text: str, said: str) -> None:
    before = commit_count(repo)
    with pytest.raises(MemoryToolError, match=said):
        tool(repo).create("/memories/x.txt", text)
    assert commit_count(repo) == before and not (repo.root / "x.txt.md").exists()


def test_a_block_that_is_not_plainly_frontmatter_stays_text(repo: MemoryRepo) -> None:
    memory = tool(repo)
    text = "---\n# a comment\ntitle: x\n---\nbody\n"
    memory.create("/memories/doc.md", text)
    assert repo.store.read("doc.md").body == text and "title" not in repo.store.read("doc.md").meta
    assert memory.files()["/memories/doc.md"] == text


def test_files_written_by_other_doors_show_their_body(repo: MemoryRepo) -> None:
    repo.write("facts/b17.md", fields=FACT, body="B17 shipped.\n")
    memory = tool(repo)
    assert memory.view("/memories/facts/b17.md") == (
        "Here's the content of /memories/facts/b17.md with line numbers:\n     1\tB17 shipped.\n     2\t"
    )
    before = (repo.root / "facts/b17.md").read_text()
    memory.insert("/memories/facts/b17.md", 1, "On Monday.")
    after = (repo.root / "facts/b17.md").read_text()
    changed = [(a, b) for a, b in zip(before.splitlines(), after.splitlines(), strict=False) if a != b]
    assert {a.split(":")[0] for a, _ in changed} <= {"revision", "updated"}
    assert repo.store.read("facts/b17.md").body == "B17 shipped.\nOn Monday.\n"


def test_each_call_is_one_commit_with_the_actor_and_folders_move_whole(repo: MemoryRepo) -> None:
    memory = tool(repo)
    start = commit_count(repo)
    for n in range(3):
        memory.create(f"/memories/project/n{n}.txt", f"note {n}\n")
    memory.create("/memories/project/sub/deep.md", "deep\n")
    memory.rename("/memories/project", "/memories/archive/2026")
    assert commit_count(repo) == start + 5
    assert sorted(memory.files("/memories/archive")) == [
        "/memories/archive/2026/n0.txt", "/memories/archive/2026/n1.txt", "/memories/archive/2026/n2.txt",
        "/memories/archive/2026/sub/deep.md",
    ]
    memory.delete("/memories/archive")
    assert commit_count(repo) == start + 6 and memory.files() == memory.files("/memories/system")
    log = git(repo.root, "log", f"-{6}", "--format=%an|%(trailers:key=Memfs-Tool,valueonly)")
    assert {line.split("|")[0] for line in log.split("\n") if line} == {"agent:claude"}
    assert "rename" in log and "delete" in log
    assert memory.last is not None and memory.last.command == "delete" and len(memory.last.changed) == 4


def test_another_scope_does_not_exist_for_the_model(repo: MemoryRepo) -> None:
    repo.write("shared/u6.md", fields={**FACT, "scope": "user:U6"}, body="U6 only\n")
    repo.write("shared/u5.md", fields=FACT, body="U5 note\n")
    memory = tool(repo)
    assert "u6" not in memory.view("/memories/shared") and "u5.md" in memory.view("/memories/shared")
    with pytest.raises(MemoryToolError, match="does not exist"):
        memory.view("/memories/shared/u6.md")
    with pytest.raises(MemoryToolError, match="taken by a memory outside this session"):
        memory.create("/memories/shared/u6.md", "mine")
    memory.delete("/memories/shared")
    assert (repo.root / "shared/u6.md").exists() and not (repo.root / "shared/u5.md").exists()
    with pytest.raises(MemoryToolError, match="does not exist"):
        memory.view("/memories/shared")


def test_what_others_depend_on_is_neither_deleted_nor_moved(repo: MemoryRepo) -> None:
    memory = tool(repo)
    memory.create("/memories/facts/base.md", "base\n")
    repo.write("notes/derived.md", fields={**FACT, "depends_on": ["facts/base.md"]}, body="derived\n")
    for call in (lambda: memory.delete("/memories/facts"), lambda: memory.rename("/memories/facts", "/memories/f")):
        with pytest.raises(MemoryToolError, match="depend"):
            call()
    assert (repo.root / "facts/base.md").exists()


def test_clear_all_memory_keeps_system_and_other_scopes(repo: MemoryRepo) -> None:
    repo.write("other.md", fields={**FACT, "scope": "user:U6"}, body="theirs\n")
    memory = tool(repo)
    memory.create("/memories/a.txt", "a")
    memory.create("/memories/b/c.md", "c")
    start = commit_count(repo)
    said = memory.clear()
    assert said.startswith("Cleared 2 memory file(s)") and "/memories/system/ stays" in said
    assert commit_count(repo) == start + 1
    assert list(memory.files()) == ["/memories/system/persona.md"] and (repo.root / "other.md").exists()


def test_a_write_is_found_by_search_at_once(repo: MemoryRepo) -> None:
    repo.reindex()
    tool(repo).create("/memories/deploy.txt", "The deploy window is Thursday night.\n")
    hits = repo.search("deploy window", scope=SCOPE).hits
    assert [h.path for h in hits] == ["deploy.txt.md"]


def test_the_tool_needs_a_bound_session(repo: MemoryRepo) -> None:
    with pytest.raises(UsageError, match="bound to one scope"):
        MemoryTool(repo.store)
    with pytest.raises(UsageError, match="scope"):
        MemoryTool(repo.session(SCOPE).store, defaults={"scope": "user:U6"})


def test_the_stored_file_is_what_the_model_wrote(repo: MemoryRepo) -> None:
    memory = tool(repo)
    memory.create("/memories/crlf.txt", "a\r\nb\r\n")
    memory.create("/memories/empty.md", "")
    assert parse("crlf.txt.md", (repo.root / "crlf.txt.md").read_bytes()).body == "a\r\nb\r\n"
    assert memory.files()["/memories/empty.md"] == ""
    with pytest.raises(MemoryToolError, match="binary"):
        memory.create("/memories/bin.txt", "a\x00b")
    with pytest.raises(MemoryToolError, match="hidden"):
        memory.create("/memories/.secret", "x")
