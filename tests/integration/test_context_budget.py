"""The budget covers every byte the context prints, in every format, and what gives way first (#27)."""

from __future__ import annotations

import json

import pytest

from memfs import MemoryRepo
from memfs.agents.context import assemble
from memfs.agents.rendering import Context
from memfs.policy.tokens import estimate_tokens
from tests.helpers import Prepared, add, build_filled

FORMATS = ("markdown", "xml", "json")
#: Every 31 tokens from 300 to 900, then a few larger ones.
BUDGETS = [*range(300, 900, 31), 1200, 4000]
PREF = "prefs/lang.md"


def _tight(repo: MemoryRepo) -> None:
    build_filled(repo)
    add(repo, "system/guide.md", body="Keep answers short and cite sources. " * 30, type="note")
    add(repo, PREF, body="Release notes for P8 in English.", type="preference")
    for i in range(14):
        add(repo, f"facts/b17-note-{i:02}.md", body=f"B17 shipped note {i}. " + "detail " * (5 + i * 3))


@pytest.fixture
def tight(prepared: Prepared) -> MemoryRepo:
    """``filled`` with a long system/ file, a pinned preference and many matching facts (built
    once per session, copied for each test)."""
    return prepared("tight", _tight)


def _check(ctx: Context) -> None:
    text = ctx.render()
    assert estimate_tokens(text) <= ctx.budget, (ctx.format, ctx.budget)
    assert ctx.tokens == estimate_tokens(text) and not ctx.over_budget
    system = [b for b in ctx.blocks if b.kind == "system"]
    if PREF not in {b.path for b in ctx.blocks}:
        assert all(not b.text for b in system), f"{PREF} dropped while system/ kept text at {ctx.budget}"
    shown, more = ctx.shown_left_out()
    assert len(shown) + more == len(ctx.left_out)
    if ctx.format == "json":
        data = json.loads(text)
        assert data["tokens"] == ctx.tokens and data["left_out_more"] == more
    elif more:
        assert (f'<more count="{more}"/>' if ctx.format == "xml" else f"and {more} more") in text


@pytest.mark.parametrize("fmt", FORMATS)
def test_printed_context_fits_every_budget_from_300(tight: MemoryRepo, fmt: str):
    kept_pref_while_system_cut = False
    for budget in BUDGETS:
        ctx = assemble(tight.store, "when did B17 ship", scope="user:U5", budget=budget, format=fmt)
        _check(ctx)
        blocks = {b.path: b for b in ctx.blocks}
        kept_pref_while_system_cut |= PREF in blocks and any(b.truncated for b in blocks.values() if b.kind == "system")
    assert kept_pref_while_system_cut, "no budget exercised cutting system/ with the preference kept"


@pytest.mark.parametrize("fmt", FORMATS)
def test_system_is_cut_before_the_preference_goes(tight: MemoryRepo, fmt: str):
    """Descending the budget, the preference is the last recalled memory kept, and it goes only
    once system/ has no text left."""
    for budget in range(700, 299, -45):
        ctx = assemble(tight.store, "when did B17 ship", scope="user:U5", budget=budget, format=fmt)
        _check(ctx)
        recalled = [b.path for b in ctx.blocks if b.kind == "recalled"]
        if recalled and recalled != [PREF]:
            assert PREF in recalled


def test_left_out_list_is_summarised_when_it_does_not_fit(tight: MemoryRepo):
    ctx = assemble(tight.store, "when did B17 ship", scope="user:U5", budget=400)
    _check(ctx)
    more = ctx.shown_left_out()[1]
    assert more > 0 and f"Left out ({len(ctx.left_out)}):" in ctx.render()
    roomy = assemble(tight.store, "when did B17 ship", scope="user:U5", budget=20_000)
    assert roomy.shown_left_out()[1] == 0 and roomy.left_out_shown is None


def test_warnings_are_summarised_last_and_kept_in_full(tight: MemoryRepo):
    ctx = assemble(tight.store, "when did B17 ship", scope="user:U5", budget=300, format="json")
    _check(ctx)
    assert any(w.startswith("system/ needs about") for w in ctx.warnings)
    shown = json.loads(ctx.render())["warnings"]
    assert len(shown) <= len(ctx.warnings) + 1
    if ctx.warnings_shown is not None:
        assert shown[-1] == f"and {len(ctx.warnings) - ctx.warnings_shown} more warning(s), left out to fit the budget"
