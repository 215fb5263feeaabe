"""CI runs what the README tells a contributor to run: ``.ci/run``'s command (after it moves to
the checkout and prints the versions) is, byte for byte, the README's second command, "set up and
run the tests", in its first fenced block."""

from __future__ import annotations

import re

from tests.helpers import PROJECT

#: ``.ci/run``'s lines that set the scene rather than test: the shell options, the move to the
#: checkout, the versions for the log.
PREAMBLE = ("set -euo pipefail", 'cd "$(dirname "$0")/.."', "python3 --version", "git --version")


def commands(text: str) -> list[str]:
    """The shell commands in ``text``: its lines without blank ones, comments and the shebang."""
    return [line for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]


def readme_commands() -> list[str]:
    block = re.search(r"^```[a-z]*\n(.*?)^```", (PROJECT / "README.md").read_text(encoding="utf-8"), re.M | re.S)
    assert block is not None, "README.md has no fenced block"
    return commands(block.group(1))


def ci_commands() -> list[str]:
    return [line for line in commands((PROJECT / ".ci" / "run").read_text(encoding="utf-8")) if line not in PREAMBLE]


def test_ci_runs_the_readmes_test_command() -> None:
    readme = readme_commands()
    assert len(readme) >= 2, readme
    assert ci_commands() == [readme[1]]


def test_the_test_command_runs_the_three_checks() -> None:
    """What the shared command must hold: the lint, the strict type check and the tests."""
    (command,) = ci_commands()
    for check in (".venv/bin/ruff check .", ".venv/bin/mypy", ".venv/bin/pytest -q"):
        assert check in command
