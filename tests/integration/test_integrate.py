"""Writer refs and the integrator against a bare remote (file transport): writers push to
``memfs/writers/<writer>`` and never race for ``main``; ``integrate`` brings every writer ref into
``main`` with sync's reconcile rules, is idempotent, holds a writer it cannot integrate without
stopping the others, and says what to do about a remote that refuses, a rewritten ``main`` and a
deleted writer ref, losing nothing."""

from __future__ import annotations

import random
import stat
from pathlib import Path

import pytest

from memfs import MemoryRepo
from memfs.errors import GitError, SyncRefused, UsageError
from memfs.ops import integrate as integrator
from memfs.ops.sync import Waiting, sync
from tests.helpers import PERSON, Clone, count_git_commands, git, remote_head


def fact(scope: str, key: str, value: str) -> dict[str, object]:
    return {"type": "fact", "scope": scope, "key": key, "body": value, "source": f"doc:{value}",
            "source_kind": "document"}


def writer_sync(repo: MemoryRepo) -> None:
    result = sync(repo.store, route="writer-ref")
    assert result.pushed_to == f"memfs/writers/agent-{repo.root.name}", result


def writer_refs(remote: Path) -> dict[str, str]:
    out = git(remote, "for-each-ref", "--format=%(refname) %(objectname)", "refs/heads/memfs/writers/")
    return dict(line.split() for line in out.splitlines())


def hook(remote: Path, script: str) -> Path:
    """A ``pre-receive`` hook on the remote (what a host's branch protection does)."""
    path = remote / "hooks" / "pre-receive"
    path.write_text("#!/bin/sh\n" + script)
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return path


def test_writers_push_their_own_refs_and_the_integrator_brings_them_into_main(clone: Clone, remote: Path) -> None:
    a, b, i = clone("a"), clone("b"), clone("i")
    main = remote_head(remote)
    a.remember(fact("team:x", "lang", "english"))
    b.remember(fact("team:y", "tool", "ruff"))
    writer_sync(a)
    writer_sync(b)
    assert remote_head(remote) == main  # no writer touched main
    again = sync(a.store, route="writer-ref")
    assert (again.pushed, again.waiting) == (0, 1)
    assert "1 commit(s) on origin/memfs/writers/agent-a wait for 'memfs integrate'" in again.summary()[1]
    assert set(writer_refs(remote)) == {"refs/heads/memfs/writers/agent-a", "refs/heads/memfs/writers/agent-b"}
    result = i.integrate()
    assert [(w.writer, w.outcome) for w in result.writers] == [("agent-a", "fast-forward"), ("agent-b", "merge")]
    assert result.pushed == 3 and remote_head(remote) == i.store.git.head()
    again = i.integrate()
    assert (again.pushed, again.after, [w.outcome for w in again.writers]) == (0, result.after, ["none", "none"])
    assert again.summary()[0].endswith("nothing to integrate")
    writer_sync(a)  # reads main: a fast-forward, nothing to push
    assert {m.scope for m in a.store.scan().memories if m.key} == {"team:x", "team:y"}
    a.remember(fact("team:x", "lang", "german"))
    writer_sync(a)
    assert i.integrate().writers[0].outcome == "fast-forward"  # a's ref descends from main


