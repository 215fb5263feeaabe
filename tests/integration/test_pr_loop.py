"""The pull-request loop: ``memfs init --ci github`` adds the workflow (``--ci gitlab`` the
merge-request job), and the review it posts draws each retraction's closure as a Mermaid diagram."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from memfs import MemoryRepo
from memfs.errors import Refused
from tests.helpers import ACTOR, commit_count, git


def test_init_adds_the_github_workflow_once(tmp_path: Path) -> None:
    repo = MemoryRepo.init(tmp_path / "mem", ACTOR, ci="github")
    workflow = repo.root / ".github/workflows/memfs.yml"
    steps = yaml.safe_load(workflow.read_text())["jobs"]["memory-review"]["steps"]
    script = next(s["run"] for s in steps if s.get("name") == "Validate and review memory")
    assert "memfs review" in script and "memfs --quiet validate" in script and "gh api" in script
    assert ".github/workflows/memfs.yml" in git(repo.root, "show", "--name-only", "HEAD")
    count = commit_count(repo)
    assert MemoryRepo.init(repo.root, ACTOR, ci="github").root == repo.root and commit_count(repo) == count


def test_init_adds_the_gitlab_job_once(tmp_path: Path) -> None:
    repo = MemoryRepo.init(tmp_path / "mem", ACTOR, ci="gitlab")
    job = yaml.safe_load((repo.root / ".gitlab-ci.yml").read_text())["memfs-review"]
    assert "memfs review" in job["script"][-1] and "merge_requests" in job["script"][-1]
    assert ".gitlab-ci.yml" in git(repo.root, "show", "--name-only", "HEAD")
    count = commit_count(repo)
    assert MemoryRepo.init(repo.root, ACTOR, ci="gitlab").root == repo.root and commit_count(repo) == count


def test_a_pipeline_of_the_repository_s_own_is_not_edited(tmp_path: Path) -> None:
    repo = MemoryRepo.init(tmp_path / "mem", ACTOR)
    own = "build:\n  script: [make]\n"
    (repo.root / ".gitlab-ci.yml").write_text(own)
    with pytest.raises(Refused, match=r"\.gitlab-ci\.yml is this repository's own pipeline.*templates/ci/gitlab\.yml"):
        repo.store.add_ci("gitlab")
    assert (repo.root / ".gitlab-ci.yml").read_text() == own


@pytest.mark.parametrize(("kind", "dest"), [("github", ".github/workflows/memfs.yml"), ("gitlab", ".gitlab-ci.yml")])
def test_a_memory_root_in_a_sub_folder_is_told_what_to_copy(tmp_path: Path, kind: str, dest: str) -> None:
    git(tmp_path, "init", "-q", "-b", "main", "top")
    repo = MemoryRepo.init(tmp_path / "top" / "memory", ACTOR)
    with pytest.raises(Refused) as refused:
        repo.store.add_ci(kind)
    assert f"templates/ci/{kind}.yml to {dest}" in str(refused.value) and "MEMFS_DIR: memory" in str(refused.value)


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

