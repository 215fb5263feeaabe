"""The git processes a sync, an integration and a purge start (#24, #25): what git has already
answered is not asked again, a fetch that brings nothing judges and sets nothing, and the
answers that replace a process are git's own (each compared with git here)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from memfs import MemoryRepo
from memfs.ops import incoming
from memfs.ops import integrate as integrator
from memfs.ops.purge import plan, purge
from memfs.ops.sync import sync
from memfs.store import gitcli
from tests.helpers import Clone, count_git_commands, git, remote_head


def fact(scope: str, key: str, value: str) -> dict[str, object]:
    return {"type": "fact", "scope": scope, "key": key, "body": value, "source": f"doc:{value}",
            "source_kind": "document"}


def _reflog(repo: MemoryRepo, ref: str) -> str:
    return git(repo.root, "reflog", "show", "--format=%H %gs", ref)


def test_a_sync_with_nothing_new_judges_nothing_and_moves_no_ref(
        clone: Clone, monkeypatch: pytest.MonkeyPatch) -> None:
    a = clone("a")
    a.remember(fact("team:x", "lang", "english"))
    sync(a.store)
    tracking = _reflog(a, "refs/remotes/origin/main")
    started = count_git_commands(monkeypatch)
    result = sync(a.store)
    assert (result.pulled, result.pushed, result.integrated) == (0, 0, "none")
    # the fetch, the clean-tree status, the config; no log or cat-file of what came, no update-ref
    # (the tracking ref holds the tip already), no symbolic-ref (HEAD's file says it), no
    # for-each-ref of the backups (the files show none)
    assert started["gc.auto=0"] == 1 and started["status"] == 1 and started["config"] == 1, started
    assert started["log"] == started["cat-file"] == started["update-ref"] == started["symbolic-ref"] == 0, started
    assert sum(started.values()) == 3, started
    assert _reflog(a, "refs/remotes/origin/main") == tracking


def test_a_push_asks_no_ancestry_git_already_answered(
        clone: Clone, remote: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    a, b = clone("a"), clone("b")
    a.remember(fact("team:x", "lang", "english"))
    started = count_git_commands(monkeypatch)
    result = sync(a.store)
    assert result.pushed == 1 and remote_head(remote) == a.store.git.head()
    # one merge-base (its answer, the remote's tip, is the no-force check's too), one count
    assert started["merge-base"] == 1 and started["rev-list"] == 1, started
    b.remember(fact("team:y", "tool", "ruff"))
    sync(b.store)
    a.remember(fact("team:x", "editor", "vim"))
    started.clear()
    result = sync(a.store)
    assert (result.integrated, result.pulled, result.pushed) == ("rebase", 1, 1)
    assert remote_head(remote) == a.store.git.head()
    # the base before the rebase; after it the no-force check and the count are one rev-list
    assert started["merge-base"] == 1 and started["rev-list"] == 2, started


def test_count_over_is_the_count_when_an_ancestor_and_none_as_git_says_otherwise(clone: Clone) -> None:
    a = clone("a")
    a.remember(fact("team:x", "lang", "english"))
    git_ = a.store.git
    head, root = git_.head() or "", git(a.root, "rev-list", "--max-parents=0", "HEAD").strip()
    side = _side(a, root)
    assert git_.count_over(root, head) == int(git(a.root, "rev-list", "--count", f"{root}..{head}")) > 0
    assert git_.count_over(side, head) is None and not _ancestor(a, side, head)
    assert git_.count_over(head, head) == 0
    assert git_.count_over("0" * 40, head) is None  # no such commit: not an ancestor, as git says


def _side(repo: MemoryRepo, root: str) -> str:
    """A commit beside the branch (on the root commit, not in HEAD's history)."""
    out = git(repo.root, "-c", "user.name=x", "-c", "user.email=x@example.invalid", "commit-tree",
              f"{root}^{{tree}}", "-p", root, "-m", "side")
    return out.strip()


def test_ancestry_learned_from_a_merge_base_is_git_s_answer_and_forgotten_by_a_rewrite(
        clone: Clone, monkeypatch: pytest.MonkeyPatch) -> None:
    a = clone("a")
    a.remember(fact("team:x", "lang", "english"))
    git_ = a.store.git
    head = git_.head() or ""
    root = git(a.root, "rev-list", "--max-parents=0", "HEAD").strip()
    side = _side(a, root)
    assert git_.merge_base(head, root) == root and git_.merge_base(head, side) == root
    started = count_git_commands(monkeypatch)
    assert git_.is_ancestor(root, head) and sum(started.values()) == 0  # learned from the merge base
    assert not git_.is_ancestor(head, root) and not git_.is_ancestor(side, head)  # asked: never learned
    assert started["merge-base"] == 2
    for older, newer in ((root, head), (head, root), (side, head), (root, side)):
        assert git_.is_ancestor(older, newer) == _ancestor(a, older, newer)
    git_.forget_ancestry()
    started.clear()
    assert git_.is_ancestor(root, head) and started["merge-base"] == 1


def _ancestor(repo: MemoryRepo, older: str, newer: str) -> bool:
    """git's own answer."""
    return subprocess.run(["git", "merge-base", "--is-ancestor", older, newer], cwd=repo.root,
                          check=False, capture_output=True).returncode == 0


def test_an_integration_with_nothing_new_sets_no_ref_and_a_push_sets_both_refs_at_once(
        clone: Clone, remote: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    a, i = clone("a"), clone("i")
    a.remember(fact("team:x", "lang", "english"))
    sync(a.store, route="writer-ref")
    done = i.integrate()
    assert done.pushed == 1 and remote_head(remote) == i.store.git.head()
    seen = "refs/memfs/integrated/origin/main"
    assert i.store.git.rev(seen) == i.store.git.rev("refs/remotes/origin/main") == remote_head(remote)
    logs = _reflog(i, seen), _reflog(i, "refs/remotes/origin/main")
    started = count_git_commands(monkeypatch)
    again = integrator.integrate(i.store)
    assert again.pushed == 0 and [w.outcome for w in again.writers] == ["none"]
    assert started["update-ref"] == started["log"] == 0 and started["merge-base"] == 0, started
    assert (_reflog(i, seen), _reflog(i, "refs/remotes/origin/main")) == logs


def test_a_plan_reads_every_version_in_one_batch_as_one_read_each_would(
        repo: MemoryRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    first = repo.remember(fact("user:u", "lang", "english")).paths[0]
    repo.remember(fact("user:u", "lang", "german"))
    repo.remember(fact("user:u", "lang", "french"))
    git_ = repo.store.git
    commits = git_.commits_touching([first, "facts/absent.md", "facts"])
    wanted = [(sha, name) for sha in commits for name in (first, "facts/absent.md", "facts")]
    found = git_.read_versions(wanted)
    assert found == {pair: data for pair in wanted if (data := git_.show_file(*pair)) is not None}
    assert len(found) == len(commits) and all(pair[1] == first for pair in found)
    started = count_git_commands(monkeypatch)
    the_plan = plan(repo.store, first)
    assert started["cat-file"] == 1 and len(the_plan.commits) == 3 and len(the_plan.texts) == 3, started


def test_a_purge_cleans_once_after_the_rewrite(repo: MemoryRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    path = repo.remember(fact("user:u", "lang", "the frobnazol dosage is twelve")).paths[0]
    repo.remember(fact("user:u", "tool", "ruff"))
    ran: list[tuple[str, ...]] = []
    real = gitcli.process.run_python_module

    def recording(cwd: Path, module: str, *args: str) -> subprocess.CompletedProcess[bytes]:
        ran.append(args)
        return real(cwd, module, *args)

    monkeypatch.setattr(gitcli.process, "run_python_module", recording)
    started = count_git_commands(monkeypatch)
    report = purge(repo.store, path, reason="asked to")
    assert report.verified and report.commits_removed == 1
    # git-filter-repo leaves the reflogs and the objects to purge, which expires and prunes once
    assert len(ran) == 1 and "--no-gc" in ran[0]
    assert started["reflog"] == 1 and started["gc"] == 1, started
    assert git(repo.root, "fsck", "--unreachable", "--no-reflogs") == ""
    # HEAD's and main's reflogs hold only the audit commit made after the prune
    logged = git(repo.root, "reflog", "show", "--format=%gs", "--all").splitlines()
    assert logged == ["commit: memfs: purge 1 memory"] * 2
    assert "frobnazol" not in git(repo.root, "log", "--all", "-p")


def test_a_fetch_reads_the_messages_and_the_memories_it_judges_in_one_batch(
        clone: Clone, monkeypatch: pytest.MonkeyPatch) -> None:
    a, b = clone("a"), clone("b")
    b.remember(fact("team:y", "tool", "ruff"))
    b.remember(fact("team:y", "token", "the deploy key is kept in the vault"))
    sync(b.store)
    started = count_git_commands(monkeypatch)
    tip = incoming.fetch(a.store, "origin", "main", "refs/remotes/origin/main")
    assert tip == b.store.git.head() and a.store.git.rev("refs/remotes/origin/main") == tip
    assert started["log"] == 1 and started["cat-file"] == 1 and started["update-ref"] == 1, started
    again = incoming.fetch(a.store, "origin", "main", "refs/remotes/origin/main")
    assert again == tip and started["log"] == 1 and started["update-ref"] == 1, started
