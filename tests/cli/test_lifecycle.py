"""Lifecycle through the CLI: the release-notes scenario end to end, ``remember``, ``history``,
``forget``, ``expire``, ``stats`` and ``purge``."""

from __future__ import annotations

import json

import pytest

from memfs import MemoryRepo
from memfs.errors import WriteRefused
from memfs.ops.purge import purge
from memfs.ops.remember import remember
from memfs.policy.candidate import from_mapping
from memfs.policy.reconcile import Op
from memfs.store.history import revisions
from tests.helpers import (
    PREFERENCE,
    PREFERENCE_PATH,
    all_object_texts,
    candidate,
    cli,
    commit_count,
    git,
    options,
    run_cli,
    user_memories,
)


def test_release_notes_scenario(repo: MemoryRepo) -> None:
    first = remember(
        repo.store, candidate("Write P8 release notes in Chinese.", "conversation:C1#msg-12", idempotency_key="C1-12")
    )
    assert (first.op, first.paths, first.revision) == (Op.INSERT, (PREFERENCE_PATH,), 1)
    assert git(repo.root, "log", "-1", "--format=%B").count("Memfs-Op: insert") == 1
    assert "Memfs-Idempotency-Key: C1-12" in git(repo.root, "log", "-1", "--format=%B")
    confidence = repo.store.read(PREFERENCE_PATH).confidence

    again = remember(repo.store, candidate("write P8 release notes in Chinese", "conversation:C2#msg-3"))
    assert (again.op, again.paths, again.revision) == (Op.REINFORCE, (PREFERENCE_PATH,), 1)
    reinforced = repo.store.read(PREFERENCE_PATH)
    assert reinforced.confidence > confidence and reinforced.revision == 1
    assert user_memories(repo) == [PREFERENCE_PATH]

    english = remember(repo.store, candidate("Write P8 release notes in English from now on.", "conversation:C3#msg-2"))
    assert (english.op, english.paths, english.revision) == (Op.SUPERSEDE, (PREFERENCE_PATH,), 2)
    now = repo.store.read(PREFERENCE_PATH)
    assert (now.revision, now.source, now.status) == (2, "conversation:C3#msg-2", "active")
    assert "English" in (now.description or "")
    history = revisions(repo.store, PREFERENCE_PATH)
    values = [(r.revision, r.value.strip(), r.source, r.op) for r in history]
    assert values[0] == (1, "Write P8 release notes in Chinese.", "conversation:C1#msg-12", "insert")
    assert values[-1] == (2, "Write P8 release notes in English from now on.", "conversation:C3#msg-2", "supersede")
    assert all(r.commit and r.time for r in history)

    before = commit_count(repo)
    with pytest.raises(WriteRefused) as refused:
        remember(repo.store, candidate("use English", "tool:web-search#3", source_kind="tool"))
    assert refused.value.refusals[0].rule == "untrusted-preference"
    with pytest.raises(WriteRefused) as refused:
        remember(repo.store, candidate("translate this to English", "conversation:C3#msg-9", key="translation"))
    assert refused.value.refusals[0].rule == "one-off-preference"
    with pytest.raises(WriteRefused) as refused:
        remember(
            repo.store,
            from_mapping(
                {
                    "scope": "user:U5",
                    "type": "fact",
                    "body": "U5's password is Sup3r$ecret",
                    "source": "conversation:C4#msg-1",
                    "source_kind": "user",
                }
            ),
        )
    assert refused.value.refusals[0].rule == "secret/password"
    assert not refused.value.refusals[0].forceable
    assert commit_count(repo) == before
    assert git(repo.root, "status", "--porcelain") == ""
    assert user_memories(repo) == [PREFERENCE_PATH]

    replay = remember(
        repo.store, candidate("Write P8 release notes in Chinese.", "conversation:C1#msg-12", idempotency_key="C1-12")
    )
    assert replay.op is Op.NOOP and replay.commit is None and "already applied" in replay.reason
    assert commit_count(repo) == before and repo.store.read(PREFERENCE_PATH).revision == 2

    report = purge(repo.store, PREFERENCE_PATH, reason="U5 asked to erase this preference")
    assert report.verified, report.remaining
    assert not (repo.root / PREFERENCE_PATH).exists()
    texts = all_object_texts(repo.root)
    assert "release notes in Chinese" not in texts and "English from now on" not in texts
    assert "Memfs-Op: purge" in git(repo.root, "log", "-1", "--format=%B")
    found = run_cli("search", "release notes", "--json", cwd=repo.root)
    assert found.returncode == 0 and "release notes in" not in found.stdout


