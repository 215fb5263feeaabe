"""``memfs diff``, ``log``, ``show --at`` and ``revert`` on the language history."""

from __future__ import annotations

import json

import pytest

from memfs import MemoryRepo
from memfs.errors import ConflictError
from memfs.store import history
from tests.helpers import cli, git


def test_cli_diff_and_log_json(lang: MemoryRepo) -> None:
    done = cli(lang, "diff", "HEAD~1", "HEAD")
    assert done.returncode == 0 and "modified: prefs/lang.md" in done.stdout and "revision: 1 → 2" in done.stdout
    data = json.loads(cli(lang, "diff", "HEAD~1", "HEAD", "--json").stdout)
    assert {"field": "revision", "old": 1, "new": 2} in data[0]["fields"]
    log = json.loads(cli(lang, "log", "prefs/lang.md", "--json").stdout)
    assert [e["op"] for e in log] == ["update", "create"]
    shown = cli(lang, "show", "prefs/lang.md", "--at", log[1]["commit"])
    assert "Release notes in Chinese." in shown.stdout


def test_revert_conflict_changes_nothing(lang: MemoryRepo) -> None:
    first = history.log(lang.store, "prefs/lang.md")[-1].commit
    head = git(lang.root, "rev-parse", "HEAD")
    with pytest.raises(ConflictError, match="nothing was changed"):
        history.revert(lang.store, first)
    assert git(lang.root, "rev-parse", "HEAD") == head
    assert git(lang.root, "status", "--porcelain") == ""
    done = cli(lang, "revert", first)
    assert done.returncode == 3 and "conflicts" in done.stderr
