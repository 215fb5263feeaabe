"""The CLI through its real entry point: init, write, show, ls, validate, log."""

from __future__ import annotations

import json
from pathlib import Path

from tests.helpers import FACT, options
from tests.helpers import run_process as run_cli


def test_init_write_show_log(tmp_path: Path) -> None:
    mem = tmp_path / "mem"
    assert run_cli("init", str(mem)).returncode == 0
    fields = options({**FACT, "type": "preference"})
    done = run_cli("-C", str(mem), "write", "prefs/lang.md", *fields, "--body", "Release notes in Chinese.")
    assert done.returncode == 0, done.stderr
    shown = json.loads(run_cli("-C", str(mem), "show", "prefs/lang.md", "--json").stdout)
    assert shown["scope"] == "user:U5" and shown["revision"] == 1
    log = json.loads(run_cli("-C", str(mem), "log", "--json").stdout)
    assert [e["op"] for e in log] == ["create", "init"]


def test_error_is_one_line_exit_3(tmp_path: Path) -> None:
    done = run_cli("-C", str(tmp_path), "show", "nothing.md")
    assert done.returncode == 3
    assert done.stderr.startswith("memfs: error:") and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
