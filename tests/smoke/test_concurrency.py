"""Concurrent ``memfs remember`` processes: one winner per expected revision, no lost update."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from memfs import MemoryRepo
from memfs.ops.remember import remember
from memfs.store.history import revisions
from tests.helpers import PREFERENCE, PREFERENCE_PATH, candidate

pytestmark = pytest.mark.slow


def _remember_script(root: Path, body: str, expected: int | None) -> list[str]:
    data = {**PREFERENCE, "body": body, "source": f"c:{body}"}
    if expected is not None:
        data["expected_revision"] = expected
    return [sys.executable, "-m", "memfs", "-C", str(root), "remember", "--json", "-"], json.dumps(data)


def test_concurrent_supersedes_one_winner_per_revision(repo: MemoryRepo) -> None:
    remember(repo.store, candidate("v0", "c:0"))
    procs = []
    for i in range(4):
        args, data = _remember_script(repo.root, f"with-expectation-{i}", 1)
        procs.append(
            (
                subprocess.Popen(
                    args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
                ),
                data,
            )
        )
    results = [p.communicate(d) for p, d in procs]
    codes = [p.returncode for p, _ in procs]
    assert sorted(codes) == [0, 3, 3, 3], results
    assert all("changed since you read it" in err for (_, err), code in zip(results, codes, strict=True) if code)
    assert repo.store.read(PREFERENCE_PATH).revision == 2

    procs = []
    for i in range(4):
        args, data = _remember_script(repo.root, f"free-{i}", None)
        procs.append(
            (
                subprocess.Popen(
                    args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
                ),
                data,
            )
        )
    outs = [json.loads(p.communicate(d)[0]) for p, d in procs]
    assert sorted(o["revision"] for o in outs) == [3, 4, 5, 6]
    values = [r.value.strip() for r in revisions(repo.store, PREFERENCE_PATH)]
    assert all(f"free-{i}" in values for i in range(4))
