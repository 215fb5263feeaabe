"""The entries that bypass memfs's own commit path (a hand commit under the hooks, a commit sync
fetches) judge what they let in with the same rule: a generated matrix of every everyday
credential kind of :mod:`tests.secret_corpus`, in every disguise, in each place such a commit can
carry it (a memory's body, any other file under the memory root, the message's subject, a
trailer). Every cell is refused; the prose corpus passes in every place.

The hooks and sync reach these functions through git (``tests/cli/test_hooks.py``,
``tests/integration/test_incoming.py``); here the rule itself is held, with no git process.
"""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from memfs.ops import entry
from memfs.policy import guard
from tests import secret_corpus as corpus

MEMORY = "---\ntype: fact\nscope: user:U5\nsource: tool:ci\n---\n{text}\n"

#: Each place a hand or fetched commit carries text: whether it refuses ``text`` there.
PLACES: dict[str, Callable[[str], list[str]]] = {
    "memory body": lambda text: [r.rule for r in guard.file_secrets(
        "notes/n.md", None, MEMORY.format(text=text), memory=True)],
    "other file": lambda text: [r.rule for r in guard.file_secrets(
        "notes/n.txt", "old line\n", f"old line\n{text}\n", memory=False)],
    "message subject": lambda text: entry.message(f"note: {text}\n\nMemfs-Op: write\n"),
    "trailer": lambda text: entry.message(f"note\n\nwhy\n\nMemfs-Idempotency-Key: {text}\n"),
}


@pytest.mark.parametrize("place", sorted(PLACES))
@pytest.mark.parametrize("kind", sorted(corpus.KINDS))
def test_every_credential_kind_in_every_disguise_is_refused_in_every_place(kind: str, place: str) -> None:
    rng = random.Random(f"{kind}/{place}")
    text, value = corpus.KINDS[kind](rng)
    refused = PLACES[place]
    placed = {name: hide(text, value) for name, hide in corpus.DISGUISES.items()}
    if place == "trailer":  # a trailer is one line: forms written over several lines are not trailers
        placed = {name: t for name, t in placed.items() if "\n" not in t}
    missed = [name for name, t in placed.items() if not refused(t)]
    assert placed and missed == [], f"{kind} in the {place} passed in: {missed}"


@pytest.mark.parametrize("place", sorted(PLACES))
def test_prose_about_credentials_passes_in_every_place(place: str) -> None:
    refused = [text for text in corpus.PROSE if PLACES[place](text)]
    assert refused == []
