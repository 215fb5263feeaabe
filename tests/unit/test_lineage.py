"""The lineage policy (pure): the invalidation closure, reinstate rules, cycles, trees, and the
fast ``depends_on`` reader against the full parser."""

from __future__ import annotations

import copy

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memfs.errors import InvalidMemory
from memfs.format.parse import parse, read_depends_on
from memfs.policy import lineage
from memfs.policy.lineage import invalidation_closure, reinstate_basis


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


def test_tree_expands_a_node_where_it_is_first_read() -> None:
    # x is nearer the root under b, but a (read first) reaches it first: it is expanded there,
    # and "shown above" is on the later occurrence, never on the first one
    edges = {"s": ["b", "a"], "a": ["c"], "c": ["x"], "b": ["x"], "x": ["y"]}
    order = [(n.path, n.repeat) for n in lineage.tree("s", edges).walk()]
    assert order == [("s", False), ("a", False), ("c", False), ("x", False), ("y", False), ("b", False),
                     ("x", True)]
    capped = [(n.path, n.repeat) for n in lineage.tree("s", edges, max_depth=2).walk()]
    assert capped == [("s", False), ("a", False), ("c", False), ("b", False), ("x", False)]


@settings(max_examples=80, derandomize=True)
@given(st.dictionaries(st.sampled_from([f"n{i}" for i in range(8)]),
                       st.lists(st.sampled_from([f"n{i}" for i in range(8)]), max_size=3), max_size=8))
def test_tree_every_repeat_comes_after_its_expansion(edges: dict[str, list[str]]) -> None:
    seen: set[str] = set()
    for node in lineage.tree("n0", edges).walk():
        if node.repeat:
            assert node.path in seen
        elif not node.cycle:
            assert node.path not in seen
            seen.add(node.path)


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


@settings(max_examples=300)
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


@settings(max_examples=200)
@given(graphs, st.sets(nodes, max_size=3), st.sets(nodes, max_size=3))
def test_closure_is_monotone(rev: dict[str, list[str]], a: set[str], b: set[str]) -> None:
    small = a | invalidation_closure(a, rev)
    big = a | b | invalidation_closure(a | b, rev)
    assert small <= big


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


@settings(max_examples=300)
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
