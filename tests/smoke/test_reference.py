"""The generated CLI reference reads as the real ``memfs`` process prints its help on a wide
terminal (click wraps at 78 columns on any terminal of 80 or more)."""

from __future__ import annotations

from tests.helpers import PROJECT, run_process


def test_the_page_reads_as_the_real_command_prints_on_a_wide_terminal() -> None:
    printed = run_process("search", "--help", env={"COLUMNS": "200"})
    assert printed.returncode == 0, printed.stderr
    page = (PROJECT / "docs" / "cli.md").read_text(encoding="utf-8")
    assert f"## memfs search\n\n```text\n{printed.stdout.rstrip()}\n```\n" in page
