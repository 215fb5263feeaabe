"""The layer rule, enforced: who may import whom inside ``memfs``, no cycles, one git module.

Layers, bottom to top (``docs/design.md`` explains each)::

    errors  <  format  <  policy  <  store  <  index  <  ops  <  agents  <  api  <  integrations  <  cli

A module may import its own package and any lower layer. ``policy`` sits below ``store`` so the
one commit path (``store.repo.Transaction``) can run the guard every door passes; policy itself
never imports the store (it stays pure: no I/O). Imports inside
functions count the same as top-level ones: a lazy import is still a dependency, and so is one
made by name (``importlib.import_module`` or ``__import__`` with a literal or an f-string). Only
``memfs.store.gitcli`` starts processes (``subprocess``); no module catches ``ImportError``
(a missing module is an error in CI, not a quieter feature).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

from memfs.policy.lineage import find_cycles
from tests.helpers import PROJECT

PACKAGE = PROJECT / "memfs"

RANK = {
    "errors": 0,
    "format": 1,
    "policy": 2,
    "store": 3,
    "index": 4,
    "ops": 5,
    "agents": 6,
    "api": 7,
    "integrations": 8,
    "cli": 9,
}
#: Modules outside the sub-packages, by the layer they belong to.
TOP_LEVEL = {
    "memfs": "api",
    "memfs.api": "api",
    "memfs.mcp_server": "api",
    "memfs.mcp_tools": "api",
    "memfs.mcp_sampling": "api",
    "memfs.repos": "api",
    "memfs.errors": "errors",
    "memfs.__main__": "cli",
}
#: The one module allowed to start processes.
PROCESS_MODULE = "memfs.store.gitcli.process"
PROCESS_IMPORTS = {"subprocess", "multiprocessing", "pty"}


@dataclass(frozen=True)
class Module:
    name: str
    imports: frozenset[str]
    external: frozenset[str]
    import_errors_caught: tuple[int, ...]


def layer(module: str) -> str:
    if module in TOP_LEVEL:
        return TOP_LEVEL[module]
    parts = module.split(".")
    if len(parts) < 2 or parts[1] not in RANK:
        raise AssertionError(f"{module}: not in any layer; put it in one of {sorted(RANK)} (or list it in TOP_LEVEL)")
    return parts[1]


def _module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _resolve(name: str, known: set[str]) -> str | None:
    """The memfs module an import names (``memfs.store.atomic``), or its package if it is a name in one."""
    while name:
        if name in known:
            return name
        name = name.rpartition(".")[0]
    return None


#: Calls that import the module their first argument names.
DYNAMIC_IMPORTS = {"importlib.import_module", "import_module", "__import__"}


def _dynamic_import(node: ast.Call) -> str | None:
    """The module an ``importlib.import_module(...)`` or ``__import__(...)`` call names: a string
    literal whole, an f-string by its literal prefix up to the last dot (``f"memfs.cli.{x}"`` names
    at least ``memfs.cli``); ``None`` for other calls and for names only known at run time."""
    if ast.unparse(node.func) not in DYNAMIC_IMPORTS or not node.args:
        return None
    arg = node.args[0]
    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
        return arg.value
    if isinstance(arg, ast.JoinedStr):
        prefix = ""
        for part in arg.values:
            if not (isinstance(part, ast.Constant) and isinstance(part.value, str)):
                break
            prefix += part.value
        return prefix.rpartition(".")[0] or None
    return None


def _imports(tree: ast.AST, module: str, is_package: bool, known: set[str]) -> tuple[set[str], set[str]]:
    found: set[str] = set()
    external: set[str] = set()
    base = module.split(".") if is_package else module.split(".")[:-1]
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Call):
            dynamic = _dynamic_import(node)
            names = [dynamic] if dynamic else []
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            origin = node.module or ""
            if node.level:
                origin = ".".join(base[: len(base) - node.level + 1] + ([origin] if origin else []))
            names = [f"{origin}.{a.name}" if f"{origin}.{a.name}" in known else origin for a in node.names]
        for name in names:
            if name == "memfs" or name.startswith("memfs."):
                target = _resolve(name, known)
                if target is not None and target != module:
                    found.add(target)
            else:
                external.add(name.split(".")[0])
    return found, external


def _catches_import_error(tree: ast.AST) -> list[int]:
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ExceptHandler) and node.type is not None:
            caught = node.type.elts if isinstance(node.type, ast.Tuple) else [node.type]
            if any(isinstance(c, ast.Name) and c.id in ("ImportError", "ModuleNotFoundError") for c in caught):
                lines.append(node.lineno)
    return lines


def scan(root: Path = PACKAGE) -> dict[str, Module]:
    files = {_module_name(p, root): p for p in root.rglob("*.py")}
    known = set(files)
    out = {}
    for name, path in files.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        found, external = _imports(tree, name, path.name == "__init__.py", known)
        out[name] = Module(name, frozenset(found), frozenset(external), tuple(_catches_import_error(tree)))
    return out


def wrong_way(graph: Mapping[str, Iterable[str]]) -> list[str]:
    """Every import against the layer rule, as ``a -> b (layer A may not import layer B)``."""
    found = []
    for module, targets in sorted(graph.items()):
        mine = layer(module)
        for target in sorted(targets):
            theirs = layer(target)
            same_package = module.split(".")[:2] == target.split(".")[:2] and mine not in ("api", "errors")
            if same_package or mine == theirs:
                continue
            if RANK[theirs] >= RANK[mine]:
                found.append(f"{module} -> {target} ({mine} may not import {theirs})")
    return found


def cycles(graph: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """Strongly connected groups of more than one module (the same Tarjan walk that finds
    ``depends_on`` cycles)."""
    return find_cycles(graph)


@pytest.fixture(scope="module")
def modules() -> dict[str, Module]:
    """memfs's modules, parsed by the worker that runs these tests (not at collection, in every worker)."""
    return scan()


