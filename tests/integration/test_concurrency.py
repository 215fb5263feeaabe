"""Two processes writing to one repository at once: every write becomes its own clean commit."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from memfs import MemoryRepo
from tests.helpers import add, git, subjects

WRITER = """
import sys, time
from memfs import MemoryRepo

root, name, count, go = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
while not __import__("os").path.exists(go):
    time.sleep(0.001)
repo = MemoryRepo.open(root, actor=f"agent:{name}")
fields = {"type": "note", "scope": "user:U5", "source": f"test:{name}"}
for i in range(count):
    repo.write(f"{name}/m{i:03d}.md", fields=fields, body=f"{name} note {i}\\n" * 20)
    repo.write("shared.md", fields={"description": f"{name} {i}"})
"""


@pytest.mark.slow
def test_two_processes_fifty_writes_each(repo: MemoryRepo) -> None:
    add(repo, "shared.md", body="shared\n", type="note")
    go = repo.root.parent / "go"
    procs = [
        subprocess.Popen([sys.executable, "-c", textwrap.dedent(WRITER), str(repo.root), name, "50", str(go)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for name in ("alpha", "beta")
    ]
    go.touch()
    for proc in procs:
        _, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err
    titles = subjects(repo.root)
    assert len([s for s in titles if s.startswith("memfs: create alpha/")]) == 50
    assert len([s for s in titles if s.startswith("memfs: create beta/")]) == 50
    assert len([s for s in titles if s == "memfs: update shared.md"]) == 100
    assert git(repo.root, "status", "--porcelain") == ""
    git(repo.root, "fsck", "--strict")
    scan = repo.store.scan()
    assert scan.broken == [] and repo.validate() == []
    assert len([m for m in scan.memories if m.path.startswith(("alpha/", "beta/"))]) == 100
    for memory in scan.memories:
        if memory.path.startswith(("alpha/", "beta/")):
            name, number = memory.path.split("/")[0], int(memory.path[-6:-3])
            assert memory.body == f"{name} note {number}\n" * 20
    assert repo.store.read("shared.md").revision == 101  # no update was lost
