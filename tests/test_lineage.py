"""Lineage and retraction: the closure policy, retract/revert/reinstate on real repos, the CLI."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memfs import MemoryRepo, index
from memfs.errors import InvalidMemory, MemfsError
from memfs.format.parse import parse, read_depends_on
from memfs.ops.retraction import graph_view, impact, reinstate, retract, review_queue
from memfs.policy import lineage
from memfs.policy.lineage import invalidation_closure, reinstate_basis
from memfs.store.history import log, revert
from tests.helpers import add, commit_all, git, run_cli, write_file


def status(repo: MemoryRepo, path: str) -> str | None:
    return repo.read(path).status


# --- pure policy -------------------------------------------------------------------------------
def test_closure_chain_cycle_diamond() -> None:
    rev = {"s": ["a"], "a": ["b", "c"], "b": ["d"], "c": ["d"], "d": ["a"], "x": ["y"]}
    assert invalidation_closure(["s"], rev) == {"a", "b", "c", "d"}
    assert invalidation_closure(["a"], rev) == {"b", "c", "d"}  # the cycle back to a keeps a a root
    assert invalidation_closure(["s"], rev, exclude={"b"}) == {"a", "c", "d"}
    assert invalidation_closure([], rev) == set()
    assert invalidation_closure(["nowhere"], rev) == set()


def test_reinstate_basis_rules() -> None:
    rev = {"R": ["S1", "S2", "X"], "S1": ["X"], "S2": ["X"], "Q": ["Y"]}
    status = {"R": "retracted", "S1": "needs_review", "S2": "active", "Q": "active"}
    # two summaries of the same root are not independent, even if one is (wrongly) active
    two = reinstate_basis("X", parents=["S1", "S2"], recorded_roots=["R"], status=status, reverse_edges=rev)
    assert not two.ok and "S2 is downstream of the retracted R" in two.why
    # a parent outside the invalidated set that is active is independent
    ok = reinstate_basis("Y", parents=["R", "Q"], recorded_roots=["R"], status=status, reverse_edges=rev)
    assert ok.ok and ok.basis == ("Q",)
    # a summary cleared by review counts
    cleared = reinstate_basis(
        "X", parents=["S2"], recorded_roots=["R"], status=status, reverse_edges=rev, cleared={"S2"}
    )
    assert cleared.ok and cleared.basis == ("S2",)
    # own primary source
    primary = reinstate_basis(
        "X", parents=["R"], recorded_roots=["R"], status=status, reverse_edges=rev, source_primary=True, source="doc:1"
    )
    assert primary.ok and primary.basis == ("source:doc:1",)
    # the retraction was undone: nothing left to review
    back = reinstate_basis("X", parents=["R"], recorded_roots=["R"], status={"R": "active"}, reverse_edges=rev)
    assert back.ok and back.basis == ("R",)
    undone = reinstate_basis(
        "X", parents=["S1"], recorded_roots=["R"], status={"R": "active", "S1": "needs_review"}, reverse_edges=rev
    )
    assert undone.ok and undone.basis == ("undone:R",)


def test_find_cycles() -> None:
    assert lineage.find_cycles({"a": ["b"], "b": ["c"], "c": ["a"], "d": ["a"]}) == [["a", "b", "c"]]
    assert lineage.find_cycles({"a": ["b"], "b": []}) == []


def test_tree_marks_repeats_and_cycles() -> None:
    edges = {"r": ["a", "b"], "a": ["d"], "b": ["d"], "d": ["r"]}
    root = lineage.tree("r", edges)
    flat = {(n.path, n.repeat, n.cycle) for n in root.walk()}
    assert ("d", False, False) in flat and ("d", True, False) in flat and ("r", False, True) in flat
    assert [n.path for n in root.walk() if not n.repeat and not n.cycle].count("d") == 1


nodes = st.sampled_from([f"n{i}" for i in range(12)])
graphs = st.dictionaries(nodes, st.lists(nodes, max_size=4), max_size=12)


def reachable(roots: set[str], rev: dict[str, list[str]]) -> set[str]:
    """Oracle: fixpoint iteration (no queue, no visited set)."""
    found = set(roots)
    while True:
        more = {c for n in found for c in rev.get(n, [])} - found
        if not more:
            return found - set(roots)
        found |= more


@settings(max_examples=300, deadline=None)
@given(graphs, st.sets(nodes, max_size=3))
def test_closure_properties(rev: dict[str, list[str]], roots: set[str]) -> None:
    before = copy.deepcopy(rev), set(roots)
    result = invalidation_closure(roots, rev)
    assert (rev, roots) == before  # input not mutated
    assert result == reachable(roots, rev)  # exactly the downstream, independent branches untouched
    assert not result & roots
    affected = roots | result
    assert affected | invalidation_closure(affected, rev) == affected  # idempotent
    for node in result:  # every flagged node has a flagged or root parent
        assert any(node in rev.get(p, []) for p in affected)


@settings(max_examples=200, deadline=None)
@given(graphs, st.sets(nodes, max_size=3), st.sets(nodes, max_size=3))
def test_closure_is_monotone(rev: dict[str, list[str]], a: set[str], b: set[str]) -> None:
    small = a | invalidation_closure(a, rev)
    big = a | b | invalidation_closure(a | b, rev)
    assert small <= big


# --- retract on a real repository --------------------------------------------------------------
def test_chain_retract_flags_exactly_downstream(chain: MemoryRepo) -> None:
    result = retract(chain, ["facts/source.md"], reason="the source was wrong")
    assert result.commit
    assert status(chain, "facts/source.md") == "retracted"
    flagged = ["answers/cached.md", "index/entry.md", "notes/note.md"]
    for path in flagged:
        memory = chain.read(path)
        assert memory.status == "needs_review"
        (record,) = lineage.invalidations(memory)
        assert (record.root, record.reason, record.actor) == ("facts/source.md", "the source was wrong", "agent:test")
        assert record.at is not None
    assert status(chain, "notes/unrelated.md") == "active"
    (entry,) = log(chain, op="retract")
    assert entry.subject == "memfs: retract facts/source.md (+3 downstream)"
    assert entry.reason == "the source was wrong"
    assert entry.trailers["Memfs-Root"] == ["facts/source.md"]
    assert sorted(entry.paths) == sorted([*flagged, "facts/source.md"])
    assert chain.validate() == [] or all(p.severity != "error" for p in chain.validate())


def test_retract_again_is_a_noop(chain: MemoryRepo) -> None:
    retract(chain, ["facts/source.md"], reason="wrong")
    head = chain.git.head()
    again = retract(chain, ["facts/source.md"], reason="wrong")
    assert again.commit is None and chain.git.head() == head
    add(chain, "notes/late.md", "notes/note.md")  # derived from a flagged memory after the retraction
    later = retract(chain, ["facts/source.md"], reason="wrong")
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
    result = retract(repo, ["facts/root.md"], reason="bad")
    expected = ("notes/a.md", "notes/b.md", "notes/back.md", "notes/c1.md", "notes/c2.md", "notes/d.md")
    assert result.plan.flagged == expected
    assert status(repo, "facts/root.md") == "retracted"
    assert len(lineage.invalidations(repo.read("notes/d.md"))) == 1  # flagged once
    assert log(repo, op="retract")[0].subject.endswith("(+6 downstream)")


def test_two_roots_and_a_second_retraction(repo: MemoryRepo) -> None:
    add(repo, "facts/a.md")
    add(repo, "facts/b.md")
    add(repo, "notes/both.md", "facts/a.md", "facts/b.md")
    add(repo, "notes/onlyb.md", "facts/b.md", "facts/a.md")
    retract(repo, ["facts/a.md"], reason="a wrong")
    result = retract(repo, ["facts/b.md"], reason="b wrong")
    assert result.plan.recorded == ("notes/both.md", "notes/onlyb.md")
    roots = [r.root for r in lineage.invalidations(repo.read("notes/both.md"))]
    assert roots == ["facts/a.md", "facts/b.md"]
    groups = {g.root: [i.path for i in g.items] for g in review_queue(repo)}
    both = ["notes/both.md", "notes/onlyb.md"]
    assert groups == {"facts/a.md": both, "facts/b.md": both}


def test_revert_restores_bytes_exactly(chain: MemoryRepo) -> None:
    files = ["facts/source.md", "notes/note.md", "index/entry.md", "answers/cached.md", "notes/unrelated.md"]
    before = {f: chain.read_bytes(f) for f in files}
    result = retract(chain, ["facts/source.md"], reason="wrong")
    revert(chain, result.commit)
    assert {f: chain.read_bytes(f) for f in files} == before
    result = retract(chain, ["facts/source.md"], reason="wrong again")
    git(chain.root, "revert", "--no-edit", result.commit)  # plain git works the same
    assert {f: chain.read_bytes(f) for f in files} == before


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
    retract(repo, ["facts/src.md"], reason="wrong")
    after = (repo.root / "notes/derived.md").read_text()
    memory = repo.read("notes/derived.md")
    assert memory.meta["ticket"] == "B17" and memory.meta["custom"] == {"nested": [1, 2]}
    assert "id: derived   # keep this comment\n" in after and "source: 'test:derived'\n" in after
    assert "depends_on:\n  - facts/src.md\n" in after and "status: needs_review\n" in after
    assert after.endswith("---\nBody with trailing spaces   \n\n---\nmore\n")


def test_independent_parents_reinstate(repo: MemoryRepo) -> None:
    add(repo, "facts/p1.md")
    add(repo, "facts/p2.md")
    add(repo, "notes/x.md", "facts/p1.md", "facts/p2.md")
    add(repo, "notes/y.md", "notes/x.md")
    retract(repo, ["facts/p1.md"], reason="p1 wrong")
    assert status(repo, "notes/x.md") == "needs_review"
    # y depends only on x, which is still invalidated
    with pytest.raises(MemfsError, match="no independent active source"):
        reinstate(repo, "notes/y.md", reason="looked at it")
    result = reinstate(repo, "notes/x.md", reason="p2 still supports it")
    assert result.commit and result.eligibility.basis == ("facts/p2.md",)
    x = repo.read("notes/x.md")
    assert x.status == "active" and "invalidated_by" not in x.meta
    assert x.meta["reinstated"]["basis"] == ["facts/p2.md"] and x.meta["reinstated"]["roots"] == ["facts/p1.md"]
    entry = log(repo, op="reinstate")[0]
    assert entry.trailers["Memfs-Basis"] == ["facts/p2.md"] and entry.reason == "p2 still supports it"
    # once x was reviewed and cleared, y's parent counts as independent
    assert reinstate(repo, "notes/y.md", reason="x holds").eligibility.basis == ("notes/x.md",)
    assert not [p for p in repo.validate() if p.severity == "error"]


def test_reinstate_refusals(chain: MemoryRepo) -> None:
    retract(chain, ["facts/source.md"], reason="wrong")
    head = chain.git.head()
    with pytest.raises(MemfsError, match=r"facts/source.md is retracted.*set source_primary: true"):
        reinstate(chain, "notes/note.md", reason="x")
    with pytest.raises(MemfsError, match="is retracted, not awaiting review"):
        reinstate(chain, "facts/source.md", reason="x")
    with pytest.raises(MemfsError, match="is active, not needs_review"):
        reinstate(chain, "notes/unrelated.md", reason="x")
    assert chain.git.head() == head
    chain.write("notes/note.md", fields={"source_primary": True})
    assert reinstate(chain, "notes/note.md", reason="checked first-hand").eligibility.basis == (
        "source:test:notes/note.md",
    )


def test_impact_is_a_dry_run_and_graph(chain: MemoryRepo) -> None:
    head = chain.git.head()
    plan = impact(chain, ["facts/source.md"])
    assert plan.downstream == ("answers/cached.md", "index/entry.md", "notes/note.md")
    assert chain.git.head() == head and status(chain, "notes/note.md") == "active"
    view = graph_view(chain, "index/entry.md")
    assert [n.path for n in view.upstream.walk()] == ["index/entry.md", "notes/note.md", "facts/source.md"]
    assert [n.path for n in view.downstream.walk()] == ["index/entry.md", "answers/cached.md"]
    assert '"notes/note.md" -> "index/entry.md"' in view.dot()


def test_broken_dependent_blocks_retraction(chain: MemoryRepo) -> None:
    write_file(chain.root / "notes/broken.md", "---\ndepends_on: [facts/source.md\n---\nbody\n")
    head = chain.git.head()
    with pytest.raises(InvalidMemory, match=r"notes/broken\.md: cannot be parsed"):
        retract(chain, ["facts/source.md"], reason="wrong")
    assert chain.git.head() == head and status(chain, "facts/source.md") == "active"


def test_validation_of_records(repo: MemoryRepo) -> None:
    write_file(
        repo.root / "notes/bad.md",
        "---\nid: bad\ntype: note\nscope: user:U1\nsource: s\nstatus: needs_review\nsource_primary: yes please\n"
        "invalidated_by: [{reason: r}]\nreinstated: {at: yesterday}\n---\nb\n",
    )
    found = {(p.field, p.severity) for p in repo.validate() if p.path == "notes/bad.md"}
    assert {("source_primary", "error"), ("invalidated_by", "error"), ("reinstated", "error")} <= found


# --- CLI ---------------------------------------------------------------------------------------
def test_cli_retract_review_reinstate(chain: MemoryRepo) -> None:
    cwd: Path = chain.root
    out = run_cli("impact", "facts/source.md", cwd=cwd)
    assert out.returncode == 0, out.stderr
    assert "└── notes/note.md  active → needs_review" in out.stdout and "3 downstream memories" in out.stdout
    out = run_cli("retract", "facts/source.md", "--reason", "rolled back", "--json", cwd=cwd)
    data = json.loads(out.stdout)
    assert data["count"] == 3 and data["commit"]
    out = run_cli("retract", "facts/source.md", "--reason", "rolled back", cwd=cwd)
    assert out.returncode == 0 and "nothing changed" in out.stdout
    out = run_cli("review", cwd=cwd)
    assert "facts/source.md [retracted]: rolled back" in out.stdout and "  notes/note.md" in out.stdout
    queue = json.loads(run_cli("review", "--json", cwd=cwd).stdout)
    assert [i["path"] for i in queue[0]["items"]] == ["answers/cached.md", "index/entry.md", "notes/note.md"]
    out = run_cli("reinstate", "notes/note.md", "--reason", "x", cwd=cwd)
    assert out.returncode == 3 and "no independent active source" in out.stderr
    out = run_cli("graph", "notes/note.md", cwd=cwd)
    assert "facts/source.md  [retracted]" in out.stdout
    assert "digraph memfs" in run_cli("graph", "notes/note.md", "--dot", cwd=cwd).stdout
    assert json.loads(run_cli("graph", "notes/note.md", "--json", cwd=cwd).stdout)["path"] == "notes/note.md"
    out = run_cli("retract", "facts/source.md", cwd=cwd)
    assert out.returncode != 0 and "--reason" in out.stderr


def test_cli_review_range_summarises_the_range(chain: MemoryRepo) -> None:
    chain.retract(["facts/source.md"], reason="rolled back")
    out = run_cli("review", "HEAD~1..HEAD", "--json", cwd=chain.root)
    assert out.returncode == 0, out.stderr
    summary = json.loads(out.stdout)
    assert [e["path"] for e in summary["retracted"]] == ["facts/source.md"]
    assert summary["retracted"][0]["downstream"] == 3 and summary["counts"]["flagged"] == 3
    bad = run_cli("review", "..HEAD", cwd=chain.root)
    assert bad.returncode == 2 and "BASE..HEAD" in bad.stderr


entry = st.sampled_from(
    [
        "a.md",
        "notes/b.md",
        "./notes/b.md",
        "x/../c.md",
        "self.md",
        "/abs.md",
        "../out.md",
        "'q u.md'",
        '"d.md"',
        "é.md",
        "1.5",
        "yes",
        "e.md  # why",
        "",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(entry, max_size=4), st.booleans(), st.booleans())
def test_fast_dependencies_match_full_parse(items: list[str], block: bool, comment: bool) -> None:
    if block:
        value = "".join(f"\n  - {i}" for i in items) if items else " []"
    else:
        value = " [" + ", ".join(i.split("  #")[0] for i in items) + "]"
    tail = "  # note" if comment and not block else ""
    text = f"---\nid: self\ntype: note\ndepends_on:{value}{tail}\nstatus: active\n---\nbody\n"
    data = text.encode()
    try:
        full = parse("self.md", data)
    except InvalidMemory:
        with pytest.raises(InvalidMemory):
            read_depends_on("self.md", data)
        return
    assert read_depends_on("self.md", data) == tuple(dict.fromkeys(full.depends_on))


def test_unparseable_downstream_member_blocks_retraction(chain: MemoryRepo) -> None:
    write_file(chain.root / "notes/dup.md", "---\nid: a\nid: b\ndepends_on: [facts/source.md]\n---\nbody\n")
    head = chain.git.head()
    with pytest.raises(InvalidMemory, match=r"notes/dup\.md: is downstream of facts/source\.md but cannot be parsed"):
        retract(chain, ["facts/source.md"], reason="wrong")
    assert chain.git.head() == head and status(chain, "notes/note.md") == "active"


def test_recall_honours_retraction_and_revert(chain: MemoryRepo) -> None:
    for path in ("facts/source.md", "notes/note.md", "index/entry.md", "answers/cached.md", "notes/unrelated.md"):
        chain.write(path, body=f"{path} mentions zebracorn\n")

    def found() -> set[str]:
        return {h.memory.path for h in index.search(chain, "zebracorn", limit=10).hits}

    assert len(found()) == 5
    result = retract(chain, ["facts/source.md"], reason="wrong")
    assert found() == {"notes/unrelated.md"}
    revert(chain, result.commit)
    assert len(found()) == 5
