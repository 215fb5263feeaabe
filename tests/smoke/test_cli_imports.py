"""What a fresh ``memfs`` process imports for a command, pinned where most of its CPU went: the
imports (issues #25 and #28, ``bench/README.md``). A ``sync`` with nothing to integrate judges no
text, so it loads neither the secret scanner, the write gate, the conflict tables nor the rules
that settle diverged memories; a ``remember`` loads neither the retraction (only a RETRACT runs it) nor the
search for near-miss conflicts (only a ``[judge] conflict`` asks it), nor the import converters.
Each command runs through the real entry point in a fresh process, which then lists its modules.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from memfs import MemoryRepo
from tests.helpers import FACT

pytestmark = pytest.mark.slow

#: Loaded only to judge text or settle diverged histories; a sync that does neither never needs them.
JUDGING = ("memfs.policy.secrets_scan", "memfs.policy.gate", "memfs.policy.meaning", "memfs.policy.conflicts",
           "memfs.policy.conflict_tokens", "memfs.policy.conflict_pairs", "memfs.policy.concurrent",
           "memfs.format.interop.common", "detect_secrets")

_LISTING = (
    "import json, sys\n"
    "from memfs.cli import main\n"
    "try:\n"
    "    main(sys.argv[2:])\n"
    "finally:\n"
    "    open(sys.argv[1], 'w').write(json.dumps(sorted(sys.modules)))\n"
)


def imported(cwd: Path, listing: Path, *args: str, input: str | None = None) -> set[str]:
    """The modules a fresh ``memfs ARGS`` process had loaded when it ended (it must succeed)."""
    done = subprocess.run([sys.executable, "-c", _LISTING, str(listing), *args], cwd=cwd, input=input, text=True,
                          capture_output=True, env={**os.environ, "MEMFS_NO_LIVE": "1"})
    assert done.returncode == 0, done.stderr
    return set(json.loads(listing.read_text()))


def test_a_sync_with_nothing_to_integrate_loads_no_judging_module(
    tmp_path: Path, clone: Callable[[str], MemoryRepo]
) -> None:
    a, b = clone("a"), clone("b")
    nothing = imported(a.root, tmp_path / "nothing.json", "sync")
    assert nothing.isdisjoint(JUDGING), sorted(nothing & set(JUDGING))
    a.write("facts/pushed.md", fields=FACT, body="A fact to push.\n")
    pushing = imported(a.root, tmp_path / "push.json", "sync")
    assert pushing.isdisjoint(JUDGING), sorted(pushing & set(JUDGING))
    b.sync()
    assert (b.root / "facts/pushed.md").exists()


def test_a_sync_that_integrates_loads_the_reconciliation(tmp_path: Path, clone: Callable[[str], MemoryRepo]) -> None:
    """The other side of the test above: the rules are loaded where they are used (a memory with a
    key came in beside one of ours: sync checks that each subject keeps one active memory)."""
    a, b = clone("a"), clone("b")
    a.write("facts/a.md", fields={**FACT, "key": "from_a"}, body="From a.\n")
    a.sync()
    b.write("facts/b.md", fields={**FACT, "key": "from_b"}, body="From b.\n")
    diverged = imported(b.root, tmp_path / "diverged.json", "sync")
    assert "memfs.policy.concurrent" in diverged
    assert (b.root / "facts/a.md").exists()


def test_a_remember_loads_neither_the_retraction_nor_the_near_miss_search(repo: MemoryRepo, tmp_path: Path) -> None:
    candidate = {"type": "preference", "scope": "user:U1", "key": "editor", "source": "user:U1",
                 "source_kind": "user", "body": "Prefers vim for editing."}
    loaded = imported(repo.root, tmp_path / "remember.json", "--actor", "user:U1", "remember", "--json", "-",
                      input=json.dumps(candidate))
    assert "memfs.policy.gate" in loaded and "memfs.ops.remember" in loaded
    assert loaded.isdisjoint({"memfs.ops.retract", "memfs.ops.conflicts", "memfs.policy.conflict_net",
                              "memfs.format.interop.common", "detect_secrets"})
    assert repo.search("vim editing", scope="user:U1")
