"""``memfs show``, ``ls`` and ``tree``."""

from __future__ import annotations

import json

from memfs import MemoryRepo
from tests.helpers import NOTE, PREFERENCE, cli, options


def test_show_ls_tree(repo: MemoryRepo) -> None:
    cli(repo, "write", "prefs/lang.md", *options(PREFERENCE), "--description", "P8 notes in Chinese", "--body", "zh")
    cli(repo, "write", "old.md", *options(NOTE), "--status", "superseded", "--force")
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
