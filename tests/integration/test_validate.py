"""Every validation case the issue lists, each triggered by a real file in a repository."""

from __future__ import annotations

import pytest

from memfs import MemoryRepo
from tests.helpers import VALID, raw_memory, write_file

CASES = [
    # (file content, field, words in the message)
    (raw_memory(VALID.format(id="a") + "updated: yesterday\n"), "updated", "not an ISO 8601 time"),
    (raw_memory(VALID.format(id="a") + "expires: 2026-13-45T00:00:00Z\n"), "expires", "not an ISO 8601 time"),
    (raw_memory(VALID.format(id="a") + "confidence: .nan\n"), "confidence", "outside 0..1"),
    (raw_memory(VALID.format(id="a") + "confidence: .inf\n"), "confidence", "outside 0..1"),
    (raw_memory(VALID.format(id="a") + "confidence: 1.5\n"), "confidence", "outside 0..1"),
    (raw_memory(VALID.format(id="a") + "confidence: high\n"), "confidence", "must be a number"),
    (raw_memory(VALID.format(id="a") + "revision: 0\n"), "revision", "whole number"),
    (raw_memory(VALID.format(id="a").replace("status: active", "status: archived")), "status", "unknown value"),
    (raw_memory(VALID.format(id="a").replace("type: fact", "type: factoid")), "type", "unknown value"),
    (raw_memory(VALID.format(id="a") + "source_kind: robot\n"), "source_kind", "unknown value"),
    (raw_memory(VALID.format(id="a").replace("user:U5", '"user: U5"')), "scope", "segment"),
    (raw_memory(VALID.format(id="a").replace("user:U5", "user:U5//p")), "scope", "empty"),
    (raw_memory(VALID.format(id="a").replace("user:U5", "../etc")), "scope", "relative segment"),
    (raw_memory(VALID.format(id="a") + "depends_on: facts/b.md\n"), "depends_on", "must be a list"),
    (raw_memory(VALID.format(id="a") + "depends_on: [../outside.md]\n"), "depends_on", "outside the memory repository"),
    (raw_memory(VALID.format(id="a") + "depends_on: [/etc/passwd]\n"), "depends_on", "absolute"),
    (raw_memory(VALID.format(id="a") + "depends_on: [missing.md]\n"), "depends_on", "does not exist"),
    (raw_memory(VALID.format(id="a") + "depends_on: [facts/a.md]\n"), "depends_on", "this memory itself"),
    (raw_memory(VALID.format(id="a").replace("source: tool:ci\n", "")), "source", "no source"),
    (raw_memory(VALID.format(id="a") + "version: 1.10\n"), "version", "must be a string"),
    (raw_memory(VALID.format(id="a") + "version: 010\n"), "version", "must be a string"),
    (raw_memory(VALID.format(id="a").replace("id: a", "id: ' a'")), "id", "begins or ends with a space"),
    (raw_memory(VALID.format(id="a").replace("id: a", 'id: "a\\u0007b"')), "id", "control character"),
    (raw_memory(VALID.format(id="a") + "tags: writing\n"), "tags", "list of strings"),
    (raw_memory(VALID.format(id="a") + "read_only: maybe\n"), "read_only", "true or false"),
    (raw_memory(VALID.format(id="a").replace("scope: user:U5\n", "")), "scope", "missing"),
    (raw_memory("id: [a\n"), None, "not valid YAML"),
    (raw_memory("id: a\nid: b\n"), None, "duplicate key"),
    (raw_memory("- a\n- b\n"), None, "must be a mapping"),
    (raw_memory("just a string\n"), None, "must be a mapping"),
    ("no frontmatter at all\n", None, "does not start with"),
    ("---\nid: a\nnever closed\n", None, "never closed"),
]


@pytest.mark.parametrize(("content", "field", "words"), CASES)
def test_each_problem_names_file_field_and_fix(repo: MemoryRepo, content: str, field: str | None, words: str) -> None:
    write_file(repo.root / "facts/a.md", content)
    problems = [p for p in repo.validate() if p.path == "facts/a.md" and p.severity == "error"]
    assert any(p.field == field and words in p.message for p in problems), problems
    assert all(p.fix for p in problems)
    assert (repo.root / "facts/a.md").read_text() == content  # validation never touches the file


def test_non_utf8_file(repo: MemoryRepo) -> None:
    (repo.root / "bad.md").write_bytes(b"---\nid: \xff\n---\n")
    [problem] = [p for p in repo.validate() if p.path == "bad.md"]
    assert "not UTF-8" in problem.message and problem.line == 2


def test_duplicate_id_names_both_files(repo: MemoryRepo) -> None:
    write_file(repo.root / "a.md", raw_memory(VALID.format(id="same")))
    write_file(repo.root / "b.md", raw_memory(VALID.format(id="same")))
    found = {(p.path, p.field) for p in repo.validate() if "also used by" in p.message}
    assert found == {("a.md", "id"), ("b.md", "id")}


def test_unknown_keys_are_warnings_and_kept(repo: MemoryRepo) -> None:
    write_file(repo.root / "a.md", raw_memory(VALID.format(id="a") + "ticket: B17\n"))
    [problem] = [p for p in repo.validate() if p.path == "a.md"]
    assert problem.severity == "warning" and problem.field == "ticket"
    assert repo.store.read("a.md").meta["ticket"] == "B17"


def test_readme_and_ignored_files_are_not_memories(repo: MemoryRepo) -> None:
    write_file(repo.root / "README.md", "# not a memory\n")
    write_file(repo.root / "drafts/x.md", "not a memory either\n")
    write_file(repo.root / ".memfsignore", "drafts/\n")
    write_file(repo.root / ".hidden/y.md", "hidden\n")
    assert repo.validate() == []
