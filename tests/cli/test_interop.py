"""``memfs import`` and ``memfs export`` on the command line: dry run by default, a summary of
what is created, mapped, kept and refused, exit 1 when a file is refused, 2 without a scope."""

from __future__ import annotations

import json
from pathlib import Path

from memfs import MemoryRepo
from tests.helpers import PROJECT, cli, commit_count, user_memories, write_file

FIXTURES = PROJECT / "tests" / "fixtures" / "interop"


def test_import_is_a_dry_run_until_applied(repo: MemoryRepo) -> None:
    before = commit_count(repo)
    done = cli(repo, "import", "basic-memory", str(FIXTURES / "basic-memory"), "--scope", "user:U5")
    assert done.returncode == 0, done.stderr
    assert "dry run: nothing was written" in done.stdout and commit_count(repo) == before
    assert "create     people/paul-graham.md" in done.stdout
    assert "permalink → id (4)" in done.stdout and "title → description (4)" in done.stdout
    assert "observations kept in the body (4)" in done.stdout
    assert "4 to create, 0 to update, 0 unchanged, 0 refused" in done.stdout
    applied = cli(repo, "import", "basic-memory", str(FIXTURES / "basic-memory"), "--scope", "user:U5", "--apply")
    assert applied.returncode == 0 and "commit " in applied.stdout and commit_count(repo) == before + 1
    verbose = cli(repo, "import", "basic-memory", str(FIXTURES / "basic-memory"), "--scope", "user:U5", "-v")
    assert "unchanged  people/paul-graham.md" in verbose.stdout


def test_refused_files_are_listed_and_exit_1(repo: MemoryRepo, tmp_path: Path) -> None:
    write_file(tmp_path / "in/ok.md", "fine\n")
    write_file(tmp_path / "in/bad.md", "token ghp_abcdefghijklmnopqrstuvwxyz0123456789\n")
    done = cli(repo, "import", "markdown", str(tmp_path / "in"), "--scope", "user:U5", "--apply")
    assert done.returncode == 1
    assert "refused    bad.md: refused by rule secret/github-token" in done.stdout
    assert "1 create, 0 update, 0 unchanged, 1 refused" in done.stdout
    assert "1 file(s) refused" in done.stderr and user_memories(repo) == ["ok.md"]
    as_json = cli(repo, "import", "markdown", str(tmp_path / "in"), "--scope", "user:U5", "--json")
    report = json.loads(as_json.stdout)
    assert as_json.returncode == 1 and report["counts"]["refused"] == 1 and not report["applied"]
    assert {i["origin"]: i["action"] for i in report["items"]} == {"bad.md": "refused", "ok.md": "unchanged"}


def test_a_folder_without_scopes_needs_scope(repo: MemoryRepo) -> None:
    done = cli(repo, "import", "markdown", str(FIXTURES / "markdown"))
    assert done.returncode == 2 and "--scope: 4 note(s)" in done.stderr
    assert cli(repo, "import", "nonsense", str(FIXTURES)).returncode == 2


def test_export_letta(repo: MemoryRepo, tmp_path: Path) -> None:
    out = tmp_path / "letta"
    dry = cli(repo, "export", "letta", str(out))
    assert dry.returncode == 0 and "dry run" in dry.stdout and not out.exists()
    done = cli(repo, "export", "letta", str(out), "--apply")
    assert done.returncode == 0 and "create     system/persona.md" in done.stdout
    assert (out / ".memfs-letta.json").is_file()
    (out / "system/persona.md").write_text("---\ndescription: edited in Letta\n---\nnew\n")
    conflict = cli(repo, "export", "letta", str(out), "--apply")
    assert conflict.returncode == 1 and "conflict   system/persona.md: changed in Letta" in conflict.stdout
    inside = cli(repo, "export", "letta", str(repo.root / "sub"))
    assert inside.returncode == 2 and "inside the memory repository" in inside.stderr


def test_a_refusal_a_person_may_force_names_the_flag(repo: MemoryRepo, tmp_path: Path) -> None:
    folder = tmp_path / "letta"
    (folder / "system").mkdir(parents=True)
    (folder / "system/persona.md").write_text("---\ndescription: me\nread_only: true\n---\nI am Ada.\n")
    done = cli(repo, "import", "letta", str(folder), "--apply")
    assert done.returncode == 1
    assert "system/persona.md: is read_only: true" in done.stdout and "--force" in done.stdout
    forced = cli(repo, "import", "letta", str(folder), "--apply", "--force")
    assert forced.returncode == 0 and "I am Ada." in (repo.root / "system/persona.md").read_text()
