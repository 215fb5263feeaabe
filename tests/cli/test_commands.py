"""Every verb in :data:`memfs.cli.COMMANDS`: it resolves to its click command, has help and a
docstring, the library calls it declares exist, ``memfs --help`` lists it (unless hidden), the
generated CLI reference (docs/cli.md) has its section, and a guide in docs/ explains it."""

from __future__ import annotations

import importlib
import inspect
import re

import click
import pytest

from memfs import MemoryRepo
from memfs.cli import COMMANDS
from memfs.cli import cli as group
from tests.helpers import PROJECT, run_cli
from tests.markdown import prose

VERBS = sorted(COMMANDS)


def command(verb: str) -> click.Command:
    with click.Context(group) as ctx:
        found = group.get_command(ctx, verb)
    assert found is not None, verb
    return found


VISIBLE = [verb for verb in VERBS if not command(verb).hidden]


def test_the_group_lists_exactly_the_registry() -> None:
    with click.Context(group) as ctx:
        assert group.list_commands(ctx) == VERBS
        assert group.get_command(ctx, "no-such-verb") is None
    assert set(VISIBLE) < set(VERBS)  # merge-driver is git's, not a person's


@pytest.mark.parametrize("verb", VERBS)
def test_verb_resolves_to_its_click_command(verb: str) -> None:
    module, attr = COMMANDS[verb].command.split(":")
    found = getattr(importlib.import_module(f"memfs.cli.{module}"), attr)
    assert isinstance(found, click.Command) and not isinstance(found, click.Group)
    assert command(verb) is found and found.name == verb


@pytest.mark.parametrize("verb", VERBS)
def test_verb_help_exits_0(verb: str) -> None:
    done = run_cli(verb, "--help")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"Usage: memfs {verb} ") and done.stderr == ""
    described, options = done.stdout.partition("\n\n")[2].split("Options:", 1)
    assert described.strip() and options.strip()


@pytest.mark.parametrize("verb", VERBS)
def test_verb_has_a_docstring(verb: str) -> None:
    found = command(verb)
    assert found.callback is not None
    doc = inspect.getdoc(found.callback)
    assert doc and doc.strip()
    assert found.help and found.help.strip()


@pytest.mark.parametrize("verb", VERBS)
def test_declared_library_calls_exist(verb: str) -> None:
    calls = COMMANDS[verb].calls
    assert calls, f"{verb} declares no library call"
    for call in calls:
        if ":" in call:
            module, name = call.split(":")
            target = getattr(importlib.import_module(module), name, None)
        else:
            target = getattr(MemoryRepo, call, None)
        assert callable(target), f"{verb}: {call} is not a MemoryRepo method or an importable module:function"


def test_top_level_help_lists_every_visible_verb() -> None:
    done = run_cli("--help")
    assert done.returncode == 0, done.stderr
    listed = re.findall(r"^  ([a-z][a-z-]*)(?:  |$)", done.stdout.partition("\nCommands:\n")[2], re.M)
    assert listed == VISIBLE


GUIDES = sorted(path for path in (PROJECT / "docs").glob("*.md") if path.name != "cli.md")


def explained(verb: str, page: str) -> bool:
    """Whether a guide explains ``verb``: a heading names it (```memfs VERB``` in backticks) or a
    verb table gives it a row (the row's first cell starts with ```memfs VERB``). A mention in
    passing does not count, nor does an example inside a code block."""
    named = re.compile(rf"`memfs {re.escape(verb)}(?![\w-])")
    for line in prose(page):
        if line.startswith("#") and named.search(line):
            return True
        if line.startswith("|") and named.match(line[1:].lstrip()):
            return True
    return False


@pytest.mark.parametrize("verb", VERBS)
def test_the_cli_reference_has_a_section_for_the_verb(verb: str) -> None:
    reference = (PROJECT / "docs" / "cli.md").read_text(encoding="utf-8")
    assert f"\n## memfs {verb}\n" in reference, (
        f"docs/cli.md has no section for memfs {verb}: run python -m memfs.cli.reference --write")


@pytest.mark.parametrize("verb", VERBS)
def test_a_guide_explains_the_verb(verb: str) -> None:
    pages = {path.name: path.read_text(encoding="utf-8") for path in GUIDES}
    assert any(explained(verb, page) for page in pages.values()), (
        f"no guide in docs/ ({', '.join(pages)}) explains memfs {verb}: give it a heading naming "
        f"`memfs {verb}` or a row starting with `memfs {verb}` in a verb table")


def test_the_rule_for_explained_is_strict() -> None:
    assert explained("sync", "## Sharing: `memfs sync`\n")
    assert explained("rm", "| `memfs rm PATH [--reason]` | delete |\n")
    assert not explained("rm", "Use `memfs rm` to delete.\n")                    # a mention in passing
    assert not explained("rm", "| delete | `memfs rm` |\n")                        # not the row's own verb
    assert not explained("rm", "```\n## `memfs rm`\n```\n")                        # inside a code block
    assert not explained("merge", "## `memfs merge-driver`\n")                    # another verb's prefix
