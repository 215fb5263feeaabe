"""The frontmatter-aware merge: pure field rules, whole files, and the driver as git runs it."""

from __future__ import annotations

import datetime as dt
import subprocess
from functools import partial
from pathlib import Path

import pytest

from memfs import MemoryRepo
from memfs.errors import InvalidMemory
from memfs.format.parse import parse
from memfs.ops import mergedriver
from memfs.policy import merge
from memfs.store import gitcli
from memfs.store.init import attributes_text, merge_driver_configured
from tests.helpers import FACT, git, memory_text, run_cli, set_identity

T = [dt.datetime(2026, 9, d, 10, tzinfo=dt.UTC) for d in range(20, 25)]
MERGE_TEXT = partial(gitcli.merge_text, labels=merge.LABELS)


def doc(body: str = "para one\n\npara two\n", **fields: object) -> bytes:
    """The base version of ``facts/a.md`` (revision 3), with ``fields`` changed."""
    base = {
        "id": "a",
        "revision": 3,
        "created": "2026-09-20T10:00:00Z",
        "updated": "2026-09-20T10:00:00Z",
        "description": "the base",
        "tags": ["x"],
    }
    return memory_text(body, **{**base, **fields}).encode()


# --- pure field rules ---------------------------------------------------------------------------
def test_one_sided_changes_win_and_equal_changes_agree() -> None:
    base = {"a": 1, "b": 1, "c": 1}
    result = merge.merge_fields(base, {"a": 2, "b": 1, "c": 5}, {"a": 1, "b": 3, "c": 5})
    assert result.meta == {"a": 2, "b": 3, "c": 5}
    assert result.conflicts == ()


def test_both_sides_changing_a_plain_field_differently_is_a_conflict() -> None:
    result = merge.merge_fields({"description": "x"}, {"description": "y"}, {"description": "z"})
    assert result.conflicts == ("description",)
    assert result.meta["description"] == "y"


@pytest.mark.parametrize(
    ("ours", "theirs", "expected"),
    [
        ("retracted", "needs_review", "retracted"),
        ("active", "retracted", "retracted"),
        ("superseded", "expired", "superseded"),
        ("needs_review", "superseded", "superseded"),
    ],
)
def test_status_precedence_when_both_sides_changed_it(ours: str, theirs: str, expected: str) -> None:
    base = {"status": "active" if "active" not in (ours, theirs) else "needs_review"}
    assert merge.merge_fields(base, {"status": ours}, {"status": theirs}).meta["status"] == expected


def test_unknown_status_values_on_both_sides_conflict() -> None:
    assert merge.merge_fields({"status": "active"}, {"status": "x"}, {"status": "y"}).conflicts == ("status",)


def test_removed_key_on_one_side_is_removed() -> None:
    result = merge.merge_fields({"expires": T[0], "a": 1}, {"a": 1}, {"expires": T[0], "a": 2})
    assert result.meta == {"a": 2}


def test_revision_is_max_plus_one_and_updated_is_latest() -> None:
    result = merge.merge_fields(
        {"revision": 3, "updated": T[0]}, {"revision": 4, "updated": T[2]}, {"revision": 6, "updated": T[1]}
    )
    assert result.meta == {"revision": 7, "updated": T[2]}


def test_sets_keep_both_sides_additions_and_removals() -> None:
    result = merge.merge_fields(
        {"tags": ["a", "b", "c"], "depends_on": ["x.md"]},
        {"tags": ["a", "c", "d"], "depends_on": ["x.md", "y.md"]},
        {"tags": ["b", "c", "e"], "depends_on": ["z.md"]},
    )
    assert result.meta["tags"] == ["c", "d", "e"]
    assert result.meta["depends_on"] == ["y.md", "z.md"]
    assert result.conflicts == ()


def test_sets_of_mappings_merge_by_equality() -> None:
    one, two = {"root": "a.md", "reason": "r1"}, {"root": "b.md", "reason": "r2"}
    result = merge.merge_fields({}, {"invalidated_by": [one]}, {"invalidated_by": [two]})
    assert result.meta["invalidated_by"] == [one, two]


def test_a_list_field_that_is_not_a_list_on_one_side_conflicts() -> None:
    assert merge.merge_fields({"tags": ["a"]}, {"tags": ["a", "b"]}, {"tags": "c"}).conflicts == ("tags",)


# --- whole files ---------------------------------------------------------------------------------
def merged(base: bytes | None, ours: bytes, theirs: bytes) -> merge.MergeResult:
    return merge.merge_memory("facts/a.md", base, ours, theirs, MERGE_TEXT)


