"""Lineage and retraction on real repositories: retract, revert, reinstate, impact, recall."""

from __future__ import annotations

import pytest

from memfs import MemoryRepo, index
from memfs.errors import InvalidMemory, MemfsError
from memfs.ops.retract import graph_view, impact, reinstate, retract, review_queue
from memfs.policy import lineage
from memfs.store.history import log, revert
from tests.helpers import ACTOR, add, commit_all, git, write_file


def status(repo: MemoryRepo, path: str) -> str | None:
    return repo.store.read(path).status


# --- retract on a real repository --------------------------------------------------------------
def test_chain_retract_flags_exactly_downstream(chain: MemoryRepo) -> None:
    result = retract(chain.store, ["facts/source.md"], reason="the source was wrong")
    assert result.commit
    assert status(chain, "facts/source.md") == "retracted"
    flagged = ["answers/cached.md", "index/entry.md", "notes/note.md"]
    for path in flagged:
        memory = chain.store.read(path)
        assert memory.status == "needs_review"
        (record,) = lineage.invalidations(memory)
        assert (record.root, record.reason, record.actor) == ("facts/source.md", "the source was wrong", ACTOR)
        assert record.at is not None
    assert status(chain, "notes/unrelated.md") == "active"
    (entry,) = log(chain.store, op="retract")
    assert entry.subject == "memfs: retract facts/source.md (+3 downstream)"
    assert entry.reason == "the source was wrong"
    assert entry.trailers["Memfs-Root"] == ["facts/source.md"]
    assert sorted(entry.paths) == sorted([*flagged, "facts/source.md"])
    assert chain.validate() == [] or all(p.severity != "error" for p in chain.validate())


def test_retract_again_is_a_noop(chain: MemoryRepo) -> None:
    retract(chain.store, ["facts/source.md"], reason="wrong")
    head = chain.store.git.head()
    again = retract(chain.store, ["facts/source.md"], reason="wrong")
    assert again.commit is None and chain.store.git.head() == head
    add(chain, "notes/late.md", "notes/note.md")  # derived from a flagged memory after the retraction
    later = retract(chain.store, ["facts/source.md"], reason="wrong")
    assert later.plan.flagged == ("notes/late.md",)
    assert status(chain, "notes/late.md") == "needs_review"


def test_cycle_and_diamond(repo: MemoryRepo) -> None:
    add(repo, "facts/root.md")
    add(repo, "notes/a.md", "facts/root.md")
    add(repo, "notes/b.md", "facts/root.md")
    add(repo, "notes/d.md", "notes/a.md", "notes/b.md")  # diamond
    add(repo, "notes/c2.md")
    add(repo, "notes/c1.md", "notes/d.md", "notes/c2.md")  # cycle c1 <-> c2
    repo.write("notes/c2.md", fields={"depends_on": ["notes/c1.md"]})
    add(repo, "notes/back.md", "notes/c2.md")
    repo.write("facts/root.md", fields={"depends_on": ["notes/back.md"]})  # a cycle through the root
    result = retract(repo.store, ["facts/root.md"], reason="bad")
    expected = ("notes/a.md", "notes/b.md", "notes/back.md", "notes/c1.md", "notes/c2.md", "notes/d.md")
    assert result.plan.flagged == expected
    assert status(repo, "facts/root.md") == "retracted"
    assert len(lineage.invalidations(repo.store.read("notes/d.md"))) == 1  # flagged once
    assert log(repo.store, op="retract")[0].subject.endswith("(+6 downstream)")


def test_two_roots_and_a_second_retraction(repo: MemoryRepo) -> None:
    add(repo, "facts/a.md")
    add(repo, "facts/b.md")
    add(repo, "notes/both.md", "facts/a.md", "facts/b.md")
    add(repo, "notes/onlyb.md", "facts/b.md", "facts/a.md")
    retract(repo.store, ["facts/a.md"], reason="a wrong")
    result = retract(repo.store, ["facts/b.md"], reason="b wrong")
    assert result.plan.recorded == ("notes/both.md", "notes/onlyb.md")
    roots = [r.root for r in lineage.invalidations(repo.store.read("notes/both.md"))]
    assert roots == ["facts/a.md", "facts/b.md"]
    groups = {g.root: [i.path for i in g.items] for g in review_queue(repo.store)}
    both = ["notes/both.md", "notes/onlyb.md"]
    assert groups == {"facts/a.md": both, "facts/b.md": both}