def _graph(modules: dict[str, Module]) -> dict[str, frozenset[str]]:
    return {name: m.imports for name, m in modules.items()}


def test_every_module_is_in_a_layer(modules: dict[str, Module]) -> None:
    for name in modules:
        layer(name)


def test_no_import_goes_against_the_layers(modules: dict[str, Module]) -> None:
    assert wrong_way(_graph(modules)) == []


def test_no_import_cycles(modules: dict[str, Module]) -> None:
    assert cycles(_graph(modules)) == []


def test_only_the_git_module_starts_processes(modules: dict[str, Module]) -> None:
    offenders = sorted(n for n, m in modules.items() if m.external & PROCESS_IMPORTS and n != PROCESS_MODULE)
    assert offenders == []


def test_no_module_hides_a_missing_import(modules: dict[str, Module]) -> None:
    offenders = {n: m.import_errors_caught for n, m in modules.items() if m.import_errors_caught}
    assert offenders == {}


# --- the checker itself can fail -------------------------------------------------------------
@pytest.mark.parametrize(
    ("graph", "expected"),
    [
        ({"memfs.policy.recall": {"memfs.store.repo"}}, ["policy may not import store"]),
        ({"memfs.store.repo": {"memfs.policy.recall"}}, []),
        ({"memfs.policy.guard": {"memfs.store.gitcli"}}, ["policy may not import store"]),
        ({"memfs.format.parse": {"memfs.index.query"}}, ["format may not import index"]),
        ({"memfs.ops.remember": {"memfs.cli.write"}}, ["ops may not import cli"]),
        ({"memfs.index.query": {"memfs.ops.stats"}}, ["index may not import ops"]),
        ({"memfs.errors": {"memfs.format.model"}}, ["errors may not import format"]),
        ({"memfs.ops.remember": {"memfs.policy.gate", "memfs.store.repo", "memfs.ops.idempotency"}}, []),
        ({"memfs.cli.write": {"memfs.api", "memfs.errors"}}, []),
    ],
)
def test_wrong_way_edges_are_found(graph: dict[str, set[str]], expected: list[str]) -> None:
    found = wrong_way(graph)
    assert len(found) == len(expected)
    for text, want in zip(found, expected, strict=True):
        assert want in text


def test_cycles_are_found() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e"}}
    assert cycles(graph) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_the_scanner_sees_imports_by_name(tmp_path: Path) -> None:
    """``importlib.import_module`` with a literal or an f-string, and ``__import__``, count as
    imports: a wrong-way one fails the layer test; a run-time name cannot be seen."""
    pkg = tmp_path / "memfs"
    for folder in ("policy", "store", "index", "cli"):
        (pkg / folder).mkdir(parents=True)
        (pkg / folder / "__init__.py").write_text("")
    for name in ("__init__.py", "store/repo.py", "cli/search.py"):
        (pkg / name).write_text("")
    (pkg / "policy" / "rule.py").write_text(
        "import importlib\nfrom importlib import import_module\n\n"
        "def f(name):\n"
        "    importlib.import_module('memfs.store.repo')\n"
        "    import_module(f'memfs.index.{name}')\n"
        "    __import__('subprocess')\n"
        "    importlib.import_module(name)\n"
    )
    (pkg / "cli" / "__init__.py").write_text(
        "import importlib\n\ndef load(module):\n    return importlib.import_module(f'memfs.cli.{module}')\n"
    )
    (pkg / "store" / "deep.py").write_text("def f():\n    return __import__('memfs.cli.search')\n")
    found = scan(pkg)
    assert found["memfs.policy.rule"].imports == {"memfs.store.repo", "memfs.index"}
    assert "subprocess" in found["memfs.policy.rule"].external
    assert found["memfs.cli"].imports == set()
    assert wrong_way({n: m.imports for n, m in found.items()}) == [
        "memfs.policy.rule -> memfs.index (policy may not import index)",
        "memfs.policy.rule -> memfs.store.repo (policy may not import store)",
        "memfs.store.deep -> memfs.cli.search (store may not import cli)",
    ]


def test_the_scanner_sees_lazy_and_relative_imports(tmp_path: Path) -> None:
    pkg = tmp_path / "memfs"
    (pkg / "policy").mkdir(parents=True)
    (pkg / "store").mkdir()
    for name in ("__init__.py", "policy/__init__.py", "store/__init__.py", "store/repo.py"):
        (pkg / name).write_text("")
    rule = (
        "def f():\n    from memfs.store import repo\n"
        "    try:\n        import x\n    except ImportError:\n        pass\n"
    )
    (pkg / "policy" / "rule.py").write_text(rule)
    found = scan(pkg)
    assert found["memfs.policy.rule"].imports == {"memfs.store.repo"}
    assert found["memfs.policy.rule"].import_errors_caught == (5,)
    assert wrong_way({n: m.imports for n, m in found.items()}) == [
        "memfs.policy.rule -> memfs.store.repo (policy may not import store)"
    ]
