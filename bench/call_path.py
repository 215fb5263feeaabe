"""The call path of a verb: which memfs modules ``memfs search`` and ``memfs retract`` pass through.

Issue #24 asks that following a search and a retraction from the CLI down to the commit pass
through fewer modules, and return to fewer it had already left. This script follows both through
the real entry point (:func:`memfs.cli.main`, in this process) with :func:`sys.setprofile` on a
small generated repository in a temporary folder, and prints, for each:

``steps``
    the distinct cross-module calls: a *step* is a call into a function of a memfs module other
    than the module of the calling function (the nearest memfs frame on the stack, so a call made
    through click, whoosh or the standard library counts from the memfs code that made it, and a
    comprehension's call from the function it is written in). It
    is counted once per (calling function, called function) pair, in the order first made, as a
    reader following the code call by call reads a loop's body once: the numbers do not grow
    with the size of the repository.
``modules``
    the distinct memfs modules the path passes through (the entry module included).
``returns``
    steps that enter a module the path had already entered and since left (every step leaves
    the module it comes from, so this is each step into a module seen before on the path).

Module bodies run by imports (``<module>`` code) are not steps. Each command runs once unprofiled
first (a search, a retraction of another memory), so imports are done and the caches (search
index, catalog, revision marks) are current, as for a command run in a repository in use; the
second run is the one measured.

    .venv/bin/python bench/call_path.py [--memories 40] [--path] [--by module|layer]

``--by layer`` counts the same way with the layers (``memfs.store``, ``memfs.ops``, ``memfs.api``...)
as the places a path passes through instead of modules: whether a verb goes down through the
layers or keeps coming back up to one it left. ``--by seam`` counts modules, but takes the cuts
issue #24 itself asked for back into the one module each came from (see ``_SEAMS``): what the
path costs apart from those cuts.

Run it with ``PYTHONPATH`` set to another checkout to measure that code (the figures in
``bench/README.md`` compare this branch with the code before issue #24).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import CodeType, FrameType
from typing import Any

from benchlib import commit_all

FRONTMATTER = "---\nid: {id}\ntype: fact\nscope: user:U5\nsource: tool:bench\nstatus: active\n{deps}---\n{body}\n"


@dataclass
class Trail:
    """What one command's profile saw: the modules entered, step by step."""

    modules: list[str] = field(default_factory=list)
    edges: set[tuple[CodeType, CodeType]] = field(default_factory=set)

    @property
    def steps(self) -> int:
        return len(self.modules) - 1

    @property
    def returns(self) -> int:
        return sum(1 for i, name in enumerate(self.modules) if name in self.modules[:i])


#: How many dotted parts of a module's name say where it is: 0 for the module itself; 2 for its
#: layer (``memfs.store.gitcli.status`` -> ``memfs.store``), with ``--by layer``.
_DEPTH = [0]
#: ``--by seam``: the modules issue #24 asked to cut, taken back as the one module each was before
#: it (the store's parts as ``store/repo.py``, ``gitcli``'s sections as ``store/gitcli.py``), and
#: the declaration machinery (``cli/derive.py``, ``format/declare.py``, ``ops/verbs/``) as one
#: place: the path as it would be counted had those cuts not made new modules.
_SEAMS = [False]
_ONE_MODULE_BEFORE = {
    **dict.fromkeys(("memfs.store.upkeep", "memfs.store.reading", "memfs.store.staging", "memfs.store.transaction"),
                    "memfs.store.repo"),
    **dict.fromkeys(("memfs.cli.derive", "memfs.format.declare"), "memfs.ops.verbs"),
}


def _seam(name: str) -> str:
    if name.startswith("memfs.store.gitcli."):
        return "memfs.store.gitcli"
    if name.startswith("memfs.ops.verbs."):
        return "memfs.ops.verbs"
    return _ONE_MODULE_BEFORE.get(name, name)


def _module(frame: FrameType) -> str | None:
    name = frame.f_globals.get("__name__")
    if not isinstance(name, str) or not (name == "memfs" or name.startswith("memfs.")):
        return None
    if _SEAMS[0]:
        return _seam(name)
    return ".".join(name.split(".")[: _DEPTH[0]]) if _DEPTH[0] else name


#: Code that is part of the function it is written in: comprehensions (their own code objects).
_INLINE = frozenset({"<listcomp>", "<dictcomp>", "<setcomp>", "<genexpr>"})


