"""Two processes writing to one repository at once: every write becomes its own clean commit."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

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


def test_writers_are_served_in_the_order_they_came(tmp_path: Path) -> None:
    """Eight writers queue behind a held lock, one after another; they get it in that order."""
    import threading

    from memfs.store import locking
    from tests.helpers import wait_for

    lock = tmp_path / "memfs.lock"
    queue = tmp_path / "memfs.lock.queue"
    served: list[int] = []
    threads = []
    with locking.exclusive(lock, fair=True):
        for i in range(8):
            def writer(i: int = i) -> None:
                with locking.exclusive(lock, fair=True):
                    served.append(i)

            threads.append(threading.Thread(target=writer))
            threads[-1].start()
            assert wait_for(lambda i=i: len([p for p in queue.iterdir() if p.name.startswith("t")]) == i + 2)
    for thread in threads:
        thread.join()
    assert served == list(range(8))
    assert sorted(p.name for p in queue.iterdir()) == ["door"]  # every ticket left with its writer


def test_a_dead_writers_ticket_is_skipped(tmp_path: Path) -> None:
    """A ticket nobody holds (its process was killed) does not keep the queue waiting."""
    from memfs.store import locking

    lock = tmp_path / "memfs.lock"
    (tmp_path / "memfs.lock.queue").mkdir()
    (tmp_path / "memfs.lock.queue" / "t000000000001").touch()
    with locking.exclusive(lock, timeout=0.0, fair=True):
        pass
    assert not (tmp_path / "memfs.lock.queue" / "t000000000001").exists()


def test_a_lock_timeout_names_no_host_path(tmp_path: Path) -> None:
    """Held by another open file description (as another process would), the lock times out with
    a message that says which lock without saying where the host keeps the repository."""
    import fcntl
    import os

    from memfs.errors import LockTimeout
    from memfs.store import locking

    lock = tmp_path / "memfs.lock"
    other = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(other, fcntl.LOCK_EX)
        with pytest.raises(LockTimeout) as caught, locking.exclusive(lock, timeout=0.0):
            pass
    finally:
        os.close(other)
    assert "write lock (memfs.lock)" in str(caught.value) and str(tmp_path) not in str(caught.value)


@pytest.mark.slow
def test_eight_processes_each_get_their_turn(repo: MemoryRepo) -> None:
    """Eight writer processes at once: none gives up waiting, every write is its own commit."""
    add(repo, "shared.md", body="shared\n", type="note")
    go = repo.root.parent / "go"
    names = [f"w{i}" for i in range(8)]
    procs = [
        subprocess.Popen([sys.executable, "-c", textwrap.dedent(WRITER), str(repo.root), name, "2", str(go)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for name in names
    ]
    go.touch()
    for proc in procs:
        _, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err
    titles = subjects(repo.root)
    for name in names:
        assert len([s for s in titles if s.startswith(f"memfs: create {name}/")]) == 2
    assert repo.store.read("shared.md").revision == 17  # no update was lost