def test_revert_restores_bytes_exactly(chain: MemoryRepo) -> None:
    files = ["facts/source.md", "notes/note.md", "index/entry.md", "answers/cached.md", "notes/unrelated.md"]
    before = {f: chain.store.read_bytes(f) for f in files}
    result = retract(chain.store, ["facts/source.md"], reason="wrong")
    revert(chain.store, result.commit)  # memfs revert: the same bytes as a new revision (1 -> 2 -> 3)
    renumbered = {f: (b.replace(b"\nrevision: 1\n", b"\nrevision: 3\n") if f != files[-1] else b)
                  for f, b in before.items()}
    assert {f: chain.store.read_bytes(f) for f in files} == renumbered
    result = retract(chain.store, ["facts/source.md"], reason="wrong again")
    git(chain.root, "revert", "--no-edit", result.commit)  # plain git restores the bytes exactly
    assert {f: chain.store.read_bytes(f) for f in files} == renumbered


def test_unknown_keys_and_formatting_survive(repo: MemoryRepo) -> None:
    add(repo, "facts/src.md")
    text = (
        "---\n"
        "id: derived   # keep this comment\n"
        "type: note\n"
        "scope: user:U1\n"
        "source: 'test:derived'\n"
        "ticket: B17\n"
        "custom:\n"
        "  nested: [1, 2]\n"
        "depends_on:\n"
        "  - facts/src.md\n"
        "status: active\n"
        "tags: [x, y]\n"
        "---\n"
        "Body with trailing spaces   \n\n---\nmore\n"
    )
    write_file(repo.root / "notes/derived.md", text)
    commit_all(repo.root, "hand-written")
    retract(repo.store, ["facts/src.md"], reason="wrong")
    after = (repo.root / "notes/derived.md").read_text()
    memory = repo.store.read("notes/derived.md")
    assert memory.meta["ticket"] == "B17" and memory.meta["custom"] == {"nested": [1, 2]}
    assert "id: derived   # keep this comment\n" in after and "source: 'test:derived'\n" in after
    assert "depends_on:\n  - facts/src.md\n" in after and "status: needs_review\n" in after
    assert after.endswith("---\nBody with trailing spaces   \n\n---\nmore\n")


def test_independent_parents_reinstate(repo: MemoryRepo) -> None:
    add(repo, "facts/p1.md")
    add(repo, "facts/p2.md")
    add(repo, "notes/x.md", "facts/p1.md", "facts/p2.md")
    add(repo, "notes/y.md", "notes/x.md")
    retract(repo.store, ["facts/p1.md"], reason="p1 wrong")
    assert status(repo, "notes/x.md") == "needs_review"
    # y depends only on x, which is still invalidated
    with pytest.raises(MemfsError, match="no independent active source"):
        reinstate(repo.store, "notes/y.md", reason="looked at it")
    result = reinstate(repo.store, "notes/x.md", reason="p2 still supports it")
    assert result.commit and result.eligibility.basis == ("facts/p2.md",)
    x = repo.store.read("notes/x.md")
    assert x.status == "active" and "invalidated_by" not in x.meta
    assert x.meta["reinstated"]["basis"] == ["facts/p2.md"] and x.meta["reinstated"]["roots"] == ["facts/p1.md"]
    entry = log(repo.store, op="reinstate")[0]
    assert entry.trailers["Memfs-Basis"] == ["facts/p2.md"] and entry.reason == "p2 still supports it"
    # once x was reviewed and cleared, y's parent counts as independent
    assert reinstate(repo.store, "notes/y.md", reason="x holds").eligibility.basis == ("notes/x.md",)
    assert not [p for p in repo.validate() if p.severity == "error"]


