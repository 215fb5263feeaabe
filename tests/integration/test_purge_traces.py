"""Purge finds every trace (issue #12, item 5): a reason quoting part of the memory in a commit
that also touched another file, earlier ``Memfs-Path`` trailers and subjects naming its path, an
annotated tag message, git notes and a stash are rewritten, and verification looks for 6-word
fragments, not only the whole text. What cannot be rewritten (a signed tag) is reported."""

from __future__ import annotations

import hashlib
import subprocess

import pytest

from memfs import MemoryRepo
from memfs.ops.purge import fragments, purge, verify
from tests.helpers import FACT, git

BODY = "The patient takes forty milligrams of frobnazol every morning before breakfast."
QUOTE = "takes forty milligrams of frobnazol every morning"


def _traces(repo: MemoryRepo) -> None:
    repo.write("prefs/p.md", fields=FACT, body=BODY)
    with repo.store.transaction("edit", reason=f"the user said she {QUOTE}, so note it", force=True) as tx:
        tx.write("prefs/p.md", fields={**FACT, "tags": ["health"]}, body=BODY)
        tx.write("other.md", fields=FACT, body="an unrelated memory")
    git(repo.root, "tag", "-a", "v1", "-m", f"release: {QUOTE}")
    git(repo.root, "notes", "add", "-m", f"reviewer: she {QUOTE}", "HEAD")
    (repo.root / "prefs/p.md").write_text((repo.root / "prefs/p.md").read_text() + "an uncommitted edit\n")
    git(repo.root, "stash")


def test_fragments_are_six_word_runs() -> None:
    runs = fragments([BODY])
    assert b"takes forty milligrams of frobnazol every" in runs and len(runs) == len(BODY.split()) - 5
    assert fragments(["short one"]) == [b"short one"]


@pytest.mark.slow
def test_purge_rewrites_messages_tags_notes_and_stashes(repo: MemoryRepo) -> None:
    _traces(repo)
    assert verify(repo.store, [BODY], ["prefs/p.md"])  # found before, in several places
    report = purge(repo.store, "prefs/p.md", reason="privacy request")
    assert report.remaining == [] and report.unrewritable == [] and report.verified, report
    every = git(repo.root, "log", "--all", "--format=%B") + git(repo.root, "cat-file", "tag", "v1")
    assert "frobnazol" not in every and "prefs/p.md" not in every
    digest = hashlib.sha256(b"prefs/p.md").hexdigest()
    assert f"Memfs-Path: sha256:{digest}" in every
    assert "other.md" in git(repo.root, "ls-files")


@pytest.mark.slow
def test_a_signed_tag_is_reported_not_verified(repo: MemoryRepo) -> None:
    repo.write("prefs/p.md", fields=FACT, body=BODY)
    head = git(repo.root, "rev-parse", "HEAD").strip()
    fake = (
        f"object {head}\ntype commit\ntag v2\ntagger T <t@example.invalid> 0 +0000\n\nsigned\n"
        "-----BEGIN PGP SIGNATURE-----\nxyz\n-----END PGP SIGNATURE-----\n"
    )
    made = subprocess.run(["git", "mktag"], cwd=repo.root, input=fake, capture_output=True, text=True, check=True)
    sha = made.stdout.strip()
    git(repo.root, "update-ref", "refs/tags/v2", sha)
    report = purge(repo.store, "prefs/p.md", reason="privacy request")
    assert not report.verified and report.unrewritable == [
        "signed tag v2 (its signature cannot survive the rewrite)"
    ]
