"""The docs hold together: the README stays an overview, every link between the pages lands on a
file and a heading that exist, none leaves the repository, and docs/design.md's module map names
exactly the modules under memfs/."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from tests.helpers import PROJECT
from tests.markdown import anchors, prose

PAGES = [PROJECT / "README.md", PROJECT / "bench" / "README.md", *sorted((PROJECT / "docs").glob("*.md"))]
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")


def test_the_readme_is_an_overview_of_at_most_300_lines() -> None:
    lines = (PROJECT / "README.md").read_text(encoding="utf-8").count("\n")
    assert lines <= 300, f"README.md has {lines} lines; move detail into the guides under docs/"


def links(page: Path) -> Iterator[str]:
    for line in prose(page.read_text(encoding="utf-8")):
        for target in LINK.findall(re.sub(r"`[^`]*`", "", line)):
            if not re.match(r"[a-z]+:", target):
                yield target


def test_every_link_between_the_docs_lands() -> None:
    broken = []
    for page in PAGES:
        for target in links(page):
            path, _, anchor = target.partition("#")
            goal = (page.parent / path).resolve() if path else page
            where = f"{page.relative_to(PROJECT)}: {target}"
            if not goal.is_relative_to(PROJECT):
                broken.append(f"{where} leaves the repository")
            elif not goal.exists():
                broken.append(f"{where}: no such file")
            elif anchor and goal.suffix == ".md" and anchor not in anchors(goal):
                broken.append(f"{where}: no heading with that anchor in {goal.relative_to(PROJECT)}")
    assert not broken, "\n".join(broken)


def test_the_docs_never_send_readers_outside_the_repository() -> None:
    for page in [PROJECT / "README.md", *sorted((PROJECT / "docs").glob("*.md"))]:
        text = page.read_text(encoding="utf-8")
        assert "../shared" not in text and "/work/" not in text, page


MAP_ROW = re.compile(r"^\| `(memfs/[\w/]+\.py)` \| (.*\S) \|$", re.M)


def test_the_module_map_names_exactly_the_modules_under_memfs() -> None:
    text = (PROJECT / "docs" / "design.md").read_text(encoding="utf-8")
    rows = MAP_ROW.findall(text)
    mapped = [module for module, _ in rows]
    tree = {path.relative_to(PROJECT).as_posix() for path in (PROJECT / "memfs").rglob("*.py")}
    missing, extra = sorted(tree - set(mapped)), sorted(set(mapped) - tree)
    twice = sorted({module for module in mapped if mapped.count(module) > 1})
    assert not (missing or extra or twice), (
        "docs/design.md's module map (rows `| `memfs/x/y.py` | job |`) does not match the tree:\n"
        f"missing from the map: {missing}\nin the map but not in the tree: {extra}\nlisted twice: {twice}")
    assert all(job.strip() and "|" not in job for _, job in rows)
