"""The test folders keep their promise (``tests/conftest.py`` says what each holds): unit tests
start no process and use no repository, integration tests do not go through the CLI, CLI tests
run it in this process, and every test module is in one of the four folders."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.helpers import PROJECT

TESTS = PROJECT / "tests"
FOLDERS = ("unit", "integration", "cli", "smoke")
#: Helpers that start git or Python, or need a repository.
REPOSITORY_HELPERS = {
    "git", "set_identity", "commit_all", "commit_count", "subjects", "all_object_texts", "new_repo", "copy_repo",
    "bare_repo", "clone_repo", "remote_head", "put", "add", "user_memories", "branch_and_merge", "crash",
}
CLI_HELPERS = {"run_cli", "cli"}
PROCESS_HELPERS = {"run_process"}
#: Fixtures that are not repositories (every other fixture in tests/conftest.py builds one).
HARMLESS_FIXTURES = {"isolated_git", "closed_indexes", "clock"}


def _fixtures(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {
        node.name
        for node in tree.body
        if isinstance(node, ast.FunctionDef) and any("fixture" in ast.unparse(d) for d in node.decorator_list)
    }


REPOSITORY_FIXTURES = _fixtures(TESTS / "conftest.py") - HARMLESS_FIXTURES


def _uses(path: Path) -> tuple[set[str], set[str], set[str]]:
    """What a test module imports from tests.helpers, which other modules it imports, and the
    parameters (fixtures) of its functions."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    helpers, modules, params = set(), set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "tests.helpers":
            helpers |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            modules |= {node.module, *(f"{node.module}.{alias.name}" for alias in node.names)}
        elif isinstance(node, ast.Import):
            modules |= {alias.name for alias in node.names}
        elif isinstance(node, ast.FunctionDef):
            params |= {arg.arg for arg in node.args.args}
    return helpers, modules, params


def _modules(folder: str) -> list[Path]:
    return sorted((TESTS / folder).glob("test_*.py"))


def test_every_test_module_is_in_a_folder() -> None:
    assert sorted(p.name for p in TESTS.glob("test_*.py")) == []
    for folder in FOLDERS:
        assert (TESTS / folder / "__init__.py").exists(), folder
        assert _modules(folder), folder
    assert "repo" in REPOSITORY_FIXTURES and "chain" in REPOSITORY_FIXTURES


@pytest.mark.parametrize("path", _modules("unit"), ids=lambda p: p.name)
def test_unit_tests_start_no_process_and_use_no_repository(path: Path) -> None:
    helpers, modules, params = _uses(path)
    assert helpers & (REPOSITORY_HELPERS | CLI_HELPERS | PROCESS_HELPERS) == set()
    assert params & REPOSITORY_FIXTURES == set()
    assert modules & {"subprocess", "memfs.MemoryRepo", "memfs.api", "memfs.cli"} == set()


@pytest.mark.parametrize("path", _modules("integration"), ids=lambda p: p.name)
def test_integration_tests_do_not_use_the_cli(path: Path) -> None:
    helpers, modules, _ = _uses(path)
    assert helpers & (CLI_HELPERS | PROCESS_HELPERS) == set()
    assert not any(m == "memfs.cli" or m.startswith("memfs.cli.") for m in modules)


@pytest.mark.parametrize("path", _modules("cli"), ids=lambda p: p.name)
def test_cli_tests_run_it_in_this_process(path: Path) -> None:
    helpers, _, _ = _uses(path)
    assert helpers & PROCESS_HELPERS == set()
    assert helpers & CLI_HELPERS


def test_the_checker_sees_helpers_imports_and_fixtures(tmp_path: Path) -> None:
    path = tmp_path / "test_x.py"
    path.write_text(
        "import subprocess\nfrom memfs import MemoryRepo\nfrom tests.helpers import cli, git\n\n\n"
        "def test_a(repo, tmp_path):\n    def inner(x):\n        pass\n"
    )
    helpers, modules, params = _uses(path)
    assert helpers == {"cli", "git"}
    assert {"subprocess", "memfs.MemoryRepo"} <= modules
    assert params == {"repo", "tmp_path", "x"}