def test_reinstate_refusals(chain: MemoryRepo) -> None:
    retract(chain.store, ["facts/source.md"], reason="wrong")
    head = chain.store.git.head()
    with pytest.raises(MemfsError, match=r"facts/source.md is retracted.*set source_primary: true"):
        reinstate(chain.store, "notes/note.md", reason="x")
    with pytest.raises(MemfsError, match="is retracted, not awaiting review"):
        reinstate(chain.store, "facts/source.md", reason="x")
    with pytest.raises(MemfsError, match="is active, not needs_review"):
        reinstate(chain.store, "notes/unrelated.md", reason="x")
    assert chain.store.git.head() == head
    chain.write("notes/note.md", fields={"source_primary": True})
    assert reinstate(chain.store, "notes/note.md", reason="checked first-hand").eligibility.basis == (
        "source:test:notes/note.md",
    )


def test_impact_is_a_dry_run_and_graph(chain: MemoryRepo) -> None:
    head = chain.store.git.head()
    plan = impact(chain.store, ["facts/source.md"])
    assert plan.downstream == ("answers/cached.md", "index/entry.md", "notes/note.md")
    assert chain.store.git.head() == head and status(chain, "notes/note.md") == "active"
    view = graph_view(chain.store, "index/entry.md")
    assert [n.path for n in view.upstream.walk()] == ["index/entry.md", "notes/note.md", "facts/source.md"]
    assert [n.path for n in view.downstream.walk()] == ["index/entry.md", "answers/cached.md"]
    assert '"notes/note.md" -> "index/entry.md"' in view.dot()


def test_broken_dependent_blocks_retraction(chain: MemoryRepo) -> None:
    write_file(chain.root / "notes/broken.md", "---\ndepends_on: [facts/source.md\n---\nbody\n")
    head = chain.store.git.head()
    with pytest.raises(InvalidMemory, match=r"notes/broken\.md: cannot be parsed"):
        retract(chain.store, ["facts/source.md"], reason="wrong")
    assert chain.store.git.head() == head and status(chain, "facts/source.md") == "active"


def test_validation_of_records(repo: MemoryRepo) -> None:
    write_file(
        repo.root / "notes/bad.md",
        "---\nid: bad\ntype: note\nscope: user:U1\nsource: s\nstatus: needs_review\nsource_primary: yes please\n"
        "invalidated_by: [{reason: r}]\nreinstated: {at: yesterday}\n---\nb\n",
    )
    found = {(p.field, p.severity) for p in repo.validate() if p.path == "notes/bad.md"}
    assert {("source_primary", "error"), ("invalidated_by", "error"), ("reinstated", "error")} <= found


# --- CLI ---------------------------------------------------------------------------------------


def test_unparseable_downstream_member_blocks_retraction(chain: MemoryRepo) -> None:
    write_file(chain.root / "notes/dup.md", "---\nid: a\nid: b\ndepends_on: [facts/source.md]\n---\nbody\n")
    head = chain.store.git.head()
    with pytest.raises(InvalidMemory, match=r"notes/dup\.md: is downstream of facts/source\.md but cannot be parsed"):
        retract(chain.store, ["facts/source.md"], reason="wrong")
    assert chain.store.git.head() == head and status(chain, "notes/note.md") == "active"


def test_recall_honours_retraction_and_revert(chain: MemoryRepo) -> None:
    for path in ("facts/source.md", "notes/note.md", "index/entry.md", "answers/cached.md", "notes/unrelated.md"):
        chain.write(path, body=f"{path} mentions zebracorn\n")

    def found() -> set[str]:
        return {h.memory.path for h in index.search(chain.store, "zebracorn", limit=10).hits}

    assert len(found()) == 5
    result = retract(chain.store, ["facts/source.md"], reason="wrong")
    assert found() == {"notes/unrelated.md"}
    revert(chain.store, result.commit)
    assert len(found()) == 5
