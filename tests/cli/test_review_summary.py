"""``memfs review BASE..HEAD``: the reviewer's summary of a branch, as text or JSON; and
``memfs init --ci``, which sets up the CI job that posts it."""

from __future__ import annotations

import json
from pathlib import Path

from memfs import MemoryRepo
from tests.helpers import run_cli


def test_cli_range_json_and_three_dots(branch: MemoryRepo) -> None:
    proc = run_cli("review", "main..review", "--json", cwd=branch.root)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["counts"]["retracted"] == 1 and data["retracted"][0]["downstream"] == 2
    assert data["superseded"][0]["new"] == "notes in Chinese"
    proc = run_cli("review", "main...review", cwd=branch.root)
    assert proc.returncode == 0, proc.stderr
    assert "1 superseded" in proc.stdout


def test_init_says_where_the_merge_request_job_went(tmp_path: Path) -> None:
    proc = run_cli("init", str(tmp_path / "mem"), "--ci", "gitlab")
    assert proc.returncode == 0, proc.stderr
    assert f"merge requests: {(tmp_path / 'mem').resolve() / '.gitlab-ci.yml'} validates memory" in proc.stdout
