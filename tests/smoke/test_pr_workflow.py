"""The workflow ``memfs init --ci github`` writes, run locally: its review step (a shell
script) on a repository whose branch retracts a memory, with a stand-in for GitHub's ``gh``
(:mod:`tests.forges`) that keeps the pull request's comments."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from memfs import MemoryRepo
from tests.forges import Forge, run_script
from tests.helpers import commit_all, git, raw_memory, write_file

pytestmark = pytest.mark.slow

MARKER = "<!-- memfs-review -->"
OTHER = {"body": "Coverage: 91% (another workflow's comment)", "user": {"login": "github-actions[bot]"}}


def review_step(repo: MemoryRepo, forge: Forge, tmp_path: Path) -> tuple[int, str]:
    """Run the workflow's "Validate and review memory" step as GitHub would on pull request 7
    of acme/mem from the branch ``review`` into ``main``: (exit code, the script's stderr)."""
    repo.store.add_ci("github")
    workflow = yaml.safe_load((repo.root / ".github/workflows/memfs.yml").read_text())
    job = workflow["jobs"]["memory-review"]
    step = next(s for s in job["steps"] if s.get("name") == "Validate and review memory")
    git(repo.root, "update-ref", "refs/remotes/origin/main", "main")
    git(repo.root, "checkout", "-q", "review")
    runner = tmp_path / "runner"
    runner.mkdir(exist_ok=True)
    env = {**forge.env("gh"), **job["env"], "RUNNER_TEMP": str(runner), "PR_NUMBER": "7", "BASE_REF": "main",
           "GITHUB_REPOSITORY": "acme/mem", "GH_TOKEN": "unused"}
    done = run_script(step["run"], repo.root, env)
    return done.returncode, done.stderr


@pytest.fixture
def forge(tmp_path: Path) -> Forge:
    made = Forge(tmp_path / "github")
    made.start([OTHER], repo="acme/mem", number=7)
    return made


def test_the_workflow_posts_the_review_with_the_retraction_diagram(
    branch: MemoryRepo, forge: Forge, tmp_path: Path
) -> None:
    code, stderr = review_step(branch, forge, tmp_path)
    assert code == 0, stderr
    other, ours = forge.comments
    assert other == {**OTHER, "id": 500}
    comment = ours["body"]
    assert comment.startswith(f"{MARKER}\n### memfs review: `origin/main..HEAD`")
    assert "#### Retracted\n- `facts/b17.md` — B17 is fixed; reason: release was rolled back" in comment
    assert "```mermaid\nflowchart LR\n" in comment and "notes/derived2.md<br/>flagged" in comment
    assert "validate found problems" not in comment


def test_invalid_memory_fails_the_job_and_says_why_in_the_comment(
    branch: MemoryRepo, forge: Forge, tmp_path: Path
) -> None:
    git(branch.root, "checkout", "-q", "review")
    write_file(branch.root / "facts/broken.md", raw_memory("type: fact\nconfidence: 7\n"))
    commit_all(branch.root, "a hand edit")
    git(branch.root, "checkout", "-q", "main")
    code, _ = review_step(branch, forge, tmp_path)
    assert code == 1
    comment = forge.comments[-1]["body"]
    assert "#### memfs validate found problems (exit 1)\n\n    " in comment
    assert "facts/broken.md" in comment and "confidence" in comment


def test_a_rerun_edits_the_marked_comment_and_no_other(branch: MemoryRepo, forge: Forge, tmp_path: Path) -> None:
    """The first run creates one comment that starts with the marker; another workflow then
    comments as the same bot (the comment ``gh pr comment --edit-last`` would have edited) and
    someone quotes the marker mid-comment; the second run edits the first run's comment only."""
    assert review_step(branch, forge, tmp_path)[0] == 0
    [ours] = [c for c in forge.comments if c["body"].startswith(MARKER)]
    later = [{**OTHER, "body": "Coverage: 92%"}, {"body": f"why does the bot write {MARKER}?"}]
    forge.start([*forge.comments, *later], repo="acme/mem", number=7)
    before = {c["id"]: c for c in forge.comments}
    git(branch.root, "checkout", "-q", "review")
    branch.write("facts/second-run.md", fields={"type": "fact", "scope": "user:U5", "source": "conversation:C2"},
                 body="pushed after the first run\n")
    git(branch.root, "checkout", "-q", "main")
    assert review_step(branch, forge, tmp_path)[0] == 0
    after = {c["id"]: c for c in forge.comments}
    assert len(forge.comments) == len(before) and after.keys() == before.keys()
    changed = [i for i in after if after[i] != before[i]]
    assert changed == [ours["id"]] and "facts/second-run.md" in after[ours["id"]]["body"]
    edits = [c for c in forge.calls if "PATCH" in c]
    assert [c[c.index("PATCH") + 1] for c in edits] == [f"repos/acme/mem/issues/comments/{ours['id']}"]
