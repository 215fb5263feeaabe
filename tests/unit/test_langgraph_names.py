"""LangGraph namespaces and keys as memfs scopes and file names: every label LangGraph allows is
one valid scope segment and reads back unchanged; every label and key is a file name memfs can
hold, and different ones never share a file."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from memfs.format.names import part_problem
from memfs.format.validate import scope_problem
from memfs.integrations.langgraph import _part, label_of, namespace_of, scope_of, segment_of

labels = st.text(min_size=1, max_size=40).filter(lambda t: "." not in t and "\x00" not in t)
keys = st.text(min_size=1, max_size=300)


@given(st.lists(labels, min_size=1, max_size=4))
def test_a_namespace_is_a_valid_scope_and_reads_back(namespace: list[str]) -> None:
    scope = scope_of(tuple(namespace))
    assert scope_problem(scope) is None
    assert namespace_of(scope) == tuple(namespace)
    assert len(scope.split("/")) == len(namespace)


@given(labels)
def test_a_label_is_one_segment(label: str) -> None:
    segment = segment_of(label)
    assert "/" not in segment and label_of(segment) == label


def test_plain_labels_are_kept_as_they_are() -> None:
    assert scope_of(("user:U5", "project-P8", "a_b@c+d")) == "user:U5/project-P8/a_b@c+d"
    assert scope_of(("memories", "user 5", "a=b", "中")) == "memories/user=205/a=3Db/=E4=B8=AD"


@given(keys, keys)
def test_keys_are_file_names_and_never_share_one(first: str, second: str) -> None:
    for key in (first, second):
        name = _part(key, key=True) + ".md"
        assert part_problem(name) is None and not name.startswith(".") and name != "README.md"
    if first != second:
        assert _part(first, key=True) != _part(second, key=True)
