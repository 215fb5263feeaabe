"""The progress bar: drawn on stderr when it is a terminal (a pseudo-terminal here), never when
stderr is piped, never with ``--quiet``. The real entry point runs in a fresh process, with the
bar's delay set to 0 so that a small repository shows it (it normally appears after
:data:`memfs.cli.progress.DELAY` seconds)."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from memfs import MemoryRepo
from tests.helpers import put

pytestmark = pytest.mark.slow

_MAIN = "import sys, memfs.cli.progress as p; p.DELAY = 0.0; from memfs.cli import main; main(sys.argv[1:])"


def run(root: Path, *args: str, terminal: bool) -> tuple[int, str, str]:
    """``memfs -C ROOT ARGS`` in a new process: (exit code, stdout, stderr), stderr on a
    pseudo-terminal when ``terminal``, else a pipe."""
    env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": "100"}
    env.pop("NO_COLOR", None)
    command = [sys.executable, "-c", _MAIN, "-C", str(root), *args]
    if not terminal:
        done = subprocess.run(command, capture_output=True, text=True, env=env, stdin=subprocess.DEVNULL)
        return done.returncode, done.stdout, done.stderr
    main, child = pty.openpty()
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=child, stdin=subprocess.DEVNULL, env=env) as proc:
        os.close(child)
        seen = b""
        while True:
            try:
                chunk = os.read(main, 65536)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
        out = proc.stdout.read().decode() if proc.stdout else ""
        code = proc.wait()
    os.close(main)
    return code, out, seen.decode("utf-8", "replace")


@pytest.fixture
def many(repo: MemoryRepo) -> MemoryRepo:
    for i in range(40):
        put(repo, f"facts/f{i:02}.md", body=f"fact number {i}\n")
    return repo


def test_validate_draws_a_bar_on_a_terminal_only(many: MemoryRepo) -> None:
    code, out, err = run(many.root, "validate", terminal=True)
    assert code == 0 and "ok: every memory is valid" in out
    assert "validating" in err and "\x1b[" in err
    code, out, err = run(many.root, "validate", terminal=False)
    assert code == 0 and err == "" and "ok: every memory is valid" in out
    code, _, err = run(many.root, "--quiet", "validate", terminal=True)
    assert code == 0 and "validating" not in err


def test_reindex_shows_the_write_step_instead_of_sitting_at_100(many: MemoryRepo) -> None:
    code, out, err = run(many.root, "reindex", terminal=True)
    assert code == 0 and "indexed 41 memories" in out
    assert "indexing" in err and "writing the index" in err
    code, _, err = run(many.root, "search", "fact", terminal=False)
    assert code == 0 and "indexing" not in err and "\x1b[" not in err


def test_a_search_that_builds_the_index_shows_it(many: MemoryRepo) -> None:
    code, out, err = run(many.root, "search", "fact", "number", "7", terminal=True)
    assert code == 0 and "facts/f07.md" in out
    assert "indexing" in err


def test_import_shows_its_steps_to_the_end(repo: MemoryRepo, tmp_path: Path) -> None:
    """After the files are judged ("importing" at 100%), the steps that still take time are
    named: checking ids and links, checking and making the commit."""
    source = tmp_path / "notes"
    source.mkdir()
    for i in range(20):
        (source / f"n{i:02}.md").write_text(f"# Note {i}\n\nnote number {i}\n", encoding="utf-8")
    code, _, err = run(repo.root, "import", "markdown", str(source), "--scope", "user:U5", "--apply", terminal=True)
    assert code == 0, err
    steps = ["importing", "checking ids and links", "checking the commit", "writing and committing"]
    assert all(step in err for step in steps), err
    assert [err.index(step) for step in steps] == sorted(err.index(step) for step in steps)
