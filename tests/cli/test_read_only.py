"""The read_only rule holds at every door that changes a file: a matrix of doors x cases.

The rule lives in the transaction (:mod:`memfs.store.repo`), so each door below reaches it
without code of its own. Cases: the working copy says ``read_only: true``; or only the committed
copy does (someone edited the working copy to ``false`` to get past a check of the file alone).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from memfs import MemoryRepo
from memfs.agents.tools import ToolContext
from memfs.errors import Refused
from tests.helpers import Prepared, cli, commit_all

TARGET = "system/policy.md"
POLICY = """---
id: policy
type: procedure
source: operator:setup
source_kind: system
status: active
read_only: true
key: policy
scope: user:U5
expires: 2020-01-01T00:00:00Z
description: what agents may do
---
Agents may not change this file.
"""


def _tool(command: str, **request: object) -> Callable[[MemoryRepo], object]:
    def run(repo: MemoryRepo) -> object:
        result = repo.tool({"command": command, **request}, ToolContext(actor="agent:x"))
        if not result.ok:
            raise Refused(result.output)
        return result

    return run


def _cli(*args: str) -> Callable[[MemoryRepo], object]:
    def run(repo: MemoryRepo) -> object:
        done = cli(repo, *args)
        if done.returncode != 0:
            raise Refused(done.stderr)
        return done

    return run


def _watch(repo: MemoryRepo) -> object:
    text = (repo.root / TARGET).read_text().replace("Agents may not", "Agents may now")
    (repo.root / TARGET).write_text(text)
    events = repo.watcher(index=False).process([TARGET])
    if events[0].outcome != "committed":
        raise Refused(str(events[0]))
    return events


DOORS: dict[str, Callable[[MemoryRepo], object]] = {
    "library write": lambda r: r.write(TARGET, fields={"description": "hijacked"}),
    "library delete": lambda r: r.delete(TARGET),
    "transaction write_bytes": lambda r: _write_bytes(r),
    "cli write": _cli("write", TARGET, "--body", "hijacked"),
    "cli rm": _cli("rm", TARGET),
    "tool str_replace": _tool("str_replace", path=TARGET, old_str="may not", new_str="may"),
    "tool insert": _tool("insert", path=TARGET, insert_line=13, insert_text="more"),
    "tool create overwrite": _tool("create", path=TARGET, file_text="hijacked", overwrite=True),
    "tool delete": _tool("delete", path=TARGET),
    "tool rename": _tool("rename", old_path=TARGET, new_path="system/other.md"),
    "tool update_description": _tool("update_description", path=TARGET, description="hijacked"),
    "watch": _watch,
    "forget": lambda r: r.forget(TARGET, reason="x"),
    "retract": lambda r: r.retract([TARGET], reason="x"),
    "expire": lambda r: r.expire(),
    "remember supersede": lambda r: r.remember(
        {"scope": "user:U5", "key": "policy", "type": "procedure", "body": "new", "source": "s"}
    ),
}


def _write_bytes(repo: MemoryRepo) -> object:
    with repo.store.transaction("import") as tx:
        tx.write_bytes(TARGET, POLICY.replace("may not", "may").encode())
    return tx.result


def _working_copy_read_only(repo: MemoryRepo) -> None:
    """The file as committed: read_only in both copies."""


def _only_committed_read_only(repo: MemoryRepo) -> None:
    path = repo.root / TARGET
    path.write_text(path.read_text().replace("read_only: true", "read_only: false"))


CASES = {"read_only in the file": _working_copy_read_only, "read_only only as committed": _only_committed_read_only}


def _policy(repo: MemoryRepo) -> None:
    (repo.root / TARGET).write_text(POLICY)
    commit_all(repo.root, "policy")


@pytest.fixture
def guarded(prepared: Prepared) -> MemoryRepo:
    """The repository with the read-only policy committed by a person."""
    return prepared("guarded", _policy)


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("door", DOORS)
def test_every_door_refuses_a_read_only_memory(guarded: MemoryRepo, door: str, case: str) -> None:
    CASES[case](guarded)
    before = (guarded.root / TARGET).read_bytes()
    head = guarded.store.git.head()
    with pytest.raises(Refused, match="read_only"):
        DOORS[door](guarded)
    assert guarded.store.git.head() == head
    if door != "watch":  # the watcher's door is the person's own edit, left on disk uncommitted
        assert (guarded.root / TARGET).read_bytes() == before


def test_a_person_can_force_it(guarded: MemoryRepo) -> None:
    assert guarded.write(TARGET, fields={"description": "edited by a person"}, force=True).commit
    done = cli(guarded, "rm", TARGET, "--force")
    assert done.returncode == 0 and not (guarded.root / TARGET).exists()


def test_refusal_names_force_only_where_there_is_one(guarded: MemoryRepo, tmp_path: Path) -> None:
    write = cli(guarded, "write", TARGET, "--body", "x")
    assert write.returncode == 3 and "--force" in write.stderr
    forget = cli(guarded, "forget", TARGET)
    assert forget.returncode == 3 and "read_only" in forget.stderr and "--force" not in forget.stderr


def test_read_only_files_need_force(repo: MemoryRepo) -> None:
    persona = (repo.root / "system/persona.md").read_bytes()
    refused = cli(repo, "write", "system/persona.md", "--description", "hijacked")
    assert refused.returncode == 3 and "read_only: true" in refused.stderr and "--force" in refused.stderr
    assert cli(repo, "rm", "system/persona.md").returncode == 3
    assert (repo.root / "system/persona.md").read_bytes() == persona
    assert cli(repo, "write", "system/persona.md", "--description", "edited by a person", "--force").returncode == 0
    assert repo.store.read("system/persona.md").description == "edited by a person"
