"""CLI verbs in this process (the ``memfs`` entry point through click's runner): one library call each."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memfs import MemoryRepo
from tests.helpers import FACT, PREFERENCE, cli, git, options, run_cli

PREF = options(PREFERENCE)
NOTE = options({**FACT, "type": "note"})


def test_new_from_every_template(repo: MemoryRepo) -> None:
    for name in ("preference", "fact", "episode", "procedure", "summary", "note"):
        done = cli(repo, "new", name, f"{name}s/example.md", "--scope", "user:U5", "--source", "test:cli")
        assert done.returncode == 0, done.stderr
        assert repo.read(f"{name}s/example.md").type == name
    done = cli(repo, "new", "system", "system/policy.md", "--source", "operator:setup")
    assert done.returncode == 0, done.stderr
    policy = repo.read("system/policy.md")
    assert policy.read_only and policy.limit == 2000
    assert cli(repo, "validate").returncode == 0
    done = cli(repo, "new", "nonsense", "x.md", "--scope", "user:U5", "--source", "t")
    assert done.returncode == 2 and "choose one of" in done.stderr


def test_write_with_body_from_stdin_and_fields(repo: MemoryRepo) -> None:
    done = cli(repo, "write", "prefs/lang.md", *PREF, "--tag", "writing", "--tag", "zh", "--expires",
               "2026-12-31T00:00:00Z", "--set", "ticket=B17", "--body-file", "-", "--json",
               input="以后P8的发布说明请用中文\n")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["changes"] == [{"path": "prefs/lang.md", "action": "create", "revision": 1}]
    memory = repo.read("prefs/lang.md")
    assert memory.body == "以后P8的发布说明请用中文\n" and memory.tags == ("writing", "zh")
    assert memory.meta["ticket"] == "B17" and memory.expires.year == 2026


def test_write_update_and_expect_revision(repo: MemoryRepo) -> None:
    cli(repo, "write", "prefs/lang.md", *PREF, "--body", "Chinese")
    assert cli(repo, "write", "prefs/lang.md", "--body", "English", "--expect-revision", "1").returncode == 0
    stale = cli(repo, "write", "prefs/lang.md", "--body", "French", "--expect-revision", "1")
    assert stale.returncode == 3 and "changed since you read it" in stale.stderr
    assert repo.read("prefs/lang.md").body == "English\n"
    assert "nothing changed" in cli(repo, "write", "prefs/lang.md", "--body", "English").stdout


@pytest.mark.parametrize(
    ("args", "words", "code"),
    [
        (["--expires", "2026-12-31"], "no time zone", 2),
        (["--expires", "soon"], "not an ISO 8601 time", 2),
        (["--set", "novalue"], "FIELD=VALUE", 2),
        (["--confidence", "2"], "outside 0..1", 3),
        (["--scope", "user:U5 extra"], "scope", 3),
    ],
)
def test_bad_options_are_one_line_errors(repo: MemoryRepo, args: list[str], words: str, code: int) -> None:
    done = cli(repo, "write", "x.md", *options(FACT), *args)
    assert done.returncode == code and words in done.stderr and "Traceback" not in done.stderr
    assert not (repo.root / "x.md").exists()


def test_add_refuses_existing_and_rm_deletes(repo: MemoryRepo) -> None:
    assert cli(repo, "add", "a.md", *NOTE).returncode == 0
    again = cli(repo, "add", "a.md", *NOTE)
    assert again.returncode == 3 and "already exists" in again.stderr
    assert cli(repo, "rm", "a.md", "--reason", "obsolete").returncode == 0
    assert not (repo.root / "a.md").exists()
    assert "Reason: obsolete" in git(repo.root, "log", "-1", "--format=%B")


def test_show_ls_tree(repo: MemoryRepo) -> None:
    cli(repo, "write", "prefs/lang.md", *PREF, "--description", "P8 notes in Chinese", "--body", "zh")
    cli(repo, "write", "old.md", *NOTE, "--status", "superseded")
    shown = cli(repo, "show", "prefs/lang.md")
    assert shown.stdout.startswith("---\nid: prefs/lang\n") and shown.stdout.endswith("zh\n")
    listing = cli(repo, "ls").stdout.splitlines()
    assert listing == ["system/persona.md  Who the agent is and how it uses this memory",
                       "prefs/lang.md (user:U5/project:P8)  P8 notes in Chinese"]
    assert "old.md [superseded]" in cli(repo, "ls", "--all").stdout
    tree = cli(repo, "tree").stdout
    assert tree.index("system/") < tree.index("prefs/") and "  lang.md — P8 notes in Chinese" in tree
    data = json.loads(cli(repo, "ls", "--json").stdout)
    assert [m["path"] for m in data["memories"]] == ["system/persona.md", "prefs/lang.md"]


def test_unreadable_files_are_reported_by_ls(repo: MemoryRepo) -> None:
    (repo.root / "broken.md").write_text("no frontmatter\n")
    done = cli(repo, "ls")
    assert done.returncode == 0 and "unreadable: broken.md" in done.stderr
    assert json.loads(cli(repo, "ls", "--json").stdout)["unreadable"][0]["path"] == "broken.md"


def test_commands_act_on_the_repo_containing_the_cwd(repo: MemoryRepo) -> None:
    (repo.root / "deep/er").mkdir(parents=True)
    done = run_cli("write", "a.md", *NOTE, cwd=repo.root / "deep/er")
    assert done.returncode == 0 and (repo.root / "a.md").exists()


def test_debug_shows_the_traceback(tmp_path: Path) -> None:
    plain = run_cli("-C", str(tmp_path), "ls")
    assert plain.returncode == 3 and "not inside a git repository" in plain.stderr
    debug = run_cli("--debug", "-C", str(tmp_path), "ls")
    assert "Traceback" in debug.stderr


def test_actor_option_sets_the_author(repo: MemoryRepo) -> None:
    cli(repo, "--actor", "user:alice", "write", "a.md", *NOTE)
    assert git(repo.root, "log", "-1", "--format=%an").strip() == "user:alice"
    run_cli("--actor", "user:alice", "-C", str(repo.root), "write", "b.md", *NOTE)
    assert git(repo.root, "log", "-1", "--format=%an").strip() == "user:alice"


def test_read_only_files_need_force(repo: MemoryRepo) -> None:
    persona = (repo.root / "system/persona.md").read_bytes()
    refused = cli(repo, "write", "system/persona.md", "--description", "hijacked")
    assert refused.returncode == 3 and "read_only: true" in refused.stderr and "--force" in refused.stderr
    assert cli(repo, "rm", "system/persona.md").returncode == 3
    assert (repo.root / "system/persona.md").read_bytes() == persona
    assert cli(repo, "write", "system/persona.md", "--description", "edited by a person", "--force").returncode == 0
    assert repo.read("system/persona.md").description == "edited by a person"


def test_operating_system_errors_are_one_line(repo: MemoryRepo) -> None:
    lock = repo.git.git_dir / "memfs.lock"
    lock.unlink()
    lock.mkdir()
    done = cli(repo, "write", "a.md", *NOTE)
    assert done.returncode == 3 and "Traceback" not in done.stderr
    assert done.stderr.startswith("memfs: error:") and "memfs.lock" in done.stderr
    assert not (repo.root / "a.md").exists()
