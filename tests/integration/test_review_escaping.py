"""The review comment quotes names and reasons people and agents chose: whatever they hold, the
Markdown shows them as written (no HTML, no broken code span) and the Mermaid diagram still
parses, with every label decoding back to its memory's path."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from memfs import MemoryRepo
from memfs.ops.branch_review import code, text
from tests.helpers import ACTOR, FACT, git, new_repo

ROOT = 'facts/a#quot;b`c<img src=x>"#35;.md'
DERIVED = "notes/``` &amp; <b>d</b>.md"
ADDED = "notes/`tick.md"
REASON = "<b>rolled</b> back `now`\n# not a heading <!-- hidden"
DESCRIPTION = "<script>alert(1)</script> *loud* [link](http://x) ~~gone~~ | cell"


def render(markdown: str) -> str:
    """HTML as a CommonMark renderer that passes raw HTML through (as GitHub's does before it
    sanitizes) would make of ``markdown``."""
    return MarkdownIt("commonmark", {"html": True}).enable(["strikethrough", "table"]).render(markdown)


@pytest.fixture
def hostile(tmp_path: Path) -> MemoryRepo:
    repo = new_repo(tmp_path / "mem")
    repo.write(ROOT, fields={**FACT, "description": "root"}, body="root\n")
    repo.write(DERIVED, fields={**FACT, "depends_on": [ROOT]}, body="derived\n")
    git(repo.root, "checkout", "-q", "-b", "review")
    repo.write(ADDED, fields={**FACT, "description": DESCRIPTION}, body="added\n")
    with repo.store.transaction("retract", reason=REASON) as tx:
        tx.write(ROOT, fields={"status": "retracted"})
        tx.write(DERIVED, fields={"status": "needs_review",
                                  "invalidated_by": [{"root": ROOT, "reason": REASON, "actor": ACTOR}]})
    return repo


def test_names_and_reasons_reach_the_comment_as_written(hostile: MemoryRepo) -> None:
    page = render(hostile.review("main", "review").render())
    assert not re.search(r"<(b|img|script|em|a|del|table)\b", page), page
    assert "<!--" not in page
    codes = {html.unescape(c) for c in re.findall(r"<code>(.*?)</code>", page)}
    assert {ROOT, DERIVED, ADDED} <= codes
    assert html.escape(" ".join(REASON.splitlines()), quote=False) in page
    assert html.escape(DESCRIPTION, quote=False) in page


def test_mermaid_labels_decode_to_the_paths(hostile: MemoryRepo) -> None:
    markdown = hostile.review("main", "review").render()
    diagram = markdown.split("```mermaid\n", 1)[1].split("\n```", 1)[0]
    assert "`" not in diagram
    nodes = [ln for ln in diagram.splitlines() if re.match(r"\s+n\d+\[", ln)]
    labels = [re.fullmatch(r'  n\d+\["([^"]*)"\]:::\w+', ln) for ln in nodes]
    assert all(labels), nodes
    decoded = [re.sub(r"#(\d+);", lambda m: chr(int(m.group(1))), lab.group(1)) for lab in labels if lab]
    assert decoded == [f"{ROOT}<br/>retracted", f"{DERIVED}<br/>flagged"]
    assert all(re.fullmatch(r"([^#]|#\d+;)*", lab.group(1)) for lab in labels if lab)


@pytest.mark.parametrize("value", ["a`b", "`", "``x``", " lead", "<b>x</b>", "two\nlines"])
def test_a_code_span_shows_its_text(value: str) -> None:
    shown = re.fullmatch(r"<p><code>(.*)</code></p>\n", render(code(value)), re.S)
    assert shown is not None and html.unescape(shown.group(1)) == " ".join(value.splitlines())


@pytest.mark.parametrize("value", ["*a* _b_", "[x](y)", "<i>x</i>", "&lt;", "a\\", "`c`", "~~s~~", "x\n- item"])
def test_text_is_literal(value: str) -> None:
    shown = re.fullmatch(r"<p>(.*)</p>\n", render("x " + text(value)), re.S)
    assert shown is not None and html.unescape(shown.group(1)) == "x " + " ".join(value.splitlines())
