"""The pull-request loop: ``memfs init --ci github`` adds the workflow, and the review it posts
draws each retraction's closure as a Mermaid diagram."""

from __future__ import annotations

from pathlib import Path

import yaml

from memfs import MemoryRepo
from memfs.errors import Refused
from tests.helpers import ACTOR, commit_count, git


def test_init_adds_the_github_workflow_once(tmp_path: Path) -> None:
    repo = MemoryRepo.init(tmp_path / "mem", ACTOR, ci="github")
    workflow = repo.root / ".github/workflows/memfs.yml"
    steps = yaml.safe_load(workflow.read_text())["jobs"]["memory-review"]["steps"]
    script = next(s["run"] for s in steps if s.get("name") == "Validate and review memory")
    assert "memfs review" in script and "memfs --quiet validate" in script and "gh pr comment" in script
    assert ".github/workflows/memfs.yml" in git(repo.root, "show", "--name-only", "HEAD")
    count = commit_count(repo)
    assert MemoryRepo.init(repo.root, ACTOR, ci="github").root == repo.root and commit_count(repo) == count


def test_a_memory_root_in_a_sub_folder_is_told_what_to_copy(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q", "-b", "main", "top")
    repo = MemoryRepo.init(tmp_path / "top" / "memory", ACTOR)
    try:
        repo.store.add_ci("github")
    except Refused as exc:
        assert ".github/workflows/memfs.yml" in str(exc) and "MEMFS_DIR: memory" in str(exc)
    else:
        raise AssertionError("a sub-folder root got a workflow GitHub would never run")


def test_the_review_draws_the_retraction_closure(branch: MemoryRepo) -> None:
    summary = branch.review("main", "review")
    [retracted] = summary.retracted
    assert retracted.nodes == (("facts/b17.md", "retracted"), ("notes/derived.md", "flagged"),
                               ("notes/derived2.md", "flagged"))
    assert retracted.closure == (("facts/b17.md", "notes/derived.md"), ("notes/derived.md", "notes/derived2.md"))
    text = summary.render()
    diagram = text.split("```mermaid\n", 1)[1].split("```", 1)[0]
    assert diagram.startswith("flowchart LR\n")
    assert 'n0["facts/b17.md<br/>retracted"]:::retracted' in diagram
    assert 'n2["notes/derived2.md<br/>flagged"]:::flagged' in diagram
    assert "n0 --> n1" in diagram and "n1 --> n2" in diagram and "classDef flagged" in diagram
    assert summary.to_json()["retracted"][0]["closure"]["edges"][0] == ["facts/b17.md", "notes/derived.md"]
