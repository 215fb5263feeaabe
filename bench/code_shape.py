"""The shape of the code, as issue #24 measures it: module sizes (the largest, and how many are
over 600 lines), functions over 80 lines, ``MemoryRepo``'s public names, the README's lines, and
how many verbs are declared once (``memfs.ops.verbs``/``memfs.agents.verbs``) against how many
commands the CLI has.

Run from a checkout: ``python bench/code_shape.py [ROOT]`` (ROOT defaults to this checkout; give
another worktree to compare). It reads files and imports ``memfs`` from ROOT; it changes nothing.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path


def module_sizes(package: Path) -> list[tuple[int, str]]:
    return sorted(((len(p.read_text(encoding="utf-8").splitlines()), str(p.relative_to(package.parent)))
                   for p in package.rglob("*.py")), reverse=True)


def long_functions(package: Path, most: int = 80) -> list[tuple[int, str]]:
    found = []
    for path in package.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.end_lineno is not None:
                length = node.end_lineno - node.lineno + 1
                if length > most:
                    found.append((length, f"{path.relative_to(package.parent)}:{node.name}"))
    return sorted(found, reverse=True)


PROBE = """
import sys
from memfs.api import MemoryRepo
from memfs.cli import COMMANDS
names = sorted(n for n in dir(MemoryRepo) if not n.startswith("_"))
try:
    import memfs.agents.verbs, memfs.ops.verbs
    from memfs.ops.verbs.declare import VERBS
    declared = sorted(VERBS)
except ImportError:
    declared = []
print(len(names)); print(" ".join(names)); print(len(COMMANDS)); print(" ".join(declared))
"""


def main() -> None:
    root = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parents[1]).resolve()
    package = root / "memfs"
    sizes = module_sizes(package)
    print(f"modules: {len(sizes)}, lines: {sum(n for n, _ in sizes)}")
    print(f"largest: {', '.join(f'{name} {n}' for n, name in sizes[:5])}")
    print(f"over 600 lines: {[f'{name} {n}' for n, name in sizes if n > 600]}")
    print(f"functions over 80 lines: {[f'{name} {n}' for n, name in long_functions(package)]}")
    print(f"README lines: {len((root / 'README.md').read_text(encoding='utf-8').splitlines())}")
    out = subprocess.run([sys.executable, "-c", PROBE], cwd=root, capture_output=True, text=True, check=True,
                         env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"}).stdout.splitlines()
    print(f"MemoryRepo public names: {out[0]} ({out[1]})")
    declared = out[3].split()
    print(f"CLI commands: {out[2]}; verbs declared once: {len(declared)} ({' '.join(declared)})")


if __name__ == "__main__":
    main()
