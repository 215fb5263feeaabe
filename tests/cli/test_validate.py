"""``memfs validate``: exit codes, JSON, named files (as pre-commit passes them), ``--strict``."""

from __future__ import annotations

import json

from memfs import MemoryRepo
from tests.helpers import FACT, VALID, cli, git, raw_memory, run_cli, write_file


def test_cli_validate_exit_codes_and_json(repo: MemoryRepo) -> None:
    assert cli(repo, "validate").returncode == 0
    write_file(repo.root / "facts/a.md", raw_memory(VALID.format(id="a") + "expires: next week\n"))
    done = cli(repo, "validate")
    assert done.returncode == 1
    assert "facts/a.md:7: error: expires: is not an ISO 8601 time: next week" in done.stdout
    assert "the memory is never recalled" in done.stdout and "2026-09-20T10:00:00Z" in done.stdout
    data = json.loads(cli(repo, "validate", "--json").stdout)
    assert data["ok"] is False and data["problems"][0]["field"] == "expires"


def test_cli_validate_only_named_files(repo: MemoryRepo) -> None:
    write_file(repo.root / "bad.md", "broken\n")
    write_file(repo.root / "good.md", raw_memory(VALID.format(id="good")))
    assert cli(repo, "validate", "good.md").returncode == 0
    assert cli(repo, "validate", "bad.md", "good.md").returncode == 1


def test_strict_fails_on_warnings(repo: MemoryRepo) -> None:
    write_file(repo.root / "a.md", raw_memory(VALID.format(id="a") + "ticket: B17\n"))
    assert cli(repo, "validate").returncode == 0
    assert cli(repo, "validate", "--strict").returncode == 1


def test_hook_style_paths_from_the_top_of_a_larger_repo(tmp_path) -> None:

    project = tmp_path / "project"
    project.mkdir()
    git(project, "init", "-q")
    mem = MemoryRepo.init(project / "memory")
    write_file(mem.root / "facts/a.md", raw_memory(VALID.format(id="a") + "confidence: 7\n"))
    write_file(mem.root / "facts/b.md", raw_memory(VALID.format(id="persona")))
    write_file(project / "src/app.py", "print()\n")
    done = run_cli("validate", "memory/facts/a.md", "memory/facts/b.md", "src/app.py", cwd=project)
    assert done.returncode == 1
    assert "facts/a.md:7: error: confidence" in done.stdout
    assert "facts/b.md: error: id: 'persona' is also used by memory/system/persona.md" in done.stdout
    assert run_cli("validate", "src/app.py", cwd=project).returncode == 0


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
