"""The git-backed store: one commit per operation, only touched files, revisions, atomicity."""

from __future__ import annotations

import os
import unicodedata
from pathlib import Path

import pytest

from memfs import MemoryRepo
from memfs.errors import ConflictError, InvalidMemory, MemfsError, NotAMemoryRepo, PathError
from memfs.store.commits import trailers
from tests.helpers import ACTOR, FACT, VALID, git, put, raw_memory, set_identity, subjects, write_file


def test_init_creates_a_committed_memory_root(repo: MemoryRepo) -> None:
    assert subjects(repo.root) == ["memfs: init memory repository"]
    assert ".memfs/" in (repo.root / ".gitignore").read_text()
    assert (repo.root / ".gitattributes").exists() and (repo.root / "system/persona.md").exists()
    assert repo.validate() == []
    assert git(repo.root, "status", "--porcelain") == ""


def test_init_is_idempotent(repo: MemoryRepo) -> None:
    again = MemoryRepo.init(repo.root)
    assert again.root == repo.root and len(subjects(repo.root)) == 1


def test_write_is_one_commit_by_the_actor_with_trailers(repo: MemoryRepo) -> None:
    result = repo.write("facts/b17.md", fields=FACT, body="B17 is fixed.", reason="CI said so")
    assert result.commit == git(repo.root, "rev-parse", "HEAD").strip()
    assert [(c.path, c.action, c.revision) for c in result.changes] == [("facts/b17.md", "create", 1)]
    author = git(repo.root, "log", "-1", "--format=%an <%ae>").strip()
    assert author == f"{ACTOR} <user-U5@memfs.invalid>"
    body = git(repo.root, "log", "-1", "--format=%B")
    assert body.startswith("memfs: create facts/b17.md\n\nReason: CI said so\n")
    assert trailers(body) == {"Memfs-Op": ["create"], "Memfs-Actor": [ACTOR], "Memfs-Path": ["facts/b17.md"]}


def test_update_bumps_revision_and_changes_only_its_lines(repo: MemoryRepo) -> None:
    repo.write("facts/b17.md", fields=FACT, body="B17 is open.")
    repo.write("facts/b17.md", fields={"status": "superseded"}, force=True)
    diff = git(repo.root, "diff", "HEAD~1", "HEAD", "--unified=0")
    changed = [ln for ln in diff.splitlines() if ln[:1] in "+-" and not ln.startswith(("+++", "---"))]
    assert {ln for ln in changed if "updated:" not in ln} == {
        "+revision: 2", "+status: superseded", "-revision: 1", "-status: active"
    }
    assert len([ln for ln in changed if "updated:" in ln]) in (0, 2)
    assert repo.store.read("facts/b17.md").revision == 2


def test_writing_the_same_content_makes_no_commit(repo: MemoryRepo) -> None:
    repo.write("facts/b17.md", fields=FACT, body="B17")
    before = subjects(repo.root)
    result = repo.write("facts/b17.md", fields=FACT, body="B17")
    assert result.commit is None and subjects(repo.root) == before


def test_only_touched_files_are_committed(repo: MemoryRepo) -> None:
    write_file(repo.root / "notes/dirty.md", "untracked work in progress\n")
    write_file(repo.root / "system/persona.md", (repo.root / "system/persona.md").read_text() + "local edit\n")
    write_file(repo.root / "staged.txt", "staged by the user\n")
    git(repo.root, "add", "staged.txt")
    repo.write("facts/b17.md", fields=FACT, body="B17")
    assert git(repo.root, "show", "--name-only", "--format=", "HEAD").split() == ["facts/b17.md"]
    status = git(repo.root, "status", "--porcelain").splitlines()
    assert set(status) == {"A  staged.txt", " M system/persona.md", "?? notes/"}


def test_expected_revision_conflict_writes_nothing(repo: MemoryRepo) -> None:
    repo.write("facts/b17.md", fields=FACT, body="B17")
    repo.write("facts/b17.md", fields={"confidence": 0.5})
    before = (repo.root / "facts/b17.md").read_bytes()
    with pytest.raises(ConflictError, match="revision 1, it is now revision 2"):
        repo.write("facts/b17.md", fields={"status": "retracted"}, expected_revision=1, force=True)
    assert (repo.root / "facts/b17.md").read_bytes() == before
    assert repo.write("facts/b17.md", fields={"status": "retracted"}, expected_revision=2, force=True).commit


