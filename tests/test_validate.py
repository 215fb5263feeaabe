"""Every validation case the issue lists, each triggered by a real file, through the repo and the CLI."""

from __future__ import annotations

import json

import pytest

from memfs import MemoryRepo
from tests.helpers import cli, run_cli, write_file

GOOD = "id: {id}\ntype: fact\nscope: user:U5\nsource: tool:ci\nstatus: active\n"


def memory(fields: str, body: str = "body\n") -> str:
    return f"---\n{fields}---\n{body}"


CASES = [
    # (file content, field, words in the message)
    (memory(GOOD.format(id="a") + "created: 2026-09-20T10:00:00\n"), "created", "no time zone"),
    (memory(GOOD.format(id="a") + "expires: 2026-12-31\n"), "expires", "no time zone"),
    (memory(GOOD.format(id="a") + "updated: yesterday\n"), "updated", "not an ISO 8601 time"),
    (memory(GOOD.format(id="a") + "expires: 2026-13-45T00:00:00Z\n"), "expires", "not an ISO 8601 time"),
    (memory(GOOD.format(id="a") + "confidence: .nan\n"), "confidence", "outside 0..1"),
    (memory(GOOD.format(id="a") + "confidence: .inf\n"), "confidence", "outside 0..1"),
    (memory(GOOD.format(id="a") + "confidence: 1.5\n"), "confidence", "outside 0..1"),
    (memory(GOOD.format(id="a") + "confidence: high\n"), "confidence", "must be a number"),
    (memory(GOOD.format(id="a") + "revision: 0\n"), "revision", "whole number"),
    (memory(GOOD.format(id="a").replace("status: active", "status: archived")), "status", "unknown value"),
    (memory(GOOD.format(id="a").replace("type: fact", "type: factoid")), "type", "unknown value"),
    (memory(GOOD.format(id="a") + "source_kind: robot\n"), "source_kind", "unknown value"),
    (memory(GOOD.format(id="a").replace("user:U5", '"user: U5"')), "scope", "segment"),
    (memory(GOOD.format(id="a").replace("user:U5", "user:U5//p")), "scope", "empty"),
    (memory(GOOD.format(id="a").replace("user:U5", "../etc")), "scope", "relative segment"),
    (memory(GOOD.format(id="a") + "depends_on: facts/b.md\n"), "depends_on", "must be a list"),
    (memory(GOOD.format(id="a") + "depends_on: [../outside.md]\n"), "depends_on", "outside the memory repository"),
    (memory(GOOD.format(id="a") + "depends_on: [/etc/passwd]\n"), "depends_on", "absolute"),
    (memory(GOOD.format(id="a") + "depends_on: [missing.md]\n"), "depends_on", "does not exist"),
    (memory(GOOD.format(id="a") + "depends_on: [facts/a.md]\n"), "depends_on", "this memory itself"),
    (memory(GOOD.format(id="a").replace("source: tool:ci\n", "")), "source", "no source"),
    (memory(GOOD.format(id="a") + "version: 1.10\n"), "version", "must be a string"),
    (memory(GOOD.format(id="a") + "tags: writing\n"), "tags", "list of strings"),
    (memory(GOOD.format(id="a") + "read_only: maybe\n"), "read_only", "true or false"),
    (memory(GOOD.format(id="a").replace("id: a\n", "")), "id", "missing"),
    (memory(GOOD.format(id="a").replace("scope: user:U5\n", "")), "scope", "missing"),
    (memory("id: [a\n"), None, "not valid YAML"),
    (memory("id: a\nid: b\n"), None, "duplicate key"),
    (memory("- a\n- b\n"), None, "must be a mapping"),
    (memory("just a string\n"), None, "must be a mapping"),
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
    write_file(repo.root / "a.md", memory(GOOD.format(id="same")))
    write_file(repo.root / "b.md", memory(GOOD.format(id="same")))
    found = {(p.path, p.field) for p in repo.validate() if "also used by" in p.message}
    assert found == {("a.md", "id"), ("b.md", "id")}


def test_unknown_keys_are_warnings_and_kept(repo: MemoryRepo) -> None:
    write_file(repo.root / "a.md", memory(GOOD.format(id="a") + "ticket: B17\n"))
    [problem] = [p for p in repo.validate() if p.path == "a.md"]
    assert problem.severity == "warning" and problem.field == "ticket"
    assert repo.read("a.md").meta["ticket"] == "B17"


def test_readme_and_ignored_files_are_not_memories(repo: MemoryRepo) -> None:
    write_file(repo.root / "README.md", "# not a memory\n")
    write_file(repo.root / "drafts/x.md", "not a memory either\n")
    write_file(repo.root / ".memfsignore", "drafts/\n")
    write_file(repo.root / ".hidden/y.md", "hidden\n")
    assert repo.validate() == []


def test_cli_validate_exit_codes_and_json(repo: MemoryRepo) -> None:
    assert cli(repo, "validate").returncode == 0
    write_file(repo.root / "facts/a.md", memory(GOOD.format(id="a") + "expires: 2026-12-31\n"))
    done = cli(repo, "validate")
    assert done.returncode == 1
    assert "facts/a.md:7: error: expires: has no time zone" in done.stdout
    assert "2026-12-31T00:00:00Z" in done.stdout
    data = json.loads(cli(repo, "validate", "--json").stdout)
    assert data["ok"] is False and data["problems"][0]["field"] == "expires"


def test_cli_validate_only_named_files(repo: MemoryRepo) -> None:
    write_file(repo.root / "bad.md", "broken\n")
    write_file(repo.root / "good.md", memory(GOOD.format(id="good")))
    assert cli(repo, "validate", "good.md").returncode == 0
    assert cli(repo, "validate", "bad.md", "good.md").returncode == 1


def test_strict_fails_on_warnings(repo: MemoryRepo) -> None:
    write_file(repo.root / "a.md", memory(GOOD.format(id="a") + "ticket: B17\n"))
    assert cli(repo, "validate").returncode == 0
    assert cli(repo, "validate", "--strict").returncode == 1


def test_hook_style_paths_from_the_top_of_a_larger_repo(tmp_path) -> None:
    from tests.helpers import git

    project = tmp_path / "project"
    project.mkdir()
    git(project, "init", "-q")
    mem = MemoryRepo.init(project / "memory")
    write_file(mem.root / "facts/a.md", memory(GOOD.format(id="a") + "confidence: 7\n"))
    write_file(mem.root / "facts/b.md", memory(GOOD.format(id="persona")))
    write_file(project / "src/app.py", "print()\n")
    done = run_cli("validate", "memory/facts/a.md", "memory/facts/b.md", "src/app.py", cwd=project)
    assert done.returncode == 1
    assert "facts/a.md:7: error: confidence" in done.stdout
    assert "facts/b.md: error: id: 'persona' is also used by memory/system/persona.md" in done.stdout
    assert run_cli("validate", "src/app.py", cwd=project).returncode == 0
