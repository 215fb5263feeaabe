"""Exit codes and error lines."""

from __future__ import annotations

from memfs import MemoryRepo
from tests.helpers import NOTE, cli, options


def test_operating_system_errors_are_one_line(repo: MemoryRepo) -> None:
    lock = repo.git.git_dir / "memfs.lock"
    lock.unlink()
    lock.mkdir()
    done = cli(repo, "write", "a.md", *options(NOTE))
    assert done.returncode == 3 and "Traceback" not in done.stderr
    assert done.stderr.startswith("memfs: error:") and "memfs.lock" in done.stderr
    assert not (repo.root / "a.md").exists()
