"""``memfs sync --writer-ref`` and ``memfs integrate`` at the command line: what they print, the
JSON, and exit 1 while a writer is held."""

from __future__ import annotations

import json
from pathlib import Path

from tests.helpers import PERSON, Clone, cli, git, remote_head


def test_writer_ref_sync_and_integrate_at_the_cli(clone: Clone, remote: Path) -> None:
    a, b, i = clone("a"), clone("b"), clone("i")
    a.remember({"type": "fact", "scope": "team:x", "key": "lang", "body": "english", "source": "doc:1",
                "source_kind": "document"})
    ran = cli(a, "sync", "--writer-ref")
    assert ran.returncode == 0 and "1 commit(s) out to origin/memfs/writers/user-U5" in ran.stdout, ran.stderr
    for repo in (b,):
        (repo.root / "notes.txt").write_text("b\n")
        git(repo.root, "add", "notes.txt")
        git(repo.root, *PERSON, "commit", "-q", "-m", "notes")
        assert cli(repo, "sync", "--writer-ref", "--writer", "bee").returncode == 0
    (i.root / "notes.txt").write_text("i\n")  # the integrator's own commit collides with b's file
    git(i.root, "add", "notes.txt")
    git(i.root, *PERSON, "commit", "-q", "-m", "notes")
    ran = cli(i, "integrate")
    assert ran.returncode == 1, ran.stderr
    assert "memfs/writers/user-U5" in ran.stdout and "memfs/writers/bee" in ran.stdout and ": held:" in ran.stdout
    assert remote_head(remote) == i.store.git.head()
    ran = cli(i, "integrate", "--json", "--watch", "--rounds", "2", "--interval", "0.1")
    rounds = [json.loads(line) for line in ran.stdout.splitlines()]
    # the second poll lists nothing new: no round, no output (a held writer waits for a ref to move)
    assert ran.returncode == 1 and [r["pushed"] for r in rounds] == [0]
    assert [(w["writer"], w["outcome"]) for w in rounds[-1]["writers"]] == [("bee", "held"), ("user-U5", "none")]