def test_a_writer_ref_sync_reads_the_config_once_and_asks_one_merge_base_per_integration(
        clone: Clone, remote: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    a, b, i = clone("a"), clone("b"), clone("i")
    for repo in (a, b):
        repo.remember(fact(f"team:{repo.root.name}", "lang", "english"))
        writer_sync(repo)
    i.integrate()
    a.remember(fact("team:a", "tool", "ruff"))
    started = count_git_commands(monkeypatch)
    result = sync(a.store, route="writer-ref")
    assert result.integrated == "rebase" and result.pushed == 1
    # own ref merged (up to date), main rebased onto, then the no-force check before the push
    assert started["merge-base"] == 4 and started["config"] == 1 and started["remote"] == 0, started
    # one status for the clean tree and the uncommitted memories, one for the catalog; two diffs
    # for what each side changed, one for the catalog; no diff for a broken merge (no file both changed)
    assert started["status"] == 2 and started["diff"] == 3 and started["gc.auto=0"] == 1, started


def test_published_commits_are_merged_never_rebased_so_a_writer_ref_only_moves_forward(
        clone: Clone, remote: Path) -> None:
    a, b, i = clone("a"), clone("b"), clone("i")
    a.remember(fact("team:x", "lang", "english"))
    writer_sync(a)
    ref = "refs/heads/memfs/writers/agent-a"
    published = writer_refs(remote)[ref]
    b.remember(fact("team:y", "tool", "ruff"))
    writer_sync(b)
    git(remote, "update-ref", "-d", ref)  # the integrator takes b alone: main moves on without a's commit
    i.integrate()
    git(remote, "update-ref", ref, published)
    a.remember(fact("team:x", "editor", "vim"))
    assert sync(a.store, route="writer-ref").integrated == "merge"  # a's ref held commits main lacked
    tip = writer_refs(remote)[ref]
    assert git(remote, "merge-base", "--is-ancestor", published, tip) == ""
    i.integrate()
    a.remember(fact("team:x", "shell", "bash"))
    assert sync(a.store, route="writer-ref").integrated == "none"  # main has all a published: nothing to merge
    b.remember(fact("team:y", "os", "linux"))
    writer_sync(b)
    i.integrate()
    a.remember(fact("team:x", "font", "mono"))
    assert sync(a.store, route="writer-ref").integrated == "rebase"  # unpublished commits only: rebased


def test_concurrent_values_are_reconciled_and_a_retraction_against_a_new_value_is_a_review_item(
        clone: Clone, remote: Path) -> None:
    a, b, i = clone("a"), clone("b"), clone("i")
    (path,) = a.remember(fact("team:x", "lang", "english")).paths
    writer_sync(a)
    i.integrate()
    writer_sync(b)
    a.retract([path], reason="english was wrong")
    b.remember(fact("team:x", "lang", "french"))
    writer_sync(a)
    writer_sync(b)
    result = i.integrate()
    assert result.held == ()
    (settled,) = [s for w in result.writers for s in w.reconciled]
    assert settled.path == path and settled.review
    assert i.store.read(path).status == "needs_review"
    assert path in {item.path for group in i.review_queue() for item in group.items}
    assert "status: retracted" in git(remote, "log", "-p", "main", "--format=", "--", path)


def test_lineage_is_kept_once_per_round_and_reported_with_the_writer_whose_memory_it_flags(
        clone: Clone, remote: Path) -> None:
    a, b, c, i = clone("a"), clone("b"), clone("c"), clone("i")
    a.write("facts/root.md", fields={**fact("team:x", "root", "r"), "key": "root"}, body="the root\n")
    writer_sync(a)
    i.integrate()
    sync(b.store, route="writer-ref")
    a.retract(["facts/root.md"], reason="the source was wrong")
    b.write("notes/derived.md", fields={**fact("team:x", "derived", "d"), "type": "note", "key": "derived",
                                         "depends_on": ["facts/root.md"]}, body="derived from the root\n")
    c.remember(fact("team:y", "tool", "ruff"))
    for repo in (a, b, c):
        writer_sync(repo)
    result = i.integrate()
    assert result.held == () and result.pushed
    flagged = {w.writer: [s.path for s in w.reconciled] for w in result.writers}
    assert flagged == {"agent-a": [], "agent-b": ["notes/derived.md"], "agent-c": []}
    assert i.store.read("notes/derived.md").status == "needs_review"
    assert i.store.read("facts/root.md").status == "retracted"
    assert "notes/derived.md" in git(remote, "log", "--name-only", "--format=%s", "-1", "main")


def test_a_writer_that_cannot_be_integrated_is_held_and_the_others_flow(clone: Clone, remote: Path) -> None:
    a, b, c, i = clone("a"), clone("b"), clone("c"), clone("i")
    for repo, text in ((a, "one\n"), (b, "two\n")):
        (repo.root / "notes.txt").write_text(text)
        git(repo.root, "add", "notes.txt")
        git(repo.root, *PERSON, "commit", "-q", "-m", "notes")
        writer_sync(repo)
    c.remember(fact("team:x", "lang", "english"))
    writer_sync(c)
    result = i.integrate()
    assert [(w.writer, w.outcome) for w in result.writers] == [
        ("agent-a", "fast-forward"), ("agent-b", "held"), ("agent-c", "merge")]
    assert "notes.txt" in result.held[0].detail and result.pushed
    assert (i.root / "notes.txt").read_text() == "one\n" and i.store.git.head() == remote_head(remote)
    assert i.integrate().held[0].writer == "agent-b"  # retried each round, still not blocking


def test_a_secret_on_a_writer_ref_is_held_and_none_of_it_kept(clone: Clone, remote: Path) -> None:
    token = "ghp_" + "aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6"
    a, i = clone("a"), clone("i")
    (a.root / "notes.txt").write_text(f"the bot uses {token}\n")
    git(a.root, "add", "notes.txt")
    git(a.root, *PERSON, "commit", "-q", "--no-verify", "-m", "notes")
    git(a.root, "push", "-q", "origin", "HEAD:refs/heads/memfs/writers/agent-a")
    git(i.root, "fetch", "-q", "origin")  # a checkout that fetched every branch vouches for nothing
    (held,) = i.integrate().held
    assert "carry a secret" in held.detail and token not in held.detail
    assert i.store.git.rev("refs/memfs/writers/origin/agent-a") is None
    assert "notes.txt" not in git(remote, "ls-tree", "--name-only", "main")


def test_writer_refs_are_fetched_together_and_a_secret_in_one_holds_that_writer_alone(
        clone: Clone, remote: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    token = "ghp_" + "aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6"
    a, b, c, i = clone("a"), clone("b"), clone("c"), clone("i")
    for repo, key in ((a, "lang"), (c, "tool")):
        repo.remember(fact(f"team:{key}", key, "english"))
        writer_sync(repo)
    (b.root / "notes.txt").write_text(f"the bot uses {token}\n")
    git(b.root, "add", "notes.txt")
    git(b.root, *PERSON, "commit", "-q", "--no-verify", "-m", "notes")
    git(b.root, "push", "-q", "origin", "HEAD:refs/heads/memfs/writers/agent-b")
    result = i.integrate()
    assert [(w.writer, w.outcome) for w in result.writers] == [
        ("agent-a", "fast-forward"), ("agent-b", "held"), ("agent-c", "merge")]
    assert "carry a secret" in result.held[0].detail and result.pushed
    assert i.store.git.rev("refs/memfs/writers/origin/agent-b") is None
    assert sorted(ref for ref, _ in i.store.git.refs("refs/memfs/writers/")) == [
        "refs/memfs/writers/origin/agent-a", "refs/memfs/writers/origin/agent-c"]
    secret_blob = git(b.root, "rev-parse", "HEAD:notes.txt").strip()
    assert secret_blob not in git(i.root, "cat-file", "--batch-all-objects", "--batch-check=%(objectname)")
    d = clone("d")  # clean moves of two writers come in one fetch, each with its own tracking ref
    for repo, key in ((a, "lang2"), (d, "tool2")):
        repo.remember(fact(f"team:{key}", key, "english"))
        writer_sync(repo)
    started = count_git_commands(monkeypatch)
    again = i.integrate()
    fetches = started["gc.auto=0"]  # each quarantined fetch: git -c gc.auto=0 ... fetch
    assert fetches == 3, started  # main, the two clean moved writer refs at once, b's held one alone
    assert {w.writer: w.outcome for w in again.writers}["agent-d"] in ("fast-forward", "merge")
    assert i.store.git.rev("refs/memfs/writers/origin/agent-d") == writer_refs(remote)[
        "refs/heads/memfs/writers/agent-d"]
    assert i.store.git.head() == remote_head(remote)


def test_a_remote_that_refuses_main_loses_nothing_and_says_what_to_do(clone: Clone, remote: Path) -> None:
    a, i = clone("a"), clone("i")
    a.remember(fact("team:x", "lang", "english"))
    writer_sync(a)
    main = remote_head(remote)
    guard = hook(remote, 'while read old new ref; do [ "$ref" = refs/heads/main ] && '
                         '{ echo "main is protected" >&2; exit 1; }; done; exit 0\n')
    with pytest.raises(GitError, match=r"(?s)refused the push of main.*protected.*Nothing was lost.*Allow this"):
        i.integrate()
    assert remote_head(remote) == main and i.store.read("facts/lang--team-x.md").body == "english\n"
    git(remote, "update-ref", "-d", "refs/heads/memfs/writers/agent-a")  # and the writer ref goes too
    guard.unlink()
    result = i.integrate()
    assert result.pushed and [(w.writer, w.outcome) for w in result.writers] == [("agent-a", "none")]
    assert "facts/lang--team-x.md" in git(remote, "ls-tree", "-r", "--name-only", "main")
    assert [w.outcome for w in i.integrate().writers] == ["gone"]
    assert i.store.git.refs("refs/memfs/writers/") == []


def test_a_writer_ref_deleted_before_integration_is_integrated_from_the_copy_fetched_before(
        clone: Clone, remote: Path) -> None:
    a, b, i = clone("a"), clone("b"), clone("i")
    for repo, path in ((a, "notes.txt"), (b, "notes.txt")):
        (repo.root / path).write_text(repo.root.name)
        git(repo.root, "add", path)
        git(repo.root, *PERSON, "commit", "-q", "-m", "notes")
        writer_sync(repo)
    assert i.integrate().held[0].writer == "agent-b"  # fetched, held
    git(remote, "update-ref", "-d", "refs/heads/memfs/writers/agent-b")
    (outcome,) = [w for w in i.integrate().writers if w.writer == "agent-b"]
    assert outcome.outcome == "held" and "deleted on the remote" in outcome.detail


def test_a_writer_whose_own_ref_was_deleted_pushes_it_again_with_everything(clone: Clone, remote: Path) -> None:
    a, i = clone("a"), clone("i")
    ref = "refs/heads/memfs/writers/agent-a"
    a.remember(fact("team:x", "lang", "english"))
    writer_sync(a)
    first = writer_refs(remote)[ref]
    git(remote, "update-ref", "-d", ref)  # deleted on the server before the integrator saw it
    a.remember(fact("team:x", "tool", "ruff"))
    result = sync(a.store, route="writer-ref")
    assert result.pushed == 2 and result.attempts == 1, result  # both commits, one try, no force
    assert git(remote, "merge-base", "--is-ancestor", first, writer_refs(remote)[ref]) == ""
    i.integrate()
    names = git(remote, "ls-tree", "-r", "--name-only", "main")
    assert "facts/lang--team-x.md" in names and "facts/tool--team-x.md" in names


def test_a_writer_syncing_after_main_was_force_pushed_keeps_its_commits_and_its_ref_moves_forward(
        clone: Clone, remote: Path) -> None:
    a, i = clone("a"), clone("i")
    before = remote_head(remote)
    a.remember(fact("team:x", "lang", "english"))
    writer_sync(a)
    i.integrate()
    ref = "refs/heads/memfs/writers/agent-a"
    published = writer_refs(remote)[ref]
    git(remote, "update-ref", "refs/heads/main", before)  # main force-pushed back by someone
    a.remember(fact("team:x", "tool", "ruff"))
    result = sync(a.store, route="writer-ref")
    assert result.pushed >= 1 and git(remote, "merge-base", "--is-ancestor", published, writer_refs(remote)[ref]) == ""
    assert a.store.read("facts/lang--team-x.md").body == "english\n"
    with pytest.raises(SyncRefused, match=r"was rewritten \(force-pushed\).*Nothing was pushed"):
        i.integrate()
    assert remote_head(remote) == before  # the integrator pushed nothing over the rewrite


def test_a_rewritten_main_stops_the_integrator_with_nothing_pushed(clone: Clone, remote: Path) -> None:
    a, i = clone("a"), clone("i")
    a.remember(fact("team:x", "lang", "english"))
    writer_sync(a)
    i.integrate()
    before = git(remote, "rev-parse", "main~1").strip()
    git(remote, "update-ref", "refs/heads/main", before)  # force-pushed back by someone
    with pytest.raises(SyncRefused, match=r"was rewritten \(force-pushed\).*Nothing was pushed"):
        i.integrate()
    assert remote_head(remote) == before


def test_two_integrators_compare_and_swap_main_and_lose_nothing(clone: Clone, remote: Path) -> None:
    a, b, i, j = clone("a"), clone("b"), clone("i"), clone("j")
    a.remember(fact("team:x", "lang", "english"))
    writer_sync(a)
    j.integrate()  # j pushes first; i's local main is behind and has nothing of its own
    b.remember(fact("team:y", "tool", "ruff"))
    writer_sync(b)
    i_hook = i.store.git.git_dir / "hooks" / "pre-push"
    i_hook.write_text(f'#!/bin/sh\n[ -e "{i.root}.raced" ] && exit 0; touch "{i.root}.raced"; '
                      f'git -C "{j.root}" commit -q --allow-empty -m race && git -C "{j.root}" push -q origin main\n')
    i_hook.chmod(0o755)
    git(j.root, "config", "user.name", "j")
    git(j.root, "config", "user.email", "j@example.invalid")
    result = i.integrate(attempts=3)
    assert result.attempts == 2 and remote_head(remote) == i.store.git.head()
    assert git(remote, "log", "--format=%s", "-8", "main").count("race") == 1
    assert {m.key for m in i.store.scan().memories if m.key} == {"lang", "tool"}


def test_watch_sleeps_between_rounds_and_a_failed_round_does_not_stop_the_next(
        clone: Clone, remote: Path) -> None:
    i = clone("i")
    slept: list[float] = []
    seen: list[str] = []

    def report(item: object) -> None:
        seen.append(type(item).__name__)
        git(i.root, "remote", "set-url", "origin", str(remote))  # the remote is back

    how = integrator.Rounds(5.0, 3, Waiting(clock=lambda: 0.0, sleep=slept.append, rng=random.Random(1)))
    git(i.root, "remote", "set-url", "origin", str(remote) + ".missing")
    last = integrator.watch(i.store, how, report)
    # the third poll lists what the second round left: no round, nothing reported
    assert slept == [5.0, 5.0] and seen == ["GitError", "IntegrateResult"]
    assert last.pushed == 0


def test_watch_runs_a_round_only_when_the_remote_lists_something_new(clone: Clone, remote: Path) -> None:
    a, i = clone("a"), clone("i")
    results: list[integrator.IntegrateResult] = []
    polls: list[float] = []

    def between(seconds: float) -> None:
        polls.append(seconds)
        if len(polls) == 2:  # after a quiet poll, a writer pushes its ref
            a.remember(fact("team:x", "lang", "english"))
            writer_sync(a)

    def report(item: object) -> None:
        assert isinstance(item, integrator.IntegrateResult)
        results.append(item)

    how = integrator.Rounds(0.5, 5, Waiting(clock=lambda: 0.0, sleep=between, rng=random.Random(1)))
    last = integrator.watch(i.store, how, report)
    # poll 1: a round (nothing yet); 2: quiet; 3: a's ref moved, a round; 4 and 5: quiet (main
    # moved by this integrator's own push, which the poll expects)
    assert [r.pushed for r in results] == [0, 1] and len(polls) == 4
    assert last is results[-1] and remote_head(remote) == i.store.git.head()
    assert "facts/lang--team-x.md" in git(remote, "ls-tree", "-r", "--name-only", "main")


def test_writer_ids_come_from_the_actor_or_the_configuration(clone: Clone, remote: Path) -> None:
    a = clone("a")
    (a.root / ".memfs.toml").write_text('format = 1\n[sync]\nroute = "writer-ref"\nwriter = "bot-7"\n')
    git(a.root, "add", ".memfs.toml")
    git(a.root, *PERSON, "commit", "-q", "-m", "route")
    assert sync(a.store).pushed_to == "memfs/writers/bot-7"
    with pytest.raises(UsageError, match="not usable as a writer id"):
        sync(a.store, writer="a/b")
    assert sync(a.store, route="direct").pushed_to == "main"


def test_two_processes_with_one_writer_id_merge_each_other_and_a_refused_writer_ref_is_explained(
        clone: Clone, remote: Path) -> None:
    a, b = clone("a"), clone("b")
    a.remember(fact("team:x", "lang", "english"))
    b.remember(fact("team:y", "tool", "ruff"))
    assert sync(a.store, route="writer-ref", writer="same").attempts == 1
    result = sync(b.store, route="writer-ref", writer="same", waiting=Waiting(sleep=lambda _: None))
    assert result.attempts == 2 and result.pushed_to == "memfs/writers/same"
    assert {m.key for m in b.store.scan().memories if m.key} == {"lang", "tool"}  # nothing of a's was lost
    hook(remote, 'while read old new ref; do case "$ref" in refs/heads/memfs/writers/*) '
                 'echo "not your branch" >&2; exit 1;; esac; done\n')
    a.remember(fact("team:x", "editor", "vim"))
    with pytest.raises(GitError, match=r"(?s)not your branch.*Nothing was lost.*allow pushing refs/heads/memfs/"):
        sync(a.store, route="writer-ref")
    assert a.store.read("facts/editor--team-x.md").body == "vim\n"
