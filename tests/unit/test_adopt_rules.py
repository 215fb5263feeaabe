"""Plain notes adopted in place: the ``[adopt]`` settings and the conversion (pure)."""

from __future__ import annotations

import frontmatter
import pytest

from memfs.errors import InvalidConfig
from memfs.format.config import AdoptRule, parse_config
from memfs.format.interop.adopt import NO_SCOPE_FIX, adopt_note, is_plain, writer_kind
from memfs.format.parse import parse

CONFIG = """
[adopt]
scope = "user:maria"
[adopt.folders."Work"]
scope = "team:platform"
type = "fact"
[adopt.folders."Work/Org"]
scope = "org:acme"
source = "obsidian:vault"
"""


@pytest.mark.parametrize(("rel", "expected"), [
    ("note.md", AdoptRule("user:maria")),
    ("Work/a.md", AdoptRule("team:platform", "fact")),
    ("Work/Org/deep/a.md", AdoptRule("org:acme", "fact", "obsidian:vault")),
    ("Workshop/a.md", AdoptRule("user:maria")),
])
def test_the_deepest_folder_wins_over_its_parents(rel: str, expected: AdoptRule):
    assert parse_config(CONFIG).adopt.rule_for(rel) == expected


@pytest.mark.parametrize(("text", "names"), [
    ('[adopt]\nscope = "user:a b"\n', "[adopt] scope"),
    ('[adopt]\ntype = "rumour"\n', "[adopt] type"),
    ('[adopt]\nsource_kind = "oracle"\n', "[adopt] source_kind"),
    ('[adopt]\nsource = ""\n', "[adopt] source"),
    ('[adopt]\nscope = 5\n', "[adopt] scope"),
    ('[adopt]\nfolders = 3\n', "[adopt.folders]"),
    ('[adopt.folders]\nWork = "team:x"\n', '[adopt.folders."Work"]'),
    ('[adopt.folders."../up"]\nscope = "user:x"\n', '[adopt.folders."../up"]'),
])
def test_a_wrong_setting_is_named(text: str, names: str):
    with pytest.raises(InvalidConfig) as caught:
        parse_config(text)
    assert names in str(caught.value)


@pytest.mark.parametrize(("data", "plain"), [
    (b"Kai works in Berlin.\n", True),
    (b"", True),
    (b"# Title\n---\n", True),
    (b"---\ntype: note\n---\nbody\n", False),
    (b"---\r\ntype: note\r\n---\r\n", False),
    ("\ufeff---\ntype: note\n---\n".encode(), False),
    (b"--- \n", False),
])
def test_plain_means_no_frontmatter_fence_on_the_first_line(data: bytes, plain: bool):
    assert is_plain(data) is plain


@pytest.mark.parametrize(("actor", "kind"), [
    ("user:maria", "user"), ("agent:bot", "agent"), ("tool:ci", "tool"), ("host:x", "document"), ("maria", "document"),
])
def test_the_writer_decides_the_source_kind(actor: str, kind: str):
    assert writer_kind(actor) == kind


@pytest.mark.parametrize("body", [
    b"Kai works in Berlin.\n",
    b"Line one\r\nline two\r\n",
    "\ufeffMit BOM und Umlauten: \u00e4\u00f6\u00fc\n".encode(),
    b"no newline at the end",
    b"# Heading\n\n---\n\nafter a rule\n",
])
def test_the_text_is_kept_and_python_frontmatter_reads_the_fields(body: bytes):
    adopted = adopt_note(parse_config(CONFIG).adopt, "Work/kai.md", body, "agent:bot")
    assert adopted.content is not None and adopted.problem is None
    memory = parse("Work/kai.md", adopted.content)
    assert [p for p in memory.problems if p.severity == "error"] == []
    assert (memory.scope, memory.type, memory.source_kind) == ("team:platform", "fact", "agent")
    post = frontmatter.loads(adopted.content.decode("utf-8"))
    assert post["scope"] == "team:platform" and post["source"] == "file:Work/kai.md"
    text = body.decode("utf-8").removeprefix("\ufeff")
    assert adopted.content.decode("utf-8").removeprefix("\ufeff").endswith(text)


def test_a_note_with_no_scope_to_derive_is_not_adopted():
    adopted = adopt_note(parse_config("").adopt, "note.md", b"text\n", "user:maria")
    assert adopted.content is None and adopted.problem
    assert "[adopt] scope" in NO_SCOPE_FIX


def test_system_notes_need_no_scope_and_settings_beat_the_writer():
    config = parse_config('[adopt]\nsource_kind = "document"\n').adopt
    adopted = adopt_note(config, "system/persona.md", b"I am terse.\n", "agent:bot")
    assert adopted.content is not None
    memory = parse("system/persona.md", adopted.content)
    assert memory.scope is None and memory.source_kind == "document"
