"""Every verb in :data:`memfs.cli.COMMANDS`: it resolves to its click command, has help and a
docstring, the library calls it declares exist, ``memfs --help`` lists it (unless hidden), and
the README documents it."""

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


@pytest.mark.parametrize("verb", VISIBLE)
def test_readme_documents_the_verb(verb: str) -> None:
    readme = (PROJECT / "README.md").read_text(encoding="utf-8")
    assert re.search(rf"`memfs {re.escape(verb)}(?![\w-])", readme), f"README.md never mentions `memfs {verb}"