def test_invalid_write_writes_nothing(repo: MemoryRepo) -> None:
    with pytest.raises(InvalidMemory, match="source"):
        repo.write("facts/x.md", fields={"type": "fact", "scope": "user:U5"}, body="no source")
    assert not (repo.root / "facts/x.md").exists()
    with pytest.raises(InvalidMemory, match="depends_on"):
        repo.write("facts/y.md", fields={**FACT, "depends_on": ["nope.md"]})
    with pytest.raises(InvalidMemory, match="already used"):
        repo.write("facts/z.md", fields={**FACT, "id": "persona"})
    assert len(subjects(repo.root)) == 1 and git(repo.root, "status", "--porcelain") == ""


def test_create_only_refuses_existing(repo: MemoryRepo) -> None:
    repo.write("facts/b17.md", fields=FACT, body="B17")
    with pytest.raises(MemfsError, match="already exists"):
        repo.write("facts/b17.md", fields=FACT, body="other", create_only=True)


def test_transaction_is_one_commit_or_nothing(repo: MemoryRepo) -> None:
    with repo.store.transaction("import", reason="bulk") as tx:
        tx.write("a.md", fields=FACT, body="a")
        tx.write("b.md", fields={**FACT, "depends_on": ["a.md"]}, body="b")
        assert tx.read("b.md").depends_on == ("a.md",)
    assert tx.result.commit and sorted(c.path for c in tx.result.changes) == ["a.md", "b.md"]
    assert len(subjects(repo.root)) == 2
    with pytest.raises(RuntimeError), repo.store.transaction("import") as tx:
        tx.write("c.md", fields=FACT, body="c")
        raise RuntimeError("caller failed half way")
    assert not (repo.root / "c.md").exists() and len(subjects(repo.root)) == 2


@pytest.mark.parametrize("flushing", [True, False])
def test_writes_are_flushed_unless_memfs_fsync_is_0(repo: MemoryRepo, monkeypatch: pytest.MonkeyPatch,
                                                    flushing: bool) -> None:
    """Every write flushes its file and folder (a batch over the threshold: one ``sync`` before
    the renames and one after); ``MEMFS_FSYNC=0``, which the suite runs under, leaves out exactly
    the flushes, and the same files and commits come out."""
    from memfs.store import atomic

    if flushing:
        monkeypatch.delenv("MEMFS_FSYNC", raising=False)
    else:
        monkeypatch.setenv("MEMFS_FSYNC", "0")
    fsynced: list[int] = []
    synced: list[None] = []
    real_fsync = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (fsynced.append(fd), real_fsync(fd))[1])
    monkeypatch.setattr(os, "sync", lambda: synced.append(None))
    repo.write("a.md", fields=FACT, body="a")
    one = len(fsynced)
    many = [f"batch/m{i:02d}.md" for i in range(atomic.BATCH_SYNC_THRESHOLD + 1)]
    with repo.store.transaction("import", reason="bulk") as tx:
        for rel in many:
            tx.write(rel, fields=FACT, body=rel)
    assert atomic.durable() is flushing
    assert (one >= 2, len(synced)) == ((True, 2) if flushing else (False, 0))
    assert fsynced == [] or flushing
    assert [repo.store.read(rel).body for rel in many] == [f"{rel}\n" for rel in many]
    assert git(repo.root, "status", "--porcelain") == "" and len(subjects(repo.root)) == 3


def test_delete_and_dependents(repo: MemoryRepo) -> None:
    repo.write("a.md", fields=FACT, body="a")
    repo.write("b.md", fields={**FACT, "depends_on": ["a.md"]}, body="b")
    with pytest.raises(MemfsError, match=r"b\.md depend"):
        repo.delete("a.md")
    repo.delete("b.md", reason="obsolete")
    repo.delete("a.md")
    assert not (repo.root / "a.md").exists() and subjects(repo.root)[0] == "memfs: delete a.md"


@pytest.mark.parametrize(
    "bad",
    ["../escape.md", "/etc/passwd.md", "a/../../x.md", ".git/config.md", ".memfs/x.md", "a\x00.md",
     "..%2fescape.md", "notes.txt", "README.md"],
)
def test_paths_outside_the_root_are_refused(repo: MemoryRepo, bad: str) -> None:
    with pytest.raises(PathError):
        repo.write(bad, fields=FACT, body="x")


