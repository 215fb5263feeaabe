"""The pure mappings of ``memfs import``/``export``: wikilinks, types and tags, notes without
frontmatter, Letta's frontmatter rule and the Letta export's sidecar round trip."""

from __future__ import annotations

import pytest

from memfs.format import wikilinks
from memfs.format.interop import basic_memory, letta, markdown, obsidian
from memfs.format.interop.common import Defaults, SourceFile, map_type, tags_of
from memfs.format.parse import parse

VAULT = ["facts/b17-status.md", "notes/b17-status.md", "deep/er/b17-status.md", "drafts/notes.md", "Top.md"]


@pytest.mark.parametrize(
    ("link", "from_path", "expected"),
    [
        ("facts/b17-status", "drafts/notes.md", "facts/b17-status.md"),
        ("b17-status", "drafts/notes.md", "facts/b17-status.md"),
        ("b17-status", "deep/er/x.md", "deep/er/b17-status.md"),
        ("top", "drafts/notes.md", "Top.md"),
        ("Top.md", "drafts/notes.md", "Top.md"),
        ("missing", "drafts/notes.md", None),
    ],
)
def test_obsidian_link_resolution(link: str, from_path: str, expected: str | None) -> None:
    assert wikilinks.resolve(link, from_path, VAULT) == expected


def test_wikilinks_in_depends_on_are_read_as_paths() -> None:
    assert wikilinks.target("[[facts/b17|B17 status]]") == "facts/b17"
    assert wikilinks.target("[[facts/b17#History]]") == "facts/b17"
    assert wikilinks.target("facts/b17.md") is None
    assert wikilinks.rewrite("[[b17|B17]]", "facts/b17") == "[[facts/b17|B17]]"
    text = '---\ntype: fact\nscope: user:U5\nsource: s\nstatus: active\ndepends_on: ["[[facts/b17|B17]]", x.md]\n---\n'
    assert parse("n.md", text.encode()).depends_on == ("facts/b17.md", "x.md")


def test_types_and_tags() -> None:
    assert map_type("Person", "note") == ("note", "Person")
    assert map_type("Meeting", "note") == ("episode", "Meeting")
    assert map_type("Fact", "note") == ("fact", None)
    assert map_type(None, "fact") == ("fact", None)
    assert tags_of("#release, #p8") == ["release", "p8"]
    assert tags_of("a b") == ["a", "b"]
    assert tags_of([2024, "x", "x"]) == ["2024", "x"]
    assert tags_of([]) is None


def test_a_note_without_frontmatter_gets_one_in_its_own_line_endings_after_its_bom() -> None:
    data = "\ufeff# Title\r\n\r\nText.\r\n".encode()
    [done] = markdown.convert([SourceFile("a.md", data)], Defaults(scope="user:U5"))
    assert done.content is not None
    assert done.content.startswith("\ufeff---\r\ntype: note\r\nscope: user:U5\r\n".encode())
    assert done.content.endswith(b"---\r\n# Title\r\n\r\nText.\r\n")
    memory = parse("a.md", done.content)
    assert (memory.status, memory.source, memory.source_kind) == ("active", "file:a.md", "document")


def test_values_memfs_would_not_read_are_mapped_and_kept_as_tags() -> None:
    data = b"---\ntype: Recipe\nstatus: draft\nsource_kind: human\ntags: a\n---\nx\n"
    [done] = markdown.convert([SourceFile("a.md", data)], Defaults(scope="user:U5"))
    assert done.content is not None
    memory = parse("a.md", done.content)
    assert (memory.type, memory.status, memory.source_kind) == ("procedure", "active", "document")
    assert memory.tags == ("a", "Recipe", "draft", "human")
    assert not memory.errors


