"""CI runs what the README tells a contributor to run: ``.ci/run``'s command (after it moves to
the checkout, prints the versions and installs the servers the sync tests start) is, byte for
byte, the README's second command, "set up and run the tests", in its first fenced block.

The install is CI's only extra: on a contributor's machine without lighttpd or sshd those tests
skip, saying what to install; in CI (``CI`` set) they fail instead, so CI must install them."""

from __future__ import annotations

import re

from tests import servers
from tests.helpers import PROJECT

#: ``.ci/run``'s lines that set the scene rather than test: the shell options, the move to the
#: checkout, the versions for the log.
PREAMBLE = ("set -euo pipefail", 'cd "$(dirname "$0")/.."', "python3 --version", "git --version")
#: ``.ci/run``'s lines that install the servers :mod:`tests.servers` starts (Debian packages).
SERVERS = (
    'as_root=""; [ "$(id -u)" = 0 ] || as_root="sudo"',
    '$as_root apt-get update -q && $as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q '
    "--no-install-recommends lighttpd openssh-server",
)


def commands(text: str) -> list[str]:
    """The shell commands in ``text``: its lines without blank ones, comments and the shebang."""
    return [line for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]


def readme_commands() -> list[str]:
    block = re.search(r"^```[a-z]*\n(.*?)^```", (PROJECT / "README.md").read_text(encoding="utf-8"), re.M | re.S)
    assert block is not None, "README.md has no fenced block"
    return commands(block.group(1))


def ci_commands() -> list[str]:
    run = commands((PROJECT / ".ci" / "run").read_text(encoding="utf-8"))
    return [line for line in run if line not in PREAMBLE and line not in SERVERS]


def test_ci_runs_the_readmes_test_command() -> None:
    readme = readme_commands()
    assert len(readme) >= 2, readme
    assert ci_commands() == [readme[1]]


def test_the_test_command_runs_the_three_checks() -> None:
    """What the shared command must hold: the lint, the strict type check and the tests."""
    (command,) = ci_commands()
    for check in (".venv/bin/ruff check .", ".venv/bin/mypy", ".venv/bin/pytest -q"):
        assert check in command


def test_ci_installs_every_servers_packages_first() -> None:
    """Exactly the packages the servers need, before the shared command, and nothing else."""
    run = commands((PROJECT / ".ci" / "run").read_text(encoding="utf-8"))
    assert [line for line in run if line in SERVERS] == list(SERVERS)
    assert run.index(SERVERS[-1]) < run.index(ci_commands()[0])
    installed = SERVERS[-1].split("--no-install-recommends ")[1].split()
    assert sorted(installed) == sorted(package for needs in servers.PACKAGES.values() for package in needs)
