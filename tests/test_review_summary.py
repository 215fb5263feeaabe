"""``memfs review BASE..HEAD``: the reviewer's summary of a branch, and validate as a hook/CI step."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from memfs import MemoryRepo
from memfs.errors import MemfsError
from memfs.ops.branch_review import summarize
from tests.helpers import FACT, commit_all, git, run_cli

ROOT = Path(__file__).resolve().parent.parent


def test_summary_sorts_every_change(branch: MemoryRepo) -> None:
    s = summarize(branch, "main", "review")
    assert [e.path for e in s.added] == ["facts/new.md", "prefs/lang-2.md"]
    (sup,) = s.superseded
    assert (sup.path, sup.old, sup.new, sup.by) == (
        "prefs/lang.md",
        "notes in English",
        "notes in Chinese",
        "prefs/lang-2.md",
    )
    assert sup.reason == "U5 changed their mind"
    (ret,) = s.retracted
    assert (ret.path, ret.downstream, ret.flagged, ret.reason) == ("facts/b17.md", 2, 2, "release was rolled back")
    assert [(e.path, e.by) for e in s.flagged] == [
        ("notes/derived.md", "facts/b17.md"),
        ("notes/derived2.md", "facts/b17.md"),
    ]
    assert [e.path for e in s.expired] == ["facts/old.md"]
    assert [(e.path, e.op, e.reason) for e in s.purged] == [("facts/gone.md", "delete", "user asked")]
    tweak = next(e for e in s.changed if e.path == "facts/tweak.md")
    assert {f.field for f in tweak.fields} >= {"confidence", "tags", "revision"} and tweak.body_changed
    assert all(e.path != "facts/on-main.md" for cat in s.CATEGORIES for e in getattr(s, cat))
    assert [e.path for e in s.changed] == ["facts/tweak.md"]
    assert len(s.commits) == 6 and s.invalid == []


def test_text_is_a_markdown_comment(branch: MemoryRepo) -> None:
    text = summarize(branch, "main", "review").render()
    assert text.startswith("### memfs review: `main..review` (6 commit(s))")
    assert "2 added · 1 superseded · 1 retracted · 2 flagged · 1 expired · 1 purged" in text
    assert '- `prefs/lang.md`: "notes in English" → "notes in Chinese" (by `prefs/lang-2.md`)' in text
    assert "- `facts/b17.md` — B17 is fixed; reason: release was rolled back; 2 downstream memories" in text
    assert "confidence: 1.0 → 0.4" in text or "confidence: + 0.4" in text
    assert "revision:" not in text


def test_cli_range_json_and_three_dots(branch: MemoryRepo) -> None:
    proc = run_cli("review", "main..review", "--json", cwd=branch.root)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["counts"]["retracted"] == 1 and data["retracted"][0]["downstream"] == 2
    assert data["superseded"][0]["new"] == "notes in Chinese"
    proc = run_cli("review", "main...review", cwd=branch.root)
    assert proc.returncode == 0, proc.stderr
    assert "1 superseded" in proc.stdout


def test_invalid_files_on_the_branch_are_listed(repo: MemoryRepo) -> None:
    git(repo.root, "checkout", "-q", "-b", "bad")
    (repo.root / "facts").mkdir()
    (repo.root / "facts/x.md").write_text("---\nid: x\n<<<<<<< ours\na: 1\n=======\na: 2\n>>>>>>> theirs\n---\n")
    commit_all(repo.root, "bad file")
    s = summarize(repo, "main", "bad")
    assert len(s.invalid) == 1 and "unresolved merge conflict markers" in s.invalid[0]
    assert "**1 invalid**" in s.render()


def test_unrelated_or_unknown_revisions(repo: MemoryRepo) -> None:
    with pytest.raises(MemfsError, match="not a commit"):
        summarize(repo, "nope", "HEAD")
    assert "No memory changes." in summarize(repo, "HEAD", "HEAD").render()


# --- validate as a pre-commit hook and a CI step --------------------------------------------------
def test_pre_commit_hook_definition() -> None:
    (hook,) = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert hook["id"] == "memfs-validate"
    assert hook["entry"] == "memfs validate"
    assert hook["files"] == r"\.md$"
    assert hook.get("pass_filenames", True) is True


def test_validate_with_file_names_as_pre_commit_passes_them(repo: MemoryRepo) -> None:
    repo.write("facts/good.md", fields=FACT, body="fine\n")
    (repo.root / "facts/bad.md").write_text("---\nid: bad\nstatus: active\n---\n")
    (repo.root / "README.md").write_text("# not a memory\n")
    ok = run_cli("validate", "facts/good.md", "README.md", cwd=repo.root)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    bad = run_cli("validate", "facts/good.md", "facts/bad.md", cwd=repo.root)
    assert bad.returncode == 1 and "facts/bad.md" in bad.stdout
    ci = run_cli("validate", cwd=repo.root)
    assert ci.returncode == 1 and "facts/bad.md" in ci.stdout
    (repo.root / "facts/bad.md").unlink()
    assert run_cli("validate", cwd=repo.root).returncode == 0
