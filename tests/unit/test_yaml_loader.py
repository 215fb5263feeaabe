"""The frontmatter loader's shortcuts (a tag remembered per scalar text, a string scalar taken
as its text) give exactly what PyYAML's own safe constructor gives, on every kind of scalar and
structure frontmatter holds, loaded twice so the remembered tags are used."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
import yaml

from memfs.format import yamlio

if TYPE_CHECKING:
    _Base = yaml.SafeLoader
else:
    _Base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _Reference(_Base):
    """The loader as it was: the same constructors, PyYAML's resolve and construct_object."""


for _tag, _constructor in yamlio._StrictLoader.yaml_constructors.items():
    _Reference.add_constructor(_tag, _constructor)

DOCUMENTS = [
    "id: a\nstatus: active\nrevision: 3\nconfidence: 0.9\nupdated: 2026-01-02T00:00:00Z\n",
    "tags: [bench, 't1', \"t2\", 12, 1.10, yes, no, on, off, ~, null, '', 0o17, 0x1F, 1_000, .inf, -.NaN]\n",
    "when: 2026-01-02\nbad: 2026-13-45\nwithzone: 2026-01-02 10:00:00+02:00\nplain: 12:30\n",
    "depends_on:\n  - a.md\n  - 'b.md'\n"
    "invalidated_by:\n- root: facts/x.md\n  reason: why\n  at: 2026-01-03T00:00:00Z\n",
    "base: &b {k: v, n: 1}\nother: *b\nlist: &l [x, y]\nagain: *l\nmerged:\n  <<: *b\n  extra: true\n",
    "text: |\n  two\n  lines\nfolded: >\n  one\n  line\nquoted: \"esc\\x41\\u00e9\"\nkey with spaces: v\n",
    "explicit: !!str 123\nfloat: !!float 1\nbinary: !!binary aGVsbG8=\nset: !!set {a, b}\n",
    "'quoted key': 1\n\"2\": two\n3: three\nnull: n\n? complex\n: value\n",
    "long: " + "x" * 200 + "\nsame: " + "x" * 200 + "\nunicode: héllo wörld\n",
]


@pytest.mark.parametrize("text", DOCUMENTS)
def test_the_loader_gives_what_pyyaml_gives(text: str) -> None:
    try:
        expected: Any = yaml.load(text, Loader=_Reference)
    except yaml.YAMLError as exc:  # a merge key: refused before and after
        for _ in range(2):
            with pytest.raises(yamlio.YamlError, match=str(getattr(exc, "problem", "-"))):
                yamlio.load(text)
        return
    for _ in range(2):
        assert yamlio.load(text) == expected
        assert _types(yamlio.load(text)) == _types(expected)


def test_the_shortcuts_assumptions_hold() -> None:
    """A tag remembered by text is right only without path resolvers; a string scalar is its
    text only while strings are built by PyYAML's ``construct_yaml_str``."""
    assert not yamlio._StrictLoader.yaml_path_resolvers
    built_by = yamlio._StrictLoader.yaml_constructors[yamlio._STR_TAG]
    assert built_by is yaml.constructor.SafeConstructor.construct_yaml_str


def test_duplicate_keys_and_limits_are_still_refused() -> None:
    with pytest.raises(yamlio.YamlError, match="duplicate key"):
        yamlio.load("a: 1\na: 2\n")
    with pytest.raises(yamlio.YamlError, match="characters"):
        yamlio.load("a: " + "x" * 200_000 + "\n")


def _types(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _types(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_types(v) for v in value]
    return type(value).__name__
