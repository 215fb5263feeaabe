"""docs/cli.md is what ``python -m memfs.cli.reference`` generates from the commands' own help
now, so the CLI reference cannot drift from the commands (as sqlite-utils checks its docs with cog)."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

from memfs.cli import COMMANDS, reference
from tests.helpers import PROJECT, run_cli

PAGE = PROJECT / "docs" / "cli.md"


def test_the_cli_reference_is_what_the_generator_produces_now() -> None:
    assert PAGE.read_text(encoding="utf-8") == reference.render(), (
        f"docs/cli.md differs from the commands' --help: regenerate it with `{reference.REGENERATE}`")


def test_every_verb_and_the_group_have_a_section() -> None:
    titles = re.findall(r"^## (memfs(?: [a-z-]+)?)$", reference.render(), re.M)
    assert titles == ["memfs", *(f"memfs {verb}" for verb in sorted(COMMANDS))]


@pytest.fixture(scope="module")
def page_at_80() -> str:
    """The page rendered at the 80 columns click's test runner forces on every help."""
    width = reference.WIDTH
    reference.WIDTH = 80
    try:
        return reference.render()
    finally:
        reference.WIDTH = width


@pytest.mark.parametrize("verb", [None, *sorted(COMMANDS)])
def test_a_section_is_the_verbs_help_as_click_prints_it(verb: str | None, page_at_80: str) -> None:
    args = ["--help"] if verb is None else [verb, "--help"]
    printed = run_cli(*args)
    assert printed.returncode == 0, printed.stderr
    title = "memfs" if verb is None else f"memfs {verb}"
    assert f"## {title}\n\n```text\n{printed.stdout.rstrip()}\n```\n" in page_at_80


def test_the_page_does_not_depend_on_the_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    first = reference.render()
    monkeypatch.setenv("COLUMNS", "40")
    assert reference.render() == first


def test_the_generator_prints_the_page() -> None:
    done = CliRunner().invoke(reference.main, [])
    assert done.exit_code == 0 and done.output == reference.render()
