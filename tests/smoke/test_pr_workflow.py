"""The workflow ``memfs init --ci github`` writes, run locally: its review step (a shell
script) on a repository whose branch retracts a memory, with a stand-in for GitHub's ``gh``
that keeps the comment it is asked to post."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from memfs import MemoryRepo
from tests.helpers import commit_all, git, raw_memory, write_file

pytestmark = pytest.mark.slow

FAKE_GH = """#!/bin/sh
printf '%s\\n' "$*" >> "$FAKE_GH_LOG"
while [ $# -gt 0 ]; do
  if [ "$1" = "--body-file" ]; then cp "$2" "$FAKE_GH_BODY"; fi
  shift
done
"""


def review_step(repo: MemoryRepo, tmp_path: Path) -> tuple[int, str, str]:
    """Run the workflow's "Validate and review memory" step as GitHub would on pull request 7
    from the branch ``review`` into ``main``: (exit code, gh's arguments, the comment)."""
    repo.store.add_ci("github")
    workflow = yaml.safe_load((repo.root / ".github/workflows/memfs.yml").read_text())
    job = workflow["jobs"]["memory-review"]
    step = next(s for s in job["steps"] if s.get("name") == "Validate and review memory")
    bin_dir = tmp_path / "bin"
    write_file(bin_dir / "gh", FAKE_GH).chmod(0o755)
    git(repo.root, "update-ref", "refs/remotes/origin/main", "main")
    git(repo.root, "checkout", "-q", "review")
    runner = tmp_path / "runner"
    runner.mkdir()
    env = {
        **os.environ, **job["env"], "PATH": f"{bin_dir}{os.pathsep}{Path(sys.executable).parent}{os.pathsep}"
        f"{os.environ['PATH']}", "RUNNER_TEMP": str(runner), "PR_NUMBER": "7", "BASE_REF": "main",
        "GH_TOKEN": "unused", "FAKE_GH_LOG": str(tmp_path / "gh.log"), "FAKE_GH_BODY": str(tmp_path / "body.md"),
    }
    done = subprocess.run(["bash", "-c", step["run"]], cwd=repo.root, env=env, capture_output=True, text=True)
    log = (tmp_path / "gh.log").read_text() if (tmp_path / "gh.log").exists() else ""
    body = (tmp_path / "body.md").read_text() if (tmp_path / "body.md").exists() else ""
    return done.returncode, log, body + done.stderr


def test_the_workflow_posts_the_review_with_the_retraction_diagram(branch: MemoryRepo, tmp_path: Path) -> None:
    code, log, comment = review_step(branch, tmp_path)
    assert code == 0, comment
    assert log.startswith("pr comment 7 --edit-last --body-file ")
    assert comment.startswith("### memfs review: `origin/main..HEAD`")
    assert "#### Retracted\n- `facts/b17.md` — B17 is fixed; reason: release was rolled back" in comment
    assert "```mermaid\nflowchart LR\n" in comment and "notes/derived2.md<br/>flagged" in comment
    assert "validate found problems" not in comment


def test_invalid_memory_fails_the_job_and_says_why_in_the_comment(branch: MemoryRepo, tmp_path: Path) -> None:
    git(branch.root, "checkout", "-q", "review")
    write_file(branch.root / "facts/broken.md", raw_memory("type: fact\nconfidence: 7\n"))
    commit_all(branch.root, "a hand edit")
    git(branch.root, "checkout", "-q", "main")
    code, _, comment = review_step(branch, tmp_path)
    assert code == 1
    assert "#### memfs validate found problems (exit 1)" in comment
    assert "facts/broken.md" in comment and "confidence" in comment