def _caller(frame: FrameType) -> FrameType | None:
    """The nearest memfs frame above ``frame`` that is a function (not an import's module body,
    not a comprehension: that is part of the function it is written in)."""
    up = frame.f_back
    while up is not None and (_module(up) is None or up.f_code.co_name == "<module>" or up.f_code.co_name in _INLINE):
        up = up.f_back
    return up


def follow(run: Callable[[], object]) -> Trail:
    """The call path of ``run()`` (see the module's docstring for what counts)."""
    found = Trail()

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        if event != "call" or frame.f_code.co_name == "<module>":
            return
        module = _module(frame)
        if module is None:
            return
        caller = _caller(frame)
        if caller is None:
            if not found.modules:
                found.modules.append(module)
            return
        if _module(caller) == module:
            return
        edge = (caller.f_code, frame.f_code)
        if edge not in found.edges:
            found.edges.add(edge)
            found.modules.append(module)

    sys.setprofile(profile)
    try:
        run()
    finally:
        sys.setprofile(None)
    return found


def cli(*args: str) -> None:
    """``memfs ARGS`` through the real entry point, in this process, its output swallowed."""
    from memfs.cli import main

    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        try:
            main(list(args))
        except SystemExit as exit:
            if exit.code not in (0, None):
                raise RuntimeError(f"memfs {' '.join(args)} exited with {exit.code}") from None


def build(root: Path, count: int) -> None:
    """A memory repository of ``count`` facts: two roots (``facts/root-a.md``, ``facts/root-b.md``),
    each with a short chain of memories derived from it, and unrelated facts about releases."""
    from memfs.api import MemoryRepo

    MemoryRepo.init(root)
    for name in ("a", "b"):
        parent = f"facts/root-{name}.md"
        (root / "facts").mkdir(exist_ok=True)
        parent_text = FRONTMATTER.format(id=f"facts/root-{name}", deps="", body=f"Root fact {name} of the release.")
        (root / parent).write_text(parent_text, encoding="utf-8")
        for depth in range(3):
            rel = f"derived/{name}-{depth}.md"
            (root / "derived").mkdir(exist_ok=True)
            deps = f"depends_on:\n- {parent}\n"
            text = FRONTMATTER.format(id=f"derived/{name}-{depth}", deps=deps, body=f"Derived {depth} from {name}.")
            (root / rel).write_text(text, encoding="utf-8")
            parent = rel
    for i in range(count):
        body = f"Release {i} ships on day {i % 7}; the deploy freeze starts after it."
        (root / f"notes/n{i:03}.md").parent.mkdir(exist_ok=True)
        (root / f"notes/n{i:03}.md").write_text(FRONTMATTER.format(id=f"notes/n{i:03}", deps="", body=body),
                                                encoding="utf-8")
    commit_all(root, "memories")


def measure(count: int) -> dict[str, Trail]:
    with tempfile.TemporaryDirectory(prefix="memfs-call-path-") as tmp:
        root = Path(tmp) / "repo"
        root.mkdir()
        os.environ.setdefault("MEMFS_ACTOR", "user:bench")
        os.environ["MEMFS_NO_LIVE"] = "1"
        build(root, count)
        cwd = os.getcwd()
        os.chdir(root)
        try:
            cli("search", "deploy freeze")
            search = follow(lambda: cli("search", "release deploy"))
            cli("retract", "facts/root-a.md", "--reason", "warm-up")
            retract = follow(lambda: cli("retract", "facts/root-b.md", "--reason", "the source was wrong"))
        finally:
            os.chdir(cwd)
    return {"search": search, "retract": retract}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--memories", type=int, default=40, help="unrelated facts besides the two chains")
    parser.add_argument("--path", action="store_true", help="also print each path, module by module")
    parser.add_argument("--by", choices=["module", "layer", "seam"], default="module",
                        help="what counts as a place on the path: a module, a layer (memfs.store, memfs.ops...), "
                             "or a module with #24's cuts taken back (see _SEAMS)")
    args = parser.parse_args()
    _DEPTH[0] = 2 if args.by == "layer" else 0
    _SEAMS[0] = args.by == "seam"
    import memfs

    print(f"memfs from {Path(memfs.__file__).parent}")
    for verb, found in measure(args.memories).items():
        places = {"module": "modules", "layer": "layers", "seam": "seams"}[args.by]
        print(f"{verb:8} steps {found.steps:4}  {places} {len(set(found.modules)):3}  returns {found.returns:4}")
        if args.path:
            print("    " + " > ".join(name.removeprefix("memfs.") for name in found.modules))


if __name__ == "__main__":
    main()
