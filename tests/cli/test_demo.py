"""``memfs demo``: the tour, re-runs, refusals, and a demo inside another repository."""

from __future__ import annotations

import unicodedata
from pathlib import Path

from memfs.store import commits
from tests.helpers import PERSON, git, run_cli


def _width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def test_cli_tour_fits_80_columns_and_reruns(tmp_path: Path) -> None:
    target = tmp_path / "demo"
    done = run_cli("demo", str(target))
    assert done.returncode == 0, done.stderr
    out = done.stdout
    for heading in ("memfs tree", "memfs log", "memfs diff", "Try next"):
        assert heading in out
    assert "revision: 1 → 2" in out and "system/" in out and "memfs revert HEAD" in out
    assert max(_width(line) for line in out.splitlines() if str(target) not in line) <= 80
    again = run_cli("demo", str(target))
    assert again.returncode == 0, again.stderr
    assert "replaced the earlier demo" in again.stdout


def test_cli_refuses_foreign_folder_with_exit_3(tmp_path: Path) -> None:
    foreign = tmp_path / "project"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine\n")
    done = run_cli("demo", str(foreign))
    assert done.returncode == 3
    assert done.stderr.startswith("memfs: error:") and len(done.stderr.strip().splitlines()) == 1
    assert (foreign / "notes.txt").read_text() == "mine\n"
    assert not (foreign / ".git").exists()


def test_demo_inside_another_repo_never_commits_into_it(tmp_path: Path) -> None:
    outer = tmp_path / "outer"
    outer.mkdir()
    git(outer, "init", "-q")
    (outer / "code.py").write_text("print('hi')\n")
    git(outer, "add", "code.py")
    git(outer, *PERSON, "commit", "-qm", "code")
    head = git(outer, "rev-parse", "HEAD")
    done = run_cli("demo", "memdemo", cwd=outer)
    assert done.returncode == 0, done.stderr
    assert git(outer, "rev-parse", "HEAD") == head
    assert git(outer, "rev-list", "--count", "HEAD").strip() == "1"
    assert git(outer, "diff", "--cached", "--name-only") == ""
    inner = outer / "memdemo"
    assert git(inner, "rev-parse", "--show-toplevel").strip() == str(inner.resolve())
    assert int(git(inner, "rev-list", "--count", "HEAD")) >= 6
    trailers = commits.trailers(git(inner, "log", "-1", "--format=%B"))
    assert trailers["Memfs-Op"] == ["update"] and trailers["Memfs-Actor"] == ["user:U5"]
