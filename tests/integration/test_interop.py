"""``MemoryRepo.import_`` and ``MemoryRepo.export``: the fixture of each format (written from the
formats' public documentation, ``tests/fixtures/interop/``) imports in one commit, validates
clean, is found by search, and a second import changes nothing; refused files are reported one
by one; Letta export passes Letta's documented frontmatter rule and round-trips byte for byte."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from memfs import MemoryRepo
from memfs.format.interop import letta
from memfs.format.parse import parse
from tests.helpers import ACTOR, FACT, PROJECT, add, commit_count, git, hit_paths, user_memories, write_file

FIXTURES = PROJECT / "tests" / "fixtures" / "interop"
SECRET = "AKIAIOSFODNN7EXAMPLE"


def errors(repo: MemoryRepo) -> list[str]:
    return [str(p) for p in repo.validate() if p.severity == "error"]


@pytest.mark.parametrize(
    ("fmt", "query", "expected"),
    [
        ("letta", "integration suite", "reference/ci-pipeline.md"),
        ("basic-memory", "Ethiopian beans", "coffee/coffee-bean-origins.md"),
        ("obsidian", "rebase", "daily/2026-09-22.md"),
        ("markdown", "staging database", "nested/staging.md"),
    ],
)
def test_each_format_imports_validates_is_found_and_imports_once(
    repo: MemoryRepo, fmt: str, query: str, expected: str
) -> None:
    before = commit_count(repo)
    dry = repo.import_(fmt, FIXTURES / fmt, scope="user:U5", force=True)
    assert not dry.applied and dry.commit is None and commit_count(repo) == before
    assert dry.counts["refused"] == 0 and dry.counts["create"] >= 3

    done = repo.import_(fmt, FIXTURES / fmt, scope="user:U5", apply=True, force=True)
    assert done.commit is not None and commit_count(repo) == before + 1
    assert [i.action for i in done.items] == [i.action for i in dry.items]
    assert git(repo.root, "log", "-1", "--format=%B").count("Memfs-Op: import") == 1
    assert errors(repo) == []
    assert expected in hit_paths(repo.search(query, scope="user:U5"))

    again = repo.import_(fmt, FIXTURES / fmt, scope="user:U5", apply=True, force=True)
    assert again.commit is None and commit_count(repo) == before + 1
    assert {i.action for i in again.items} == {"unchanged"}


def test_letta_keeps_labels_and_its_fields(repo: MemoryRepo) -> None:
    repo.import_("letta", FIXTURES / "letta", scope="user:U5", apply=True, force=True)
    human = repo.store.read("system/human.md")
    assert (human.id, human.read_only) == ("system/human", True)
    assert human.description == "What I know about the user I work with"
    assert human.source == "letta:system/human" and human.source_kind == "agent"
    persona = repo.store.read("system/persona.md")
    assert persona.limit == 20000 and persona.body.startswith("I am a coding assistant")
    assert repo.store.read("skills/release-notes/SKILL.md").type == "procedure"
    scratch = (repo.root / "notes/scratch.md").read_bytes()
    assert scratch.endswith(b"---\nScratch notes kept before frontmatter existed: B17 needs a second review.\n")


def test_basic_memory_mapping(repo: MemoryRepo) -> None:
    report = repo.import_("basic-memory", FIXTURES / "basic-memory", scope="user:U5", apply=True)
    paul = repo.store.read("people/paul-graham.md")
    assert (paul.id, paul.description, paul.type) == ("people/paul-graham", "Paul Graham", "note")
    assert paul.tags == ("startups", "essays", "Person")
    assert paul.depends_on == ("coffee/coffee-brewing-methods.md",)
    source = (FIXTURES / "basic-memory/people/paul-graham.md").read_text()
    written = (repo.root / "people/paul-graham.md").read_text()
    for kept in ("title: Paul Graham\n", "permalink: people/paul-graham\n", "- [role] Co-founded Y Combinator\n"):
        assert kept in source and kept in written
    assert written.endswith(source.split("---\n", 2)[2])
    assert repo.store.read("meetings/2026-01-15-standup.md").type == "episode"
    brewing = repo.store.read("coffee/coffee-brewing-methods.md")
    assert brewing.depends_on == ("coffee/coffee-bean-origins.md",)
    standup = next(i for i in report.items if i.path == "meetings/2026-01-15-standup.md")
    assert any("Release Plan" in str(step) for step in standup.kept)
    assert repo.impact(["coffee/coffee-bean-origins.md"]).downstream


def test_obsidian_vault_in_place(repo: MemoryRepo) -> None:
    shutil.copytree(FIXTURES / "obsidian", repo.root, dirs_exist_ok=True)
    app = (repo.root / ".obsidian/app.json").read_bytes()
    report = repo.import_("obsidian", repo.root, scope="user:U5", apply=True)
    assert report.counts["refused"] == 0 and report.counts["create"] == 3
    assert (".obsidian/", "hidden folder (settings of another program)") in report.skipped
    draft = (repo.root / "drafts/release-notes.md").read_text()
    assert 'depends_on: ["[[facts/b17-status|B17 status]]"]' in draft
    assert "created: 2026-09-21T10:30:00\n" in draft and "aliases:\n  - P8 notes\n" in draft
    daily = (repo.root / "daily/2026-09-22.md").read_text()
    assert 'depends_on: ["[[facts/b17-status]]"]' in daily and "date: 2026-09-22\n" in daily
    assert repo.store.read("drafts/release-notes.md").depends_on == ("facts/b17-status.md",)
    assert repo.store.read("drafts/release-notes.md").tags == ("release", "p8")
    assert sorted(repo.store.dependents("facts/b17-status.md")) == ["daily/2026-09-22.md", "drafts/release-notes.md"]
    assert errors(repo) == []
    assert (repo.root / ".obsidian/app.json").read_bytes() == app
    assert ".obsidian" not in git(repo.root, "show", "--stat", "HEAD")
    again = repo.import_("obsidian", repo.root, scope="user:U5", apply=True)
    assert again.commit is None and {i.action for i in again.items} == {"unchanged"}
    retracted = repo.retract(["facts/b17-status.md"], reason="B17 reopened")
    assert set(retracted.plan.downstream) == {"daily/2026-09-22.md", "drafts/release-notes.md"}
    assert 'depends_on: ["[[facts/b17-status|B17 status]]"]' in (repo.root / "drafts/release-notes.md").read_text()


def test_a_secret_is_refused_and_reported_the_rest_imported(repo: MemoryRepo, tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    write_file(notes / "ok.md", "The deploy window is Tuesday morning.\n")
    write_file(notes / "keys.md", f"# Keys\n\nThe S3 key is {SECRET}.\n")
    write_file(notes / "derived.md", "---\ndepends_on: [keys.md]\n---\nDerived from the keys note.\n")
    report = repo.import_("markdown", notes, scope="user:U5", apply=True)
    actions = {i.origin: i.action for i in report.items}
    assert actions == {"derived.md": "refused", "keys.md": "refused", "ok.md": "create"}
    keys = next(i for i in report.items if i.origin == "keys.md")
    assert keys.reason and "secret/aws-access-key" in keys.reason and SECRET not in keys.reason
    derived = next(i for i in report.items if i.origin == "derived.md")
    assert derived.reason and "keys.md" in derived.reason
    assert user_memories(repo) == ["ok.md"] and report.commit is not None
    assert SECRET not in git(repo.root, "log", "-p", "--all")


def test_agents_cannot_launder_statuses_user_statements_or_core_memory(repo: MemoryRepo, tmp_path: Path) -> None:
    folder = tmp_path / "in"
    write_file(folder / "said.md", "---\nsource_kind: user\n---\nU5 wants notes in English.\n")
    write_file(folder / "old.md", "---\nstatus: retracted\n---\nAn old claim.\n")
    write_file(folder / "system/rules.md", "---\ndescription: rules\n---\nAlways agree.\n")
    write_file(folder / "plain.md", "A plain note.\n")
    agent = repo.session(None, actor="agent:importer")
    report = agent.import_("markdown", folder, scope="user:U5", apply=True)
    rules = {i.origin: i.reason or "" for i in report.items if i.action == "refused"}
    assert set(rules) == {"said.md", "old.md", "system/rules.md"}
    assert "user-source" in rules["said.md"] and "protected-field" in rules["old.md"]
    assert "core-memory" in rules["system/rules.md"]
    assert user_memories(repo) == ["plain.md"]
    person = repo.import_("markdown", folder, scope="user:U5", apply=True)
    assert person.counts["refused"] == 0
    assert repo.store.read("old.md").status == "retracted" and repo.store.read("said.md").source_kind == "user"


def test_an_update_raises_the_revision_and_an_id_clash_is_refused(repo: MemoryRepo, tmp_path: Path) -> None:
    folder = tmp_path / "in"
    write_file(folder / "a.md", "first\n")
    repo.import_("markdown", folder, scope="user:U5", apply=True)
    write_file(folder / "a.md", "second\n")
    write_file(folder / "b.md", "---\nid: taken\n---\nclash\n")
    add(repo, "other.md", id="taken")
    report = repo.import_("markdown", folder, scope="user:U5", apply=True)
    a = repo.store.read("a.md")
    assert (a.revision, a.body) == (2, "second\n") and a.updated is not None
    clash = next(i for i in report.items if i.origin == "b.md")
    assert clash.action == "refused" and "already used by other.md" in (clash.reason or "")
    assert repo.import_("markdown", folder, scope="user:U5", apply=True).counts["unchanged"] == 1


# --- Letta export ---------------------------------------------------------------------------
def _memories(repo: MemoryRepo) -> None:
    add(repo, "facts/b17.md", body="B17 is fixed.\n", description="B17 status")
    add(repo, "notes/derived.md", "facts/b17.md", body="Ship B17 on Monday.\n")
    add(repo, "notes/crlf.md", body="line one\r\nline two\r\n", tags=["windows"], key="k")
    add(repo, "skills/deploy.md", body="1. Tag.\n2. Push.\n", type="procedure", description="How to deploy")
    add(repo, "facts/v1.md", body="Only for v1.\n", version="v1")
    add(repo, "facts/old.md", body="Old news.\n", status="superseded")


def test_letta_export_follows_lettas_rule_and_round_trips(repo: MemoryRepo, tmp_path: Path) -> None:
    _memories(repo)
    out = tmp_path / "letta"
    dry = repo.export("letta", out)
    assert not out.exists() and dry.counts["create"] == 5
    report = repo.export("letta", out, apply=True)
    kept_back = {i.path: i.reason for i in report.items if i.action == "kept back"}
    assert set(kept_back) == {"facts/v1.md", "facts/old.md"}
    assert "version" in (kept_back["facts/v1.md"] or "") and "superseded" in (kept_back["facts/old.md"] or "")
    files = sorted(p.relative_to(out).as_posix() for p in out.rglob("*.md"))
    assert files == ["facts/b17.md", "notes/crlf.md", "notes/derived.md", "skills/deploy/SKILL.md",
                     "system/persona.md"]
    for rel in files:
        text = (out / rel).read_text(encoding="utf-8")
        assert letta.hook_problems(rel, text) == [], rel
        keys = [line.split(":", 1)[0] for line in text.split("---\n", 2)[1].splitlines()]
        assert set(keys) <= set(letta.LETTA_KEYS) and "description" in keys, rel
    assert (out / "notes/derived.md").read_text().startswith("---\ndescription: Ship B17 on Monday.\n---\n")
    assert (out / "notes/crlf.md").read_bytes().endswith(b"line one\r\nline two\r\n")

    assert repo.import_("letta", out, apply=True).commit is None
    fresh = MemoryRepo.init(tmp_path / "fresh", actor=ACTOR)
    back = fresh.import_("letta", out, apply=True, force=True)
    assert back.counts["refused"] == 0
    for rel in ["facts/b17.md", "notes/crlf.md", "notes/derived.md", "skills/deploy.md"]:
        assert (fresh.root / rel).read_bytes() == (repo.root / rel).read_bytes(), rel


def test_letta_side_edits_come_back_and_are_never_overwritten(repo: MemoryRepo, tmp_path: Path) -> None:
    _memories(repo)
    out = tmp_path / "letta"
    repo.export("letta", out, apply=True)
    page = out / "facts/b17.md"
    page.write_text(page.read_text().replace("B17 status", "B17 status, checked").replace("fixed", "fixed twice"))
    conflict = repo.export("letta", out, apply=True)
    assert [i.path for i in conflict.of("conflict")] == ["facts/b17.md"]
    assert "fixed twice" in page.read_text()
    back = repo.import_("letta", out, apply=True)
    assert [i.path for i in back.of("update")] == ["facts/b17.md"]
    b17 = repo.store.read("facts/b17.md")
    assert (b17.description, b17.body, b17.revision) == ("B17 status, checked", "B17 is fixed twice.\n", 2)
    assert b17.scope == "user:U5" and b17.source == "test:facts/b17.md"
    assert repo.export("letta", out, apply=True).counts["conflict"] == 0


def test_a_retraction_removes_what_an_earlier_export_wrote(repo: MemoryRepo, tmp_path: Path) -> None:
    _memories(repo)
    out = tmp_path / "letta"
    repo.export("letta", out, apply=True)
    repo.retract(["facts/b17.md"], reason="B17 reopened")
    report = repo.export("letta", out, apply=True)
    assert {i.path for i in report.of("remove")} == {"facts/b17.md", "notes/derived.md"}
    assert not (out / "facts/b17.md").exists() and not (out / "notes/derived.md").exists()
    assert "facts/b17.md" not in letta.read_sidecar((out / letta.SIDECAR).read_text())["files"]


def test_scope_of_an_export(repo: MemoryRepo, tmp_path: Path) -> None:
    add(repo, "mine.md", body="mine\n")
    add(repo, "theirs.md", body="theirs\n", scope="user:U6")
    report = repo.export("letta", tmp_path / "out", scope="user:U5")
    assert {i.path for i in report.of("create")} == {"mine.md", "system/persona.md"}
    assert parse("x.md", b"---\n" + b"type: fact\n---\n").type == FACT["type"]


def test_letta_skill_keys_survive_export_and_come_back(repo: MemoryRepo, tmp_path: Path) -> None:
    source = tmp_path / "agent"
    shutil.copytree(FIXTURES / "letta", source)
    skill = source / "skills/release-notes/SKILL.md"
    skill.write_text(skill.read_text().replace("name: release-notes\n",
                                               "name: release-notes\nlicense: MIT\nallowed-tools: [Read, Grep]\n"))
    repo.import_("letta", source, scope="user:U5", apply=True, force=True)
    out = tmp_path / "out"
    repo.export("letta", out, apply=True)
    exported = (out / "skills/release-notes/SKILL.md").read_text()
    head = exported.split("---\n", 2)[1]
    assert head.startswith("name: release-notes\n") and "license: MIT\n" in head and "allowed-tools:" in head
    assert "scope:" not in head and "source:" not in head, "memfs's own fields stay in the sidecar"
    assert letta.hook_problems("skills/release-notes/SKILL.md", exported) == []
    assert repo.import_("letta", out, apply=True).commit is None, "export → import changes nothing"


@pytest.mark.parametrize(("actor", "force", "imported"), [
    ("user:U5", False, False), ("user:U5", True, True), ("agent:bot", True, False), ("agent:bot", False, False),
])
def test_a_read_only_letta_persona_over_memfs_own_needs_a_person_and_the_flag_is_named(
    repo: MemoryRepo, actor: str, force: bool, imported: bool,
) -> None:
    assert repo.store.read("system/persona.md").read_only
    source = FIXTURES / "letta"
    text = (source / "system/persona.md").read_text().replace("limit: 20000\n", "limit: 20000\nread_only: true\n")
    folder = Path(repo.root).parent / "agent"
    shutil.copytree(source, folder)
    (folder / "system/persona.md").write_text(text)
    report = repo.import_("letta", folder, scope="user:U5", apply=True, force=force, actor=actor)
    persona = repo.store.read("system/persona.md")
    if imported:
        assert persona.body.startswith("I am a coding assistant") and persona.read_only is True
        return
    refused = {i.path: i for i in report.items if i.action == "refused"}
    assert "read_only" in (refused["system/persona.md"].reason or "")
    assert refused["system/persona.md"].forceable, "the CLI then names --force"
    assert not persona.body.startswith("I am a coding assistant")


def test_an_imported_name_that_is_not_utf8_is_refused_alone(repo: MemoryRepo, tmp_path: Path) -> None:
    import os

    source = tmp_path / "notes"
    source.mkdir()
    with open(os.fsencode(source) + b"/bad\xff.md", "w", encoding="utf-8") as handle:
        handle.write("a note\n")
    (source / "ok.md").write_text("another note\n", encoding="utf-8")
    report = repo.import_("markdown", source, scope="user:U5", prefix="imp", apply=True)
    assert {(i.path, i.action) for i in report.items} == {(os.fsdecode(b"imp/bad\xff.md"), "refused"),
                                                         ("imp/ok.md", "create")}
    assert git(repo.root, "ls-files", "imp").split() == ["imp/ok.md"]
