"""No door commits a secret: every door of :mod:`tests.secret_doors` (the CLI verbs, ``memfs
tool``, MCP over stdio, the Anthropic adapter, LangGraph, ``memfs watch``, a real hand commit
under the installed hooks, ``memfs import`` and ``memfs sync``) is offered a cross-section in
which every credential kind and every disguise appears at least once (each door a different
pairing), plus two lines of prose that must get in. One repository is shared by all doors (each
writes in its own folder; a refused cell changes nothing). The full door x kind x disguise matrix
with its false positives is ``bench/bench_secret_doors.py``.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests import secret_corpus as corpus
from tests import secret_doors as doors

#: Prose every door must let in (a cell each, after the credentials).
PROSE = [doors.Cell(doors.PROSE, "plain", "Rotate the AWS secret key every 90 days."),
         doors.Cell(doors.PROSE, "plain", "mi contraseña es muy segura")]


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[doors.Env]:
    with doors.environment(tmp_path_factory.mktemp("doors")) as made:
        yield made


#: Doors that start another Python process (the MCP server, the hooks' memfs) are slow by the marker's rule.
SLOW = {"mcp (stdio)", "hand commit (hooks)"}


@pytest.mark.parametrize("door", [pytest.param(d, marks=pytest.mark.slow) if d in SLOW else d for d in doors.DOORS])
def test_no_door_commits_any_credential_kind_in_any_disguise(
    env: doors.Env, door: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    offset = list(doors.DOORS).index(door)
    cells = doors.cross_section(offset) + PROSE
    assert {c.kind for c in cells if c.secret} == set(corpus.KINDS)
    assert {c.disguise for c in cells if c.secret} == set(corpus.DISGUISES)
    got = doors.offer(env, door, cells)
    leaked = [f"{c.kind} ({c.disguise}): {c.text[:60]!r}" for c, went in got if c.secret and went]
    blocked = [c.text for c, went in got if not c.secret and not went]
    assert leaked == [] and blocked == [], (leaked, blocked)


def test_the_cross_sections_pair_kinds_and_disguises_differently_at_each_door() -> None:
    pairs = [{(c.kind, c.disguise) for c in doors.cross_section(i)} for i in range(len(doors.DOORS))]
    assert all(a != b for i, a in enumerate(pairs) for b in pairs[i + 1:])
