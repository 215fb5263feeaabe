"""A CLI that behaves like a good citizen: shell completion of values (types, statuses, source
kinds, templates, memory paths), ``-V`` for the version, exit codes in ``memfs --help``, and
``memfs ls`` never printing ``None``."""

from __future__ import annotations

from click.shell_completion import ShellComplete

from memfs import MemoryRepo
from memfs.cli import cli as group
from tests.helpers import cli, put, raw_memory, run_cli, write_file


def completions(*args: str, incomplete: str = "") -> list[str]:
    complete = ShellComplete(group, {}, "memfs", "_MEMFS_COMPLETE")
    return [item.value for item in complete.get_completions(list(args), incomplete)]


def test_values_complete(repo: MemoryRepo) -> None:
    put(repo, "facts/b17.md")
    put(repo, "facts/b18.md")
    assert completions("write", "x.md", "--type", incomplete="pr") == ["preference", "procedure"]
    assert completions("write", "x.md", "--status", incomplete="re") == ["retracted"]
    assert completions("add", "x.md", "--source-kind", incomplete="") == ["user", "tool", "agent", "document", "system"]
    assert completions("search", "--type", incomplete="ep") == ["episode"]
    assert "system" in completions("new", incomplete="") and completions("new", incomplete="fa") == ["fact"]
    assert completions("-C", str(repo.root), "show", incomplete="facts/") == ["facts/b17.md", "facts/b18.md"]
    assert completions("-C", str(repo.root), "retract", "facts/b17.md", incomplete="facts/b1") == [
        "facts/b17.md", "facts/b18.md"]
    assert completions("import", incomplete="") == ["letta", "basic-memory", "obsidian", "markdown"]
    assert completions("-C", str(repo.root / "nowhere"), "show", incomplete="") == []


def test_version_and_help(repo: MemoryRepo) -> None:
    for flag in ("-V", "--version"):
        done = run_cli(flag)
        assert done.returncode == 0 and done.stdout.startswith("memfs, version ")
    text = run_cli("--help").stdout
    for line in ("0  done", "1  the command ran and found problems", "2  usage error", "3  refused or failed"):
        assert line in text
    assert "_MEMFS_COMPLETE=bash_source memfs" in text
    assert cli(repo, "-q", "ls").returncode == 0


def test_ls_never_prints_none(repo: MemoryRepo) -> None:
    write_file(repo.root / "notes/hand.md", raw_memory("type: note\nscope: user:U5\n"))
    done = cli(repo, "ls")
    assert "notes/hand.md [no status] (user:U5)" in done.stdout and "None" not in done.stdout
    assert "hand.md [no status]" in cli(repo, "tree").stdout
