"""The CI templates ``memfs init --ci`` writes and the integrator's templates (CI jobs, systemd units and a
hook for a bare repository), linted: the GitHub workflow by actionlint (with
shellcheck on its script), the GitLab file by its structure as GitLab documents it and by
shellcheck on its script. Both linters come from the ``test`` extra and need no network."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from memfs.store.init import ci_file

BIN = Path(sys.executable).parent

#: GitLab's top-level keywords that are not jobs (docs.gitlab.com/ci/yaml/).
GLOBAL_KEYWORDS = {"default", "include", "stages", "variables", "workflow"}
#: The job keywords GitLab documents (docs.gitlab.com/ci/yaml/, "Job keywords").
JOB_KEYWORDS = {
    "after_script", "allow_failure", "artifacts", "before_script", "cache", "coverage", "dast_configuration",
    "dependencies", "environment", "extends", "hooks", "identity", "id_tokens", "image", "inherit",
    "interruptible", "manual_confirmation", "needs", "pages", "parallel", "release", "resource_group", "retry",
    "rules", "run", "script", "secrets", "services", "stage", "tags", "timeout", "trigger", "variables", "when",
}
RULE_KEYWORDS = {"if", "changes", "exists", "when", "allow_failure", "needs", "variables", "interruptible"}
DEFAULT_STAGES = [".pre", "build", "test", "deploy", ".post"]


def tool(name: str) -> str:
    path = BIN / name
    assert path.exists(), f"{name} is missing: install memfs with its test extra (pip install -e '.[test]')"
    return str(path)


def actionlint(workflow: bytes, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    target = tmp_path / ".github/workflows/memfs.yml"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(workflow)
    return subprocess.run(
        [tool("actionlint"), "-no-color", "-shellcheck", tool("shellcheck"), "-pyflakes=", str(target)],
        cwd=tmp_path, capture_output=True, text=True,
    )


def test_the_github_workflow_passes_actionlint(tmp_path: Path) -> None:
    dest, data = ci_file("github")
    assert dest == ".github/workflows/memfs.yml"
    done = actionlint(data, tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_actionlint_would_flag_actions_that_run_on_node_20(tmp_path: Path) -> None:
    """What the lint holds the workflow to: the previous majors (checkout v4, setup-python v5)
    run on Node 20, and actionlint reports each; so does a script that shellcheck faults."""
    _, data = ci_file("github")
    old = data.replace(b"actions/checkout@v7", b"actions/checkout@v4").replace(
        b"actions/setup-python@v7", b"actions/setup-python@v5").replace(b'cd "$MEMFS_DIR"', b"cd $MEMFS_DIR")
    report = actionlint(old, tmp_path).stdout
    assert "node20" in report and "actions/checkout@v4" in report and "actions/setup-python@v5" in report
    assert "SC2086" in report


def gitlab_pipeline() -> dict[str, Any]:
    dest, data = ci_file("gitlab")
    assert dest == ".gitlab-ci.yml"
    loaded = yaml.safe_load(data)
    assert isinstance(loaded, dict)
    return loaded


def test_the_gitlab_file_has_the_shape_gitlab_reads() -> None:
    pipeline = gitlab_pipeline()
    stages = pipeline.get("stages", DEFAULT_STAGES)
    jobs = {name: job for name, job in pipeline.items() if name not in GLOBAL_KEYWORDS}
    assert list(jobs) == ["memfs-review"]
    for name, job in jobs.items():
        assert isinstance(job, dict) and set(job) <= JOB_KEYWORDS, (name, set(job) - JOB_KEYWORDS)
        assert job.get("stage", "test") in stages
        assert isinstance(job["image"], str)
        assert all(isinstance(k, str) and isinstance(v, str) for k, v in job.get("variables", {}).items())
        assert isinstance(job["script"], list) and all(isinstance(s, str) and s for s in job["script"])
        assert all(isinstance(r, dict) and set(r) <= RULE_KEYWORDS for r in job.get("rules", []))
    assert jobs["memfs-review"]["rules"] == [{"if": '$CI_PIPELINE_SOURCE == "merge_request_event"'}]


def test_the_gitlab_script_passes_shellcheck(tmp_path: Path) -> None:
    job = gitlab_pipeline()["memfs-review"]
    script = tmp_path / "script.sh"
    script.write_text("\n".join(job["script"]) + "\n")
    done = subprocess.run([tool("shellcheck"), "--shell=bash", str(script)], capture_output=True, text=True)
    assert (done.returncode, done.stdout) == (0, "")


@pytest.mark.parametrize("kind", ["github", "gitlab"])
def test_both_templates_find_their_comment_by_the_same_marker(kind: str) -> None:
    _, data = ci_file(kind)
    assert data.count(b"marker='<!-- memfs-review -->'") == 1
    assert b"--edit-last" not in data


# --- the integrator's templates (#25): GitHub Actions, GitLab CI, systemd next to a bare repository ----
def integrator_template(name: str) -> bytes:
    from memfs.format.templates import data_dir

    return (data_dir("templates") / name).read_bytes()


def test_the_integrator_workflow_passes_actionlint_and_runs_on_writer_branches(tmp_path: Path) -> None:
    data = integrator_template("ci/integrate-github.yml")
    done = actionlint(data, tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    workflow = yaml.safe_load(data)
    assert workflow[True]["push"]["branches"] == ["memfs/writers/**"]  # YAML 1.1 reads the key `on` as true
    assert workflow["concurrency"] == {"group": "memfs-integrate", "cancel-in-progress": False}
    assert "memfs integrate" in workflow["jobs"]["integrate"]["steps"][-1]["run"]


def test_the_integrator_gitlab_job_has_the_shape_gitlab_reads_and_its_script_passes_shellcheck(
        tmp_path: Path) -> None:
    pipeline = yaml.safe_load(integrator_template("ci/integrate-gitlab.yml"))
    (name,) = [n for n in pipeline if n not in GLOBAL_KEYWORDS]
    job = pipeline[name]
    assert set(job) <= JOB_KEYWORDS and job["stage"] in DEFAULT_STAGES and job["resource_group"]
    assert all(isinstance(r, dict) and set(r) <= RULE_KEYWORDS for r in job["rules"])
    assert job["rules"][0] == {"if": "$CI_COMMIT_BRANCH =~ /^memfs\\/writers\\//"}
    script = tmp_path / "script.sh"
    script.write_text("\n".join(job["script"]) + "\n")
    done = subprocess.run([tool("shellcheck"), "--shell=bash", str(script)], capture_output=True, text=True)
    assert (done.returncode, done.stdout) == (0, "")
    assert "memfs integrate" in job["script"][-1]


def test_the_server_units_pass_systemd_analyze_and_the_hook_passes_shellcheck(tmp_path: Path) -> None:
    import shutil

    hook = tmp_path / "post-receive"
    hook.write_bytes(integrator_template("server/post-receive"))
    done = subprocess.run([tool("shellcheck"), str(hook)], capture_output=True, text=True)
    assert (done.returncode, done.stdout) == (0, "")
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze is not installed")
    for unit in ("memfs-integrate.service", "memfs-integrate.timer"):
        text = integrator_template(f"server/{unit}").decode().replace("/usr/local/bin/memfs", "/bin/true")
        (tmp_path / unit).write_text(text)
    (tmp_path / "typo.service").write_text("[Service]\nExecStrat=/bin/true\nExecStart=/bin/true\n")
    units = [str(tmp_path / u) for u in ("memfs-integrate.service", "memfs-integrate.timer", "typo.service")]
    done = subprocess.run([analyze, "verify", *units], capture_output=True, text=True, timeout=60)
    complaints = [line for line in done.stderr.splitlines() if line.strip()]
    assert [line for line in complaints if "typo.service" not in line] == [] and done.returncode == 0
    assert any("ExecStrat" in line for line in complaints)  # what the check would catch
