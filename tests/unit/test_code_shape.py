"""The code's shape as issue #24 set it: no module of the package over 600 lines and no function
over 80, so a module keeps one job and a function can be read at once. A module or function
that grows past the line is split along its seams, not exempted here."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "memfs"


def oversized(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    name = str(path.relative_to(PACKAGE.parent))
    found = [f"{name}: {len(text.splitlines())} lines"] if len(text.splitlines()) > 600 else []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.end_lineno is not None:
            length = node.end_lineno - node.lineno + 1
            if length > 80:
                found.append(f"{name}:{node.lineno} {node.name}: {length} lines")
    return found


def test_no_module_over_600_lines_and_no_function_over_80() -> None:
    modules = sorted(PACKAGE.rglob("*.py"))
    assert len(modules) > 100, "the package was not found"
    assert [found for path in modules for found in oversized(path)] == []