def test_symlink_escape_is_refused(repo: MemoryRepo, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    os.symlink(outside, repo.root / "link")
    with pytest.raises(PathError, match="symlink"):
        repo.write("link/x.md", fields=FACT, body="x")
    assert list(outside.iterdir()) == []


def test_memory_root_inside_a_larger_repo(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    git(project, "init", "-q")
    set_identity(project)
    write_file(project / "src/app.py", "print('hi')\n")
    git(project, "add", ".")
    git(project, "commit", "-qm", "app")
    mem = MemoryRepo.init(project / "memory")
    mem.write("facts/a.md", fields=FACT, body="a")
    assert git(project, "show", "--name-only", "--format=", "HEAD").split() == ["memory/facts/a.md"]
    (project / "memory/facts/deeper").mkdir()
    opened = MemoryRepo.open(project / "memory/facts/deeper")
    assert opened.root == mem.root and opened.store.read("facts/a.md").body == "a\n"
    assert MemoryRepo.open(project / "src").root == project  # outside the marker: the top level


def test_open_outside_git_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(NotAMemoryRepo, match="memfs init"):
        MemoryRepo.open(tmp_path)


def test_scan_reports_broken_files_and_orders_system_first(repo: MemoryRepo) -> None:
    repo.write("a.md", fields=FACT, body="a")
    write_file(repo.root / "broken.md", "no frontmatter\n")
    scan = repo.store.scan()
    assert [m.path for m in scan.memories] == ["system/persona.md", "a.md"]
    assert [p.path for p in scan.broken] == ["broken.md"]


def test_memfsignore_edits_take_effect_in_the_same_process(repo: MemoryRepo) -> None:
    write_file(repo.root / "drafts/x.md", "---\nid: x\n---\n")
    assert "drafts/x.md" in repo.store.memory_paths()
    write_file(repo.root / ".memfsignore", "drafts/\n")
    assert "drafts/x.md" not in repo.store.memory_paths()
    with pytest.raises(PathError, match="memfsignore"):
        repo.store.rel("drafts/x.md")
    write_file(repo.root / ".memfsignore", "# nothing ignored any more\n")
    assert "drafts/x.md" in repo.store.memory_paths() and repo.store.rel("drafts/x.md") == "drafts/x.md"


# --- names in any script ----------------------------------------------------------------------
@pytest.mark.parametrize("rel", ["笔记/会议.md", "notes/a b.md", "über.md", "notes/a[1].md", ":x.md"])
def test_names_in_any_script_go_through_every_verb(repo: MemoryRepo, rel: str) -> None:
    created = repo.write(rel, fields=FACT, body="会议纪要: the release is on Friday")
    assert [c.path for c in created.changes] == [rel]
    assert git(repo.root, "show", "--name-only", "-z", "--format=", "HEAD").strip("\0\n") == rel
    memory = repo.store.read(rel)
    assert memory.id == rel[:-3] and rel in repo.store.memory_paths() and repo.validate() == []
    assert [h.path for h in repo.search("会议纪要", scope="user:U5").hits] == [rel]
    repo.retract([rel], reason="wrong day")
    assert repo.store.read(rel).status == "retracted" and repo.search("会议纪要", scope="user:U5").hits == []
    assert [entry.commit for entry in repo.log(rel)][1] == created.commit
    assert len(repo.history(rel)) == 2
    repo.revert("HEAD", reason="it was right")
    assert repo.store.read(rel).status == "active"
    repo.delete(rel)
    assert not (repo.root / rel).exists() and git(repo.root, "status", "--porcelain") == ""


def test_one_name_typed_two_ways_is_one_file(repo: MemoryRepo) -> None:
    composed = "notes/über.md"
    decomposed = unicodedata.normalize("NFD", composed)
    repo.write(decomposed, fields=FACT, body="first")
    assert os.listdir(repo.root / "notes") == ["über.md"] and repo.store.read(composed).body == "first\n"
    repo.write(composed, fields=FACT, body="second")
    assert repo.store.read(decomposed).body == "second\n" and os.listdir(repo.root / "notes") == ["über.md"]


def test_a_decomposed_name_someone_else_saved_can_still_be_addressed(repo: MemoryRepo) -> None:
    decomposed = unicodedata.normalize("NFD", "über.md")
    put(repo, decomposed, "saved on a Mac", id="uber")
    assert repo.store.read(decomposed).body == "saved on a Mac\n"
    warnings = [p for p in repo.validate() if p.path == decomposed]
    assert [(p.severity, p.field) for p in warnings] == [("warning", None)] and "NFC" in warnings[0].message


@pytest.mark.parametrize(
    ("bad", "words"),
    [
        ("notes/a\x07b.md", "control character"),
        ("notes/a\nb.md", "control character"),
        ("notes/evil\u202edm.txt.md", "bidirectional control"),
        ("notes./x.md", "ends with a dot"),
        ("notes /x.md", "begins or ends with a space"),
        ("notes/x .md", "space before its extension"),
        ("notes/" + "长" * 90 + ".md", "the limit is 255"),
        ("notes\\x.md", "backslash"),
    ],
)
def test_names_no_file_system_or_git_can_hold_are_refused(repo: MemoryRepo, bad: str, words: str | None) -> None:
    with pytest.raises(PathError, match=words):
        repo.write(bad, fields=FACT, body="x")
    assert git(repo.root, "status", "--porcelain") == ""


def test_a_hand_written_file_without_id_has_its_path_as_id(repo: MemoryRepo) -> None:
    write_file(repo.root / "笔记/手写.md", raw_memory("type: note\nscope: user:U5\nsource: user:me\nstatus: active\n"))
    assert repo.validate() == [] and repo.store.read("笔记/手写.md").id == "笔记/手写"
    with pytest.raises(InvalidMemory, match=r"already used by 笔记/手写\.md"):
        repo.write("other.md", fields={**FACT, "id": "笔记/手写"}, body="x")
    write_file(repo.root / "copy.md", raw_memory(VALID.format(id="笔记/手写")))
    assert {(p.path, p.field) for p in repo.validate() if "also used by" in p.message} == {
        ("copy.md", "id"), ("笔记/手写.md", "id")
    }


# --- git paths and git's environment -----------------------------------------------------------
def test_a_name_that_looks_like_a_pattern_commits_only_itself(repo: MemoryRepo) -> None:
    write_file(repo.root / "notes/a1.md", "work in progress\n")
    write_file(repo.root / "x.md", "work in progress\n")
    repo.write("notes/a[1].md", fields={**FACT, "id": "a-1"}, body="a")
    repo.write(":x.md", fields={**FACT, "id": "x"}, body="x")
    committed = git(repo.root, "show", "--name-only", "--format=", "HEAD~1", "HEAD").split()
    assert sorted(committed) == [":x.md", "notes/a[1].md"]
    assert sorted(git(repo.root, "ls-files", "--others", "--exclude-standard").split()) == ["notes/a1.md", "x.md"]


def test_git_environment_cannot_redirect_memfs(repo: MemoryRepo, tmp_path: Path, monkeypatch) -> None:
    other = tmp_path / "other"
    other.mkdir()
    git(other, "init", "-q")
    set_identity(other)
    write_file(other / "readme.txt", "another project\n")
    git(other, "add", "-A")
    git(other, "commit", "-qm", "other")
    before = (git(other, "rev-parse", "HEAD"), (other / ".git/index").read_bytes())
    monkeypatch.setenv("GIT_DIR", str(other / ".git"))
    monkeypatch.setenv("GIT_WORK_TREE", str(other))
    monkeypatch.setenv("GIT_INDEX_FILE", str(other / ".git/index"))
    monkeypatch.setenv("GIT_OBJECT_DIRECTORY", str(other / ".git/objects"))
    opened = MemoryRepo.open(repo.root)
    result = opened.write("notes/x.md", fields=FACT, body="x")
    assert opened.root == repo.root and opened.store.read("notes/x.md").body == "x\n"
    assert opened.search("x", scope="user:U5") is not None
    for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY"):
        monkeypatch.delenv(name)
    assert git(repo.root, "rev-parse", "HEAD").strip() == result.commit
    assert git(repo.root, "show", "--name-only", "--format=", "HEAD").split() == ["notes/x.md"]
    assert (git(other, "rev-parse", "HEAD"), (other / ".git/index").read_bytes()) == before
    assert not (other / "notes").exists() and git(other, "status", "--porcelain") == ""


def test_an_oversized_memory_is_refused_before_it_is_scanned(repo: MemoryRepo) -> None:
    """A body over the size limit costs a length check: refused with the limit, nothing written."""
    from memfs.errors import InvalidMemory, UsageError

    body = "x" * 1_000_001
    with pytest.raises(InvalidMemory, match="over the 1000000-byte limit"):
        repo.write("notes/big.md", fields=FACT, body=body)
    assert not (repo.root / "notes/big.md").exists()
    with pytest.raises(UsageError, match="body"):
        repo.remember({"scope": "user:U5", "body": body, "source": "c:1"})


def test_batch_reads_step_over_objects_that_are_not_blobs(repo: MemoryRepo) -> None:
    """A tree or commit among the requested objects is skipped whole, so the blobs after it are
    read right (the batch parser used to take a tree's content for the next header)."""
    repo.write("facts/a.md", fields=FACT, body="alpha\n")
    repo.write("facts/b.md", fields=FACT, body="beta\n")
    tree = git(repo.root, "rev-parse", "HEAD:facts").strip()
    commit = git(repo.root, "rev-parse", "HEAD").strip()
    blob = git(repo.root, "rev-parse", "HEAD:facts/b.md").strip()
    found = repo.store.git.read_objects([tree, commit, blob, "0" * 40])
    assert list(found) == [blob] and found[blob].endswith(b"beta\n")
    by_path = repo.store.git.read_blobs("HEAD", ["facts", "facts/b.md", "facts/none.md"])
    assert list(by_path) == ["facts/b.md"] and by_path["facts/b.md"].endswith(b"beta\n")