def test_different_fields_merge_cleanly_and_keep_our_formatting() -> None:
    base = doc()
    ours = doc(description="ours says", revision=4, updated="2026-09-21T10:00:00Z")
    theirs = doc(confidence=0.5, revision=4, updated="2026-09-22T10:00:00Z")
    result = merged(base, ours, theirs)
    assert result.clean
    memory = parse("facts/a.md", result.content)
    assert memory.description == "ours says"
    assert memory.confidence == 0.5
    assert memory.revision == 5
    assert memory.updated == T[2]
    assert result.content.decode().startswith(ours.decode().split("revision")[0])


def test_retract_versus_edit_gives_retracted_with_the_edit() -> None:
    result = merged(doc(), doc(status="retracted", revision=4), doc(description="edited", revision=4))
    assert result.clean
    memory = parse("facts/a.md", result.content)
    assert (memory.status, memory.description) == ("retracted", "edited")


def test_body_edits_in_different_paragraphs_merge() -> None:
    base = doc(body="para one\n\npara two\n\npara three\n")
    result = merged(
        base, doc(body="para ONE\n\npara two\n\npara three\n"), doc(body="para one\n\npara two\n\npara THREE\n")
    )
    assert result.clean
    assert parse("facts/a.md", result.content).body == "para ONE\n\npara two\n\npara THREE\n"


def test_same_line_edits_leave_markers_and_fail_validation() -> None:
    result = merged(doc(), doc(body="para uno\n\npara two\n"), doc(body="para eins\n\npara two\n"))
    assert result.conflicts == ("body",)
    text = result.content.decode()
    assert "<<<<<<< ours\npara uno\n=======\npara eins\n>>>>>>> theirs\n" in text
    with pytest.raises(InvalidMemory, match="unresolved merge conflict markers"):
        parse("facts/a.md", result.content)


def test_field_conflict_is_a_marker_block_in_the_frontmatter() -> None:
    result = merged(doc(), doc(description="ours"), doc(description="theirs"))
    assert result.conflicts == ("description",)
    text = result.content.decode()
    assert "<<<<<<< ours\ndescription: ours\n=======\ndescription: theirs\n>>>>>>> theirs\n---\n" in text
    assert text.count("description:") == 2
    with pytest.raises(InvalidMemory) as caught:
        parse("facts/a.md", result.content)
    problem = caught.value.problems[0]
    assert problem.line == text.splitlines().index("<<<<<<< ours") + 1
    assert "delete the marker lines" in str(problem)


def test_both_added_the_same_path() -> None:
    result = merged(None, doc(description="one"), doc(description="two", tags=["y"]))
    assert result.conflicts == ("description",)
    assert 'tags: [x, "y"]' in result.content.decode()


def test_unparseable_sides_fall_back_to_a_text_merge() -> None:
    result = merged(b"1\n2\n3\n4\n", b"1 ours\n2\n3\n4\n", b"1\n2\n3\n4 theirs\n")
    assert result.clean and result.content == b"1 ours\n2\n3\n4 theirs\n"


def test_crlf_files_stay_crlf() -> None:
    def crlf(data: bytes) -> bytes:
        return data.replace(b"\n", b"\r\n")

    result = merged(crlf(doc()), crlf(doc(status="retracted")), crlf(doc(description="edited")))
    assert result.clean
    assert b"\n" not in result.content.replace(b"\r\n", b"")
    assert parse("facts/a.md", result.content).status == "retracted"


# --- the driver through git ----------------------------------------------------------------------
def _branches(repo: MemoryRepo, ours: dict, theirs: dict) -> str:
    """Commit ``ours`` on main and ``theirs`` on a side branch from the same base; merge side into main."""
    repo.write(
        "facts/a.md",
        fields={**FACT, "tags": ["x"]},
        body="para one\n\npara two\n",
    )
    git(repo.root, "checkout", "-q", "-b", "side")
    repo.write("facts/a.md", **theirs)
    git(repo.root, "checkout", "-q", "main")
    repo.write("facts/a.md", **ours)
    proc = subprocess.run(["git", "merge", "--no-edit", "side"], cwd=repo.root, capture_output=True, text=True)
    return proc.stdout + proc.stderr


