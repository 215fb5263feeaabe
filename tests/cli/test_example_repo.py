"""example_repo/ as a repository: ``memfs validate --strict`` passes on it."""

from __future__ import annotations

import shutil
from pathlib import Path

from memfs import MemoryRepo
from memfs.format.templates import data_dir
from tests.helpers import git, run_cli

EXAMPLE = data_dir("example_repo")


def test_whole_example_validates_with_the_cli(tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(EXAMPLE, copy)
    git(copy, "init", "-q")
    done = run_cli("-C", str(copy), "validate", "--strict")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "ok: every memory is valid" in done.stdout
    assert MemoryRepo.open(copy).validate() == []
