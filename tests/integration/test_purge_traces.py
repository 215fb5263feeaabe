"""Purge finds every trace (issue #12, item 5; issue #26, item 4): a reason quoting part of the
memory in a commit that also touched another file, or in a commit that did not, earlier
``Memfs-Path`` trailers and subjects naming its path, an idempotency-key trailer made from its
token, an annotated tag message, git notes and a stash are rewritten; verification looks for the
distinctive fragments (3-word runs, tokens of 8+ characters found in few other files), not only
the whole text, in objects, ref names (loose and packed), the git directory, the caches and
every other memory. What cannot be rewritten (a signed tag, a branch or tag named after the text,
an annotated tag's header, another memory quoting it) is listed, and the purge is not verified."""

from __future__ import annotations

import hashlib
import subprocess

import pytest

from memfs import MemoryRepo
from memfs.ops.purge import purge
from memfs.ops.purge_verify import distinctive, fragments, verify
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


def test_fragments_are_three_word_runs_and_long_tokens() -> None:
    found = fragments([BODY])
    runs = [f for f in found if b" " in f]
    assert b"forty milligrams of" in runs and len(runs) == len(BODY.split()) - 2
    assert {f for f in found if b" " not in f} == {b"milligrams", b"frobnazol", b"breakfast"}
    assert fragments(["short one"]) == [b"short one"]


def test_a_fragment_many_other_files_share_is_not_distinctive() -> None:
    others = [b"eat before\n  breakfast every day"] * 3 + [b"she takes forty milligrams"]
    kept = distinctive([BODY], others)
    assert b"morning before breakfast." in kept and b"breakfast" not in kept  # "breakfast" is in 3 others
    assert b"takes forty milligrams" in kept  # a quote in one other memory is still distinctive


@pytest.mark.slow
def test_purge_rewrites_messages_tags_notes_and_stashes(repo: MemoryRepo) -> None:
    _traces(repo)
    assert verify(repo.store, [BODY.encode()])  # found before, in several places
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


@pytest.mark.slow
def test_purge_finds_fragments_everywhere_and_lists_what_it_cannot_rewrite(repo: MemoryRepo) -> None:
    """Fragments planted in every place a repository keeps text: each is removed, or listed and
    the purge is not verified."""
    repo.write("prefs/p.md", fields=FACT, body=BODY)
    repo.write("notes/other.md", fields=FACT, body="an unrelated memory",
               reason="as she said, forty milligrams of it")  # another commit's Reason:
    with repo.store.transaction("write", trailers={"Memfs-Idempotency-Key": ["dose-frobnazol-2026"]}) as tx:
        tx.write("notes/third.md", fields=FACT, body="another unrelated memory")
    repo.write("notes/quote.md", fields=FACT, body="she said: takes forty milligrams daily")  # a 4-word quote
    git(repo.root, "branch", "frobnazol-dose")
    git(repo.root, "tag", "forty-milligrams-of")
    git(repo.root, "pack-refs", "--all")  # those two in packed-refs
    git(repo.root, "tag", "-a", "frobnazol-release", "-m", "a release")  # the name in the tag header
    git(repo.root, "notes", "add", "-m", "reviewer: every morning before breakfast, frobnazol", "HEAD")
    (repo.root / "notes/other.md").write_text((repo.root / "notes/other.md").read_text() + "frobnazol\n")
    git(repo.root, "stash")
    report = purge(repo.store, "prefs/p.md", reason="privacy request")
    assert not report.verified
    listed = "\n".join(report.remaining)
    for ref in ("refs/heads/frobnazol-dose", "refs/tags/forty-milligrams-of", "refs/tags/frobnazol-release"):
        assert f"ref name {ref}" in listed
    assert "work tree file notes/quote.md" in listed
    assert "blob" in listed and "(notes/quote.md)" in listed  # its committed copy, named by path
    assert "git directory file packed-refs" in listed
    tags = [git(repo.root, "cat-file", "-p", sha).split("\n", 1)[0] for sha in _listed(report.remaining, "tag")]
    assert tags  # the annotated tag's header names it
    stash = git(repo.root, "rev-parse", "refs/stash").strip()
    stashed = git(repo.root, "show", f"{stash}:notes/other.md")
    assert "frobnazol" not in stashed or any(
        sha in listed for sha in _blob_ids(repo, stash, "notes/other.md"))  # removed, or listed
    messages = git(repo.root, "log", "--all", "--format=%B") + git(repo.root, "notes", "list")
    assert "forty milligrams of" not in messages and "dose-frobnazol-2026" not in messages
    assert "frobnazol" not in git(repo.root, "log", "--all", "--format=%B")
    notes = git(repo.root, "for-each-ref", "refs/notes/")
    assert not notes or "breakfast" not in git(repo.root, "log", "-p", "refs/notes/commits")


def _listed(remaining: list[str], kind: str) -> list[str]:
    return [entry.split()[1] for entry in remaining if entry.startswith(f"{kind} ")]


def _blob_ids(repo: MemoryRepo, rev: str, path: str) -> list[str]:
    return [git(repo.root, "rev-parse", f"{rev}:{path}").strip()]


def test_a_cache_read_before_a_purge_is_not_saved_after_it(repo: MemoryRepo) -> None:
    """A ``validate`` (findings) or a catalog refresh that read the memory just before the purge
    and saves just after it would put the erased text back under ``.memfs/``; the purge epoch
    stops both saves, and a run that starts after the purge saves as usual."""
    from memfs.store import catalog, epoch, findings

    repo.write("prefs/p.md", fields=FACT, body=BODY)
    repo.write("other.md", fields=FACT, body="an unrelated memory")
    store = repo.store
    read_in = epoch.read(store.cache_dir)
    before = findings.load(store)
    for rel in ("prefs/p.md", "other.md"):
        data = (repo.root / rel).read_bytes()
        before.put(rel, findings.blob_id(data), store._file_findings(rel, data), None)
    listed = catalog.current(store)
    assert listed is not None and "prefs/p.md" in listed.files

    report = purge(store, "prefs/p.md", reason="privacy request")
    assert report.verified and epoch.EPOCH_FILE not in report.caches_dropped
    assert epoch.read(store.cache_dir) not in ("", read_in)
    findings.save(store, before)
    catalog._save(store.cache_dir / catalog.CACHE_FILE, listed, None, read_in)
    kept = b"".join(p.read_bytes() for p in store.cache_dir.rglob("*") if p.is_file())
    assert b"frobnazol" not in kept and b"prefs/p.md" not in kept
    assert verify(store, [BODY.encode()]) == []

    store.validate()
    assert any((store.cache_dir / findings.CACHE_DIR).glob("*.json"))
