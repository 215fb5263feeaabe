"""``memfs new``, ``write``, ``add`` and ``rm``: fields from options, the body from stdin, stale revisions,
bad values as one-line errors."""

from __future__ import annotations

import json

import pytest

from memfs import MemoryRepo
from tests.helpers import FACT, NOTE, PREFERENCE, cli, git, options


def test_new_from_every_template(repo: MemoryRepo) -> None:
    for name in ("preference", "fact", "episode", "procedure", "summary", "note"):
        done = cli(repo, "new", name, f"{name}s/example.md", "--scope", "user:U5", "--source", "test:cli")
        assert done.returncode == 0, done.stderr
        assert repo.store.read(f"{name}s/example.md").type == name
    done = cli(repo, "new", "system", "system/policy.md", "--source", "operator:setup")
    assert done.returncode == 0, done.stderr
    policy = repo.store.read("system/policy.md")
    assert policy.read_only and policy.limit == 2000
    assert cli(repo, "validate").returncode == 0
    done = cli(repo, "new", "nonsense", "x.md", "--scope", "user:U5", "--source", "t")
    assert done.returncode == 2 and "choose one of" in done.stderr


def test_write_with_body_from_stdin_and_fields(repo: MemoryRepo) -> None:
    done = cli(repo, "write", "prefs/lang.md", *options(PREFERENCE), "--tag", "writing", "--tag", "zh", "--expires",
               "2026-12-31T00:00:00Z", "--set", "ticket=B17", "--body-file", "-", "--json",
               input="以后P8的发布说明请用中文\n")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["changes"] == [{"path": "prefs/lang.md", "action": "create", "revision": 1}]
    memory = repo.store.read("prefs/lang.md")
    assert memory.body == "以后P8的发布说明请用中文\n" and memory.tags == ("writing", "zh")
    assert memory.meta["ticket"] == "B17" and memory.expires.year == 2026


def test_write_update_and_expect_revision(repo: MemoryRepo) -> None:
    cli(repo, "write", "prefs/lang.md", *options(PREFERENCE), "--body", "Chinese")
    assert cli(repo, "write", "prefs/lang.md", "--body", "English", "--expect-revision", "1").returncode == 0
    stale = cli(repo, "write", "prefs/lang.md", "--body", "French", "--expect-revision", "1")
    assert stale.returncode == 3 and "changed since you read it" in stale.stderr
    assert repo.store.read("prefs/lang.md").body == "English\n"
    assert "nothing changed" in cli(repo, "write", "prefs/lang.md", "--body", "English").stdout


@pytest.mark.parametrize(
    ("args", "words", "code"),
    [
        (["--expires", "2026-12-31T10:00"], "no time zone", 2),
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
    assert cli(repo, "add", "a.md", *options(NOTE)).returncode == 0
    again = cli(repo, "add", "a.md", *options(NOTE))
    assert again.returncode == 3 and "already exists" in again.stderr
    assert cli(repo, "rm", "a.md", "--reason", "obsolete").returncode == 0
    assert not (repo.root / "a.md").exists()
    assert "Reason: obsolete" in git(repo.root, "log", "-1", "--format=%B")


def test_names_in_any_script_through_the_cli(repo: MemoryRepo) -> None:
    rel = "笔记/会议.md"
    wrote = cli(repo, "write", rel, *options(FACT), "--body", "会议纪要: ship on Friday", "--expires", "2030-01-01")
    assert wrote.returncode == 0, wrote.stderr
    shown = json.loads(cli(repo, "show", rel, "--json").stdout)
    assert shown["id"] == "笔记/会议" and shown["expires"] == "2030-01-01T00:00:00Z"
    assert rel in cli(repo, "ls").stdout and cli(repo, "validate").returncode == 0
    found = json.loads(cli(repo, "search", "会议纪要", "--scope", "user:U5", "--json").stdout)
    assert [h["path"] for h in found["hits"]] == [rel]
    assert cli(repo, "retract", rel, "--reason", "wrong day").returncode == 0
    explained = json.loads(cli(repo, "search", "会议纪要", "--scope", "user:U5", "--explain", "--json").stdout)
    assert explained["hits"] == [] and explained["filtered"][0]["path"] == rel
    assert cli(repo, "revert", "HEAD", "--reason", "it was right").returncode == 0
    moved = "笔记/会议 记录.md"
    request = {"command": "rename", "old_path": rel, "new_path": moved, "reason": "clearer"}
    renamed = cli(repo, "tool", "--scope", "user:U5", input=json.dumps(request, ensure_ascii=False))
    assert renamed.returncode == 0 and json.loads(renamed.stdout)["path"] == moved
    assert f"{rel} -> {moved}" in cli(repo, "log", moved).stdout
    found = json.loads(cli(repo, "search", "会议纪要", "--scope", "user:U5", "--json").stdout)
    assert [h["path"] for h in found["hits"]] == [moved]
    preference = {**PREFERENCE, "key": "发布说明语言"}
    remembered = cli(repo, "remember", *options(preference), "--body", "用中文写发布说明")
    assert remembered.returncode == 0, remembered.stderr
    assert repo.store.read("prefs/发布说明语言--user-u5-project-p8-f32854.md").key == "发布说明语言"
    refused = cli(repo, "write", "笔记/会议\x07.md", *options(FACT), "--body", "x")
    assert refused.returncode == 3 and "control character U+0007" in refused.stderr