def test_basic_memory_relations_only_derivations_and_only_to_known_notes() -> None:
    files = [
        SourceFile("a.md", b"---\ntitle: A\npermalink: a-note\n---\n- derived from [[B]]\n- relates_to [[B]]\n"
                           b"- based_on [[Nowhere]]\n- [fact] an observation #x\n"),
        SourceFile("sub/b.md", b"---\ntitle: B\n---\nbody\n"),
        SourceFile("c.md", b"---\npermalink: a-note\n---\nsame permalink\n"),
    ]
    out = {c.origin: c for c in basic_memory.convert(files, Defaults(scope="user:U5", prefix="bm"))}
    assert out["a.md"].content is not None
    a = parse("bm/a.md", out["a.md"].content)
    assert (a.id, a.description, a.depends_on) == ("a-note", "A", ("bm/sub/b.md",))
    assert out["c.md"].content is None and "also the permalink of a.md" in (out["c.md"].problem or "")


def test_obsidian_links_to_no_note_are_not_imported() -> None:
    [done] = obsidian.convert([SourceFile("a.md", b'---\ndepends_on: ["[[gone]]"]\n---\nx\n')], Defaults(scope="s:1"))
    assert done.content is None and done.problem == "depends_on [[gone]]: no such note in the vault"


@pytest.mark.parametrize(
    ("rel", "text", "problems"),
    [
        ("system/a.md", "---\ndescription: ok\nlimit: 10\nread_only: true\n---\nx\n", []),
        ("system/a.md", "---\ndescription: ok\ntype: note\n---\nx\n", ["unknown frontmatter key 'type'"]),
        ("system/a.md", "no frontmatter\n", ["missing frontmatter"]),
        ("system/a.md", "---\ndescription:\n---\n", ["'description' must not be empty"]),
        ("reference/a.md", "---\nlimit: 1\n---\n", ["missing required field 'description'"]),
        ("skills/x.md", "---\ndescription: d\n---\n", ["invalid skill path"]),
        ("notes/a.md", "---\ntype: note\n---\n", []),
    ],
)
def test_lettas_documented_hook_rule(rel: str, text: str, problems: list[str]) -> None:
    found = letta.hook_problems(rel, text)
    assert len(found) == len(problems)
    for got, want in zip(found, problems, strict=True):
        assert got.startswith(want)


def test_letta_export_then_import_gives_every_byte_back() -> None:
    original = (
        "\ufeff---\r\nid: k\r\ntype: fact\r\nscope: user:U5\r\nsource: s # where\r\nstatus: active\r\n---\r\n"
        "# Head\r\nbody\r\n"
    )
    exported = letta.export_file("skills/k.md", original.encode())
    assert exported.path == "skills/k/SKILL.md" and exported.generated_description
    assert exported.content == b"---\ndescription: Head\n---\n# Head\r\nbody\r\n"
    sidecar = letta.read_sidecar(letta.sidecar_text({exported.path: exported.entry}))
    [back] = letta.convert([SourceFile(exported.path, exported.content)], Defaults(), sidecar)
    assert back.path == "skills/k.md" and back.content == original.encode()
    edited = exported.content.replace(b"description: Head", b"description: Better").replace(b"body", b"new body")
    [changed] = letta.convert([SourceFile(exported.path, edited)], Defaults(), sidecar)
    assert changed.content == original.replace("status: active\r\n", "status: active\r\ndescription: Better\r\n") \
        .replace("body", "new body").encode()


def test_the_guard_lets_a_persons_import_own_protected_fields_but_not_an_agents() -> None:
    from memfs.policy import guard

    retracted_by_user = "---\ntype: fact\nscope: user:U5\nsource: s\nsource_kind: user\nstatus: retracted\n---\nx\n"
    change = guard.describe("facts/a.md", None, retracted_by_user)
    assert guard.check(change, guard.Access("user:ana", "import")) == []
    rules = {r.rule for r in guard.check(change, guard.Access("agent:bot", "import"))}
    assert rules == {"protected-field", "user-source"}
    core = guard.describe("system/a.md", None, "---\ndescription: d\n---\nx\n")
    assert [r.rule for r in guard.check(core, guard.Access("agent:bot", "import"))] == ["core-memory"]
    secret = guard.describe("facts/b.md", None, retracted_by_user + "AKIAIOSFODNN7EXAMPLE\n")
    assert [r.rule for r in guard.check(secret, guard.Access("user:U5", "import", force=True))] == [
        "secret/aws-access-key"]