def test_git_merge_uses_the_driver(repo: MemoryRepo) -> None:
    out = _branches(
        repo,
        {"fields": {"status": "retracted", "tags": ["x", "ours"]}, "body": "para one\n\npara TWO\n"},
        {"fields": {"description": "edited", "tags": ["x", "theirs"]}, "body": "para ONE\n\npara two\n"},
    )
    assert "CONFLICT" not in out
    memory = repo.read("facts/a.md")
    assert memory.status == "retracted" and memory.description == "edited"
    assert memory.tags == ("x", "ours", "theirs")
    assert memory.body == "para ONE\n\npara TWO\n"
    assert memory.revision == 3
    assert repo.validate() == []


def test_git_merge_conflict_is_reported_and_validate_fails(repo: MemoryRepo) -> None:
    out = _branches(repo, {"body": "para uno\n\npara two\n"}, {"body": "para eins\n\npara two\n"})
    assert "CONFLICT (content): Merge conflict in facts/a.md" in out
    text = (repo.root / "facts/a.md").read_text()
    assert "<<<<<<< ours" in text and ">>>>>>> theirs" in text
    proc = run_cli("validate", cwd=repo.root)
    assert proc.returncode == 1
    assert "facts/a.md:" in proc.stdout and "unresolved merge conflict markers" in proc.stdout


def test_a_clone_without_the_driver_configured_uses_gits_text_merge(repo: MemoryRepo) -> None:
    git(repo.root, "config", "--unset", "merge.memfs.driver")
    git(repo.root, "config", "--unset", "merge.memfs.name")
    assert not merge_driver_configured(repo.git)
    out = _branches(repo, {"body": "para ONE\n\npara two\n"}, {"body": "para one\n\npara TWO\n"})
    assert "Auto-merging facts/a.md" in out and "CONFLICT" not in out
    assert repo.read("facts/a.md").body == "para ONE\n\npara TWO\n"


def test_without_the_driver_revision_bumps_conflict_as_text(repo: MemoryRepo) -> None:
    git(repo.root, "config", "--remove-section", "merge.memfs")
    out = _branches(repo, {"fields": {"description": "a"}}, {"fields": {"confidence": 0.5}})
    assert "CONFLICT" in out
    assert "unresolved merge conflict markers" in run_cli("validate", cwd=repo.root).stdout


def test_init_registers_and_install_repairs(tmp_path: Path) -> None:
    mem = MemoryRepo.init(tmp_path / "m", actor="agent:t")
    assert "*.md merge=memfs" in (mem.root / ".gitattributes").read_text()
    assert merge_driver_configured(mem.git)
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(mem.root), str(clone))
    set_identity(clone)
    assert not merge_driver_configured(MemoryRepo.open(clone).git)
    proc = run_cli("install-merge-driver", "--json", cwd=clone)
    assert proc.returncode == 0, proc.stderr
    assert '"commit": null' in proc.stdout
    assert "-m memfs merge-driver %O %A %B %P" in git(clone, "config", "merge.memfs.driver")


def test_install_adds_the_attribute_line_once(repo: MemoryRepo) -> None:
    (repo.root / ".gitattributes").write_text("*.md text\n")
    git(repo.root, "commit", "-qam", "plain attributes")
    first = mergedriver.install(repo)
    assert first.commit is not None
    assert (repo.root / ".gitattributes").read_text() == "*.md text\n*.md merge=memfs\n"
    assert mergedriver.install(repo).commit is None
    assert attributes_text("*.md text diff=markdown merge=memfs\n") is None


def test_driver_cli_exit_codes(tmp_path: Path) -> None:
    base, ours, theirs = (tmp_path / n for n in ("o", "a", "b"))
    base.write_bytes(doc())
    ours.write_bytes(doc(status="retracted"))
    theirs.write_bytes(doc(description="edited"))
    proc = run_cli("merge-driver", str(base), str(ours), str(theirs), "facts/a.md", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert parse("facts/a.md", ours.read_bytes()).status == "retracted"
    ours.write_bytes(doc(description="mine"))
    proc = run_cli("merge-driver", str(base), str(ours), str(theirs), "facts/a.md", "--marker-size", "9", cwd=tmp_path)
    assert proc.returncode == 1
    assert "<<<<<<<<< ours" in ours.read_text()


def test_a_named_driver_without_a_command_stops_git(repo: MemoryRepo) -> None:
    """Why configure() always sets the command: git refuses to merge with a half-defined driver."""
    git(repo.root, "config", "--unset", "merge.memfs.driver")
    out = _branches(repo, {"fields": {"description": "a"}}, {"fields": {"confidence": 0.5}})
    assert "custom merge driver memfs lacks command line" in out
