"""``memfs merge-driver`` and ``install-merge-driver``, and ``validate`` after a conflicting merge."""

from __future__ import annotations

from pathlib import Path

from memfs import MemoryRepo
from memfs.format.parse import parse
from memfs.store.init import merge_driver_configured
from tests.helpers import base_doc, branch_and_merge, git, run_cli, set_identity


def test_git_merge_conflict_is_reported_and_validate_fails(repo: MemoryRepo) -> None:
    out = branch_and_merge(repo, {"body": "para uno\n\npara two\n"}, {"body": "para eins\n\npara two\n"})
    assert "CONFLICT (content): Merge conflict in facts/a.md" in out
    text = (repo.root / "facts/a.md").read_text()
    assert "<<<<<<< ours" in text and ">>>>>>> theirs" in text
    proc = run_cli("validate", cwd=repo.root)
    assert proc.returncode == 1
    assert "facts/a.md:" in proc.stdout and "unresolved merge conflict markers" in proc.stdout


def test_without_the_driver_revision_bumps_conflict_as_text(repo: MemoryRepo) -> None:
    git(repo.root, "config", "--remove-section", "merge.memfs")
    out = branch_and_merge(repo, {"fields": {"description": "a"}}, {"fields": {"confidence": 0.5}})
    assert "CONFLICT" in out
    assert "unresolved merge conflict markers" in run_cli("validate", cwd=repo.root).stdout


def test_init_registers_and_install_repairs(tmp_path: Path) -> None:
    mem = MemoryRepo.init(tmp_path / "m", actor="agent:t")
    assert "*.md merge=memfs" in (mem.root / ".gitattributes").read_text()
    assert merge_driver_configured(mem.store.git)
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(mem.root), str(clone))
    set_identity(clone)
    assert not merge_driver_configured(MemoryRepo.open(clone).store.git)
    proc = run_cli("install-merge-driver", "--json", cwd=clone)
    assert proc.returncode == 0, proc.stderr
    assert '"commit": null' in proc.stdout
    assert "-m memfs merge-driver %O %A %B %P" in git(clone, "config", "merge.memfs.driver")


def test_driver_cli_exit_codes(tmp_path: Path) -> None:
    base, ours, theirs = (tmp_path / n for n in ("o", "a", "b"))
    base.write_bytes(base_doc())
    ours.write_bytes(base_doc(status="retracted"))
    theirs.write_bytes(base_doc(description="edited"))
    proc = run_cli("merge-driver", str(base), str(ours), str(theirs), "facts/a.md", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert parse("facts/a.md", ours.read_bytes()).status == "retracted"
    ours.write_bytes(base_doc(description="mine"))
    proc = run_cli("merge-driver", str(base), str(ours), str(theirs), "facts/a.md", "--marker-size", "9", cwd=tmp_path)
    assert proc.returncode == 1
    assert "<<<<<<<<< ours" in ours.read_text()
