"""The GitLab job ``memfs init --ci gitlab`` writes, run locally: its script on a repository
whose branch retracts a memory, with a stand-in ``curl`` (:mod:`tests.forges`) answering as
GitLab's REST API does for a merge request's notes."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from memfs import MemoryRepo
from tests.forges import Forge, run_script
from tests.helpers import git

pytestmark = pytest.mark.slow

MARKER = "<!-- memfs-review -->"
API = "https://gitlab.example/api/v4"
FACTS = {"api": API, "project": "42", "number": "7", "token": "glpat-test"}
PUSHED = {"body": "added 1 commit", "system": True}
OTHER = {"body": "Coverage: 91% (another job's note)"}


def review_job(repo: MemoryRepo, forge: Forge, token: str | None = "glpat-test") -> tuple[int, str, str]:
    """Run the job's script as GitLab would in a pipeline for merge request 7 of project 42
    from the branch ``review`` into ``main``: (exit code, stdout, stderr). ``origin`` is the
    repository itself, so the script's fetch of the target branch works without a server."""
    repo.store.add_ci("gitlab")
    job = yaml.safe_load((repo.root / ".gitlab-ci.yml").read_text())["memfs-review"]
    install, script = job["script"]
    assert install == 'python -m pip install "$MEMFS_INSTALL"'
    if "origin" not in git(repo.root, "remote"):
        git(repo.root, "remote", "add", "origin", str(repo.root))
    git(repo.root, "checkout", "-q", "review")
    env = {**forge.env("curl"), **job["variables"], "CI_MERGE_REQUEST_TARGET_BRANCH_NAME": "main",
           "CI_API_V4_URL": API, "CI_PROJECT_ID": "42", "CI_MERGE_REQUEST_IID": "7"}
    if token is not None:
        env["MEMFS_GITLAB_TOKEN"] = token
    done = run_script(script, repo.root, env)
    git(repo.root, "checkout", "-q", "main")
    return done.returncode, done.stdout, done.stderr


@pytest.fixture
def forge(tmp_path: Path) -> Forge:
    made = Forge(tmp_path / "gitlab")
    made.start([PUSHED, OTHER, PUSHED], **FACTS)
    return made


def test_the_job_notes_the_review_once_and_then_edits_that_note(branch: MemoryRepo, forge: Forge) -> None:
    code, _, stderr = review_job(branch, forge)
    assert code == 0, stderr
    before = forge.comments
    [ours] = [n for n in before if n["body"].startswith(MARKER)]
    assert ours["body"].startswith(f"{MARKER}\n### memfs review: `origin/main..HEAD`")
    assert "```mermaid\nflowchart LR\n" in ours["body"] and "notes/derived2.md<br/>flagged" in ours["body"]
    forge.start([*before, OTHER, {"body": f"quoting {MARKER} here"}, PUSHED], **FACTS)
    before = forge.comments
    git(branch.root, "checkout", "-q", "review")
    branch.write("facts/second-run.md", fields={"type": "fact", "scope": "user:U5", "source": "conversation:C2"},
                 body="pushed after the first run\n")
    git(branch.root, "checkout", "-q", "main")
    code, _, stderr = review_job(branch, forge)
    assert code == 0, stderr
    after = forge.comments
    assert [n["id"] for n in after] == [n["id"] for n in before]
    assert [n["id"] for n, m in zip(after, before, strict=True) if n != m] == [ours["id"]]
    assert "facts/second-run.md" in after[before.index(ours)]["body"]
    writes = [c for c in forge.calls if "-X" in c and c[c.index("-X") + 1] != "GET"]
    assert [(c[c.index("-X") + 1], c[-1]) for c in writes] == [
        ("POST", f"{API}/projects/42/merge_requests/7/notes"),
        ("PUT", f"{API}/projects/42/merge_requests/7/notes/{ours['id']}"),
    ]


def test_without_a_token_the_review_goes_to_the_log(branch: MemoryRepo, forge: Forge) -> None:
    code, stdout, stderr = review_job(branch, forge, token=None)
    assert code == 0, stderr
    assert stdout.startswith(f"{MARKER}\n### memfs review") and "MEMFS_GITLAB_TOKEN is not set" in stdout
    assert forge.calls == []


def test_a_refused_token_fails_the_job(branch: MemoryRepo, forge: Forge) -> None:
    code, _, stderr = review_job(branch, forge, token="expired")
    assert code == 22 and "401" in stderr
    assert not any(n["body"].startswith(MARKER) for n in forge.comments)
