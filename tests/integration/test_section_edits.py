"""The body edits other memory servers offer, as file-tool commands (``memfs tool``, MCP):
``append`` adds text at the end of the body, ``replace_section`` rewrites the Markdown section
under a heading (or adds it). The frontmatter changes only in ``revision`` and ``updated``."""

from __future__ import annotations

from memfs import MemoryRepo
from tests.helpers import FACT, commit_count

PLAN = "# Plan\n\n## Steps\n\nShip on Friday.\n\n### Details\n\nAfter lunch.\n\n## Risks\n\nNone.\n"


def _plan(repo: MemoryRepo) -> MemoryRepo:
    repo.write("notes/plan.md", fields=FACT, body=PLAN)
    return repo.session("user:U5", actor="agent:writer")


def test_append_adds_to_the_body_in_one_commit(repo: MemoryRepo) -> None:
    session = _plan(repo)
    before = (repo.root / "notes/plan.md").read_text()
    start = commit_count(repo)
    done = session.tool({"command": "append", "path": "notes/plan.md", "text": "- one more thing", "reason": "log"})
    assert done.ok, done.output
    assert repo.store.read("notes/plan.md").body == PLAN + "- one more thing\n"
    assert commit_count(repo) == start + 1 and repo.store.read("notes/plan.md").revision == 2
    changed = {a.split(":")[0] for a, b in zip(before.splitlines(), (repo.root / "notes/plan.md").read_text()
                                                .splitlines(), strict=False) if a != b}
    assert "revision" in changed <= {"revision", "updated"}


def test_a_section_is_replaced_up_to_the_next_heading_of_its_level(repo: MemoryRepo) -> None:
    session = _plan(repo)
    done = session.tool({"command": "replace_section", "path": "notes/plan.md", "heading": "## Steps",
                         "content": "Ship on Monday."})
    assert done.ok, done.output
    assert repo.store.read("notes/plan.md").body == "# Plan\n\n## Steps\nShip on Monday.\n\n## Risks\n\nNone.\n"


def test_a_heading_is_found_by_its_text_and_fenced_code_is_not_a_heading(repo: MemoryRepo) -> None:
    repo.write("notes/code.md", fields=FACT, body="## Usage\n\n```\n## Risks\n```\n\n## Risks\n\nSome.\n")
    session = repo.session("user:U5", actor="agent:writer")
    assert session.tool({"command": "replace_section", "path": "notes/code.md", "heading": "Risks",
                         "content": "None left."}).ok
    assert repo.store.read("notes/code.md").body == "## Usage\n\n```\n## Risks\n```\n\n## Risks\nNone left.\n"


def test_a_missing_section_is_added_at_the_end(repo: MemoryRepo) -> None:
    session = _plan(repo)
    assert session.tool({"command": "replace_section", "path": "notes/plan.md", "heading": "Decisions",
                         "content": "Ship B17 first."}).ok
    assert repo.store.read("notes/plan.md").body == PLAN + "\n## Decisions\nShip B17 first.\n"


def test_bad_requests_change_nothing(repo: MemoryRepo) -> None:
    session = _plan(repo)
    start = commit_count(repo)
    for request in (
        {"command": "replace_section", "path": "notes/plan.md", "heading": "", "content": "x"},
        {"command": "append", "path": "notes/none.md", "text": "x"},
        {"command": "append", "path": "notes/plan.md", "text": "token ghp_" + "a" * 36},
    ):
        result = session.tool(request)
        assert not result.ok, request
    assert commit_count(repo) == start