def test_cli_remember_json_history_and_refusal(repo: MemoryRepo) -> None:
    data = json.dumps({**PREFERENCE, "body": "Chinese", "source": "c:1", "idempotency_key": "x"})
    out = run_cli("remember", "--json", "-", cwd=repo.root, input=data)
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["op"] == "INSERT" and result["paths"] == [PREFERENCE_PATH] and result["commit"]
    assert json.loads(run_cli("remember", "--json", "-", cwd=repo.root, input=data).stdout)["op"] == "NOOP"
    out = run_cli("remember", *options({**PREFERENCE, "source": "c:2", "value": "English"}), cwd=repo.root)
    assert out.returncode == 0 and out.stdout.startswith(f"SUPERSEDE {PREFERENCE_PATH} (revision 2)")
    hist = run_cli("history", PREFERENCE_PATH, cwd=repo.root)
    assert "revision 1" in hist.stdout and "revision 2" in hist.stdout and "Chinese" in hist.stdout
    bad = json.dumps({"scope": "user:U5", "body": "key AKIAIOSFODNN7EXAMPLE", "source": "c:3"})
    out = run_cli("remember", "--json", "-", cwd=repo.root, input=bad)
    assert out.returncode == 3
    refusal = json.loads(out.stdout)
    assert refusal["op"] == "REFUSED" and refusal["refusals"][0]["rule"] == "secret/aws-access-key"
    assert refusal["error"]["type"] == "WriteRefused" and refusal["error"]["exit"] == 3
    assert "AKIAIOSFODNN7EXAMPLE" not in out.stdout + out.stderr


def test_cli_forget_expire_stats_purge(repo: MemoryRepo) -> None:
    remember(repo.store, candidate("Chinese", "c:1"))
    assert run_cli("forget", PREFERENCE_PATH, "--reason", "asked", cwd=repo.root).returncode == 0
    assert "nothing has expired" in run_cli("expire", cwd=repo.root).stdout
    assert json.loads(run_cli("stats", "--json", cwd=repo.root).stdout)["by_status"]["retracted"] == 1
    aborted = run_cli("purge", PREFERENCE_PATH, "--reason", "r", cwd=repo.root, input="n\n")
    assert aborted.returncode == 2 and "--yes" in aborted.stderr and (repo.root / PREFERENCE_PATH).exists()
    done = run_cli("purge", PREFERENCE_PATH, "--reason", "r", "--yes", "--json", cwd=repo.root)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["verified"] is True


def test_the_gate_says_why_and_how_to_override(repo: MemoryRepo) -> None:
    done = cli(repo, "--actor", "tool:ci", "remember", "--type", "procedure", "--scope", "project:P8",
               "--source", "ci:P8/pipelines/4821", "--source-kind", "tool", "--body", "Never use pdf-export on CI.")
    assert done.returncode == 0, done.stderr
    assert "stored needs_review (rule single-event-rule)" in done.stdout and "--force" in done.stdout
    refused = cli(repo, "remember", "--type", "preference", "--scope", "user:U5", "--source", "conversation:C9",
                  "--source-kind", "user", "--body", "Reply to the next email in English.")
    assert refused.returncode == 3 and "one-off-preference" in refused.stderr and "--force" in refused.stderr


def shout(group: list) -> str:  # type: ignore[type-arg]
    """A summariser for ``memfs consolidate --summariser tests.cli.test_lifecycle:shout``."""
    return "LOUD: " + ", ".join(m.path for m in group) + "\n"


def test_prune_and_consolidate_are_dry_runs_until_applied(repo: MemoryRepo) -> None:
    from tests.integration.test_prune_consolidate import _episodes

    _episodes(repo)
    head = commit_count(repo)
    dry = cli(repo, "prune", "--now", "2026-10-01T00:00:00Z")
    assert dry.returncode == 0 and "dry run: nothing changed" in dry.stdout and commit_count(repo) == head
    shown = cli(repo, "consolidate", "--now", "2026-10-01T00:00:00Z")
    assert shown.returncode == 0 and "would write summaries/2026-09-02-" in shown.stdout
    assert "dry run: nothing changed" in shown.stdout and commit_count(repo) == head
    done = cli(repo, "consolidate", "--apply", "--now", "2026-10-01T00:00:00Z", "--summariser",
               "tests.cli.test_lifecycle:shout", "--json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["applied"] and result["commit"] and commit_count(repo) == head + 1
    assert result["groups"][0]["body"].startswith("LOUD: episodes/pdf-0.md")
    for spec in ("no_such_module:x", "tests.cli.no_such:x", "tests.cli.test_lifecycle:nope", "shout"):
        bad = cli(repo, "consolidate", "--summariser", spec)
        assert bad.returncode == 2 and "--summariser" in bad.stderr, spec
    applied = cli(repo, "prune", "--apply", "--now", "2026-10-01T00:00:00Z")  # 3 active episodes: the quota
    assert applied.returncode == 0 and "nothing to forget under the rules" in applied.stdout


def test_the_review_queue_says_what_the_gate_held_back(repo: MemoryRepo) -> None:
    cli(repo, "--actor", "tool:ci", "remember", "--type", "procedure", "--scope", "project:P8", "--source", "ci:1",
        "--source-kind", "tool", "--body", "Never use pdf-export on CI.")
    queue = cli(repo, "review")
    assert queue.returncode == 0 and "held back by the write gate" in queue.stdout
    assert "rule single-event-rule" in queue.stdout and "a person confirms it with memfs reinstate" in queue.stdout
