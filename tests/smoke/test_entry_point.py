"""The CLI through its real entry point (``python -m memfs`` in a fresh process): init, write, show
and log; an error line with exit 3; usage errors with exit 2; ``--version`` and ``--help``; a
memory-tool request read from stdin as bytes; git's repository variables exported (as in a
hook) redirect nothing; ``memfs validate`` as a git pre-commit hook."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from memfs import MemoryRepo
from tests.helpers import FACT, PERSON, VALID, git, options, raw_memory, run_process, write_file

pytestmark = pytest.mark.slow


def test_init_write_show_log(tmp_path: Path) -> None:
    mem = tmp_path / "mem"
    assert run_process("init", str(mem)).returncode == 0
    fields = options({**FACT, "type": "preference"})
    done = run_process("-C", str(mem), "write", "prefs/lang.md", *fields, "--body", "Release notes in Chinese.")
    assert done.returncode == 0, done.stderr
    shown = json.loads(run_process("-C", str(mem), "show", "prefs/lang.md", "--json").stdout)
    assert shown["scope"] == "user:U5" and shown["revision"] == 1
    log = json.loads(run_process("-C", str(mem), "log", "--json").stdout)
    assert [e["op"] for e in log] == ["create", "init"]


def test_error_is_one_line_exit_3(tmp_path: Path) -> None:
    done = run_process("-C", str(tmp_path), "show", "nothing.md")
    assert done.returncode == 3
    assert done.stderr.startswith("memfs: error:") and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_usage_errors_exit_2(repo: MemoryRepo) -> None:
    unknown = run_process("-C", str(repo.root), "ls", "--no-such-option")
    assert unknown.returncode == 2
    assert unknown.stderr == "memfs: error: No such option '--no-such-option' (see 'memfs ls --help')\n"
    assert "Traceback" not in unknown.stderr and unknown.stdout == ""
    bad = run_process("-C", str(repo.root), "write", "x.md", *options(FACT), "--expires", "2026-12-31T10:00")
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert bad.stderr.startswith("memfs: error: --expires '2026-12-31T10:00':") and "no time zone" in bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1
    assert not (repo.root / "x.md").exists()


def test_version_and_help() -> None:
    from importlib.metadata import version

    done = run_process("--version")
    assert done.returncode == 0 and done.stdout.strip() == f"memfs, version {version('memfs')}"
    helped = run_process("--help")
    assert helped.returncode == 0 and helped.stdout.startswith("Usage: memfs [OPTIONS] COMMAND [ARGS]...")
    assert "Exit codes:\n    0  done\n" in helped.stdout and "  write " in helped.stdout


def test_tool_reads_its_request_from_stdin_as_bytes(repo: MemoryRepo) -> None:
    request = {"command": "create", "path": "notes/zh.md", "file_text": "发布说明用中文", "reason": "bytes"}
    data = json.dumps(request, ensure_ascii=False).encode("utf-8")
    done = run_process("-C", str(repo.root), "tool", "--scope", "user:U5", input=data)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["ok"] and repo.store.read("notes/zh.md").body == "发布说明用中文\n"
    request = b'{"command":"create","path":"n.md","file_text":"\xff"}'
    refused = run_process("-C", str(repo.root), "tool", "--all-scopes", input=request)
    assert refused.returncode == 2 and "not UTF-8" in refused.stderr
    assert not (repo.root / "n.md").exists()


def test_exported_git_environment_does_not_redirect_the_command(repo: MemoryRepo, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    git(other, "init", "-q")
    write_file(other / "readme.txt", "another project\n")
    git(other, "add", "-A")
    git(other, *PERSON, "commit", "-qm", "other")
    before = (git(other, "rev-parse", "HEAD"), (other / ".git/index").read_bytes())
    env = {"GIT_DIR": str(other / ".git"), "GIT_WORK_TREE": str(other), "GIT_INDEX_FILE": str(other / ".git/index")}
    done = run_process("-C", str(repo.root), "write", "notes/x.md", *options(FACT), "--body", "x", "--json", env=env)
    assert done.returncode == 0, done.stderr
    assert git(repo.root, "rev-parse", "HEAD").strip() == json.loads(done.stdout)["commit"]
    assert git(repo.root, "show", "--name-only", "--format=", "HEAD").split() == ["notes/x.md"]
    assert (git(other, "rev-parse", "HEAD"), (other / ".git/index").read_bytes()) == before
    assert git(other, "status", "--porcelain") == "" and not (other / "notes").exists()


def test_validate_as_a_pre_commit_hook(repo: MemoryRepo) -> None:
    hook = repo.store.git.git_dir / "hooks/pre-commit"
    hook.write_text(f"#!/bin/sh\nexec {shlex.quote(sys.executable)} -m memfs validate\n")
    hook.chmod(0o755)
    write_file(repo.root / "notes/bad.md", raw_memory(VALID.format(id="bad") + "expires: next week\n"))
    git(repo.root, "add", "notes/bad.md")
    refused = subprocess.run(["git", *PERSON, "commit", "-qm", "bad"], cwd=repo.root, capture_output=True, text=True)
    assert refused.returncode != 0 and "expires: is not an ISO 8601 time" in refused.stdout + refused.stderr
    write_file(repo.root / "notes/bad.md", raw_memory(VALID.format(id="bad") + "expires: 2030-01-01T00:00:00Z\n"))
    accepted = subprocess.run(
        ["git", *PERSON, "commit", "-qm", "fixed", "--", "notes/bad.md"], cwd=repo.root, capture_output=True, text=True
    )
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr
    assert git(repo.root, "log", "-1", "--format=%s").strip() == "fixed"
