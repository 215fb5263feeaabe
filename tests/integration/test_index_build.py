"""The index build counts each text field's tokens as Whoosh indexes them (each text analysed
once); the counts must be exactly what the analyzer yields, since BM25F's average lengths come
from them (``.memfs/state.json``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from memfs import MemoryRepo
from memfs.index import catchup
from memfs.index import state as index_state
from memfs.index.analysis import tokens
from memfs.index.documents import TEXT_FIELDS, _texts
from tests.helpers import commit_all, put

TEXTS = (
    "Plain English words, repeated words words and numbers 42 3.14",
    "混合文本：北京的天气很好，我们去长城 and some English too",
    "snake_case and CamelCase and kebab-case, e-mail@example.invalid, v2.0.1",
    "",
)


def _expected(repo: MemoryRepo, rel: str) -> tuple[int, ...]:
    memory = repo.store.load(rel)[1]
    assert memory is not None
    texts = _texts(memory)
    return tuple(len(tokens(texts[name])) for name in TEXT_FIELDS)


def test_rebuilt_and_updated_lengths_are_the_analyzers_token_counts(repo: MemoryRepo) -> None:
    for i, body in enumerate(TEXTS):
        put(repo, f"notes/n{i}.md", body=body or "x", type="fact", scope="user:U5", source="test:1",
            description=TEXTS[(i + 1) % len(TEXTS)], tags=["alpha", "beta_gamma"], key=f"k{i}", ticket="T-1 两个")
    commit_all(repo.root, "notes")
    built = catchup.rebuild(repo.store)
    rels = [f"notes/n{i}.md" for i in range(len(TEXTS))]
    assert [built.files[rel].lengths for rel in rels] == [_expected(repo, rel) for rel in rels]
    put(repo, "notes/n0.md", body=TEXTS[1] + " " + TEXTS[2], type="fact", scope="user:U5", source="test:2")
    catchup.sync(repo.store)
    after = index_state.read(repo.store.cache_dir)
    assert after.files["notes/n0.md"].lengths == _expected(repo, "notes/n0.md")
    assert [after.files[rel].lengths for rel in rels[1:]] == [_expected(repo, rel) for rel in rels[1:]]


def test_index_updates_survive_a_program_that_reseeds_random(repo: MemoryRepo) -> None:
    """Whoosh drew segment names from the global ``random``: reseeded before each update (as
    Hypothesis does for every example), two updates picked the same name and the second failed
    an assertion in ``create_compound_file``."""
    import random

    saved = random.getstate()
    try:
        for i in range(4):
            put(repo, f"notes/r{i}.md", body=f"reseeded update {i}", type="fact", scope="user:U5", source="test:1")
            random.seed(0)
            report = catchup.sync(repo.store)
            assert report.added == 1 or report.rebuilt
    finally:
        random.setstate(saved)
    state = index_state.read(repo.store.cache_dir)
    assert {f"notes/r{i}.md" for i in range(4)} <= set(state.files)


def test_an_open_index_is_labelled_with_the_key_its_state_was_read_under(repo: MemoryRepo,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """The open index (``reader.handle``) is kept while the state files' key is the one it was
    opened for. A reader racing a writer's whole save (the new file renamed in, the old journal
    removed after the reader took the key) reads a state that is not the key's; once the new
    journal grows to the old one's size the key comes round again, and an open index labelled
    with it would be kept, its state lacking the new lines."""
    from memfs.index import reader
    from memfs.index.state import JOURNAL_FILE, STATE_FILE, Entry

    put(repo, "notes/x.md", body="x", type="fact", scope="user:U5", source="test:1")
    commit_all(repo.root, "x")
    catchup.rebuild(repo.store)
    cache = repo.store.cache_dir
    entry = Entry(1, 2, "d" * 24, (3,) * len(TEXT_FIELDS))
    first = index_state.read(cache)
    first.put("notes/y.md", entry)
    index_state.write(cache, first)
    old_journal = (cache / JOURNAL_FILE).stat().st_size
    (cache / STATE_FILE).write_bytes(index_state.read(cache).encode("t" * 16))  # the rename, the journal not yet gone
    index_state._parsed.clear()
    reader.close(repo.store)
    real = index_state._journal

    def journal_removed_meanwhile(folder: Path, size: int) -> bytes:
        (folder / JOURNAL_FILE).unlink(missing_ok=True)
        return real(folder, size)

    monkeypatch.setattr(index_state, "_journal", journal_removed_meanwhile)
    assert "notes/y.md" in reader.handle(repo.store).state.files
    monkeypatch.setattr(index_state, "_journal", real)
    other = index_state.read(cache)
    other.put("notes/z.md", entry)
    line = other.journal_line()
    assert len(line) == old_journal
    with open(cache / JOURNAL_FILE, "ab") as handle:
        handle.write(line)
    assert "notes/z.md" in reader.handle(repo.store).state.files
    reader.close(repo.store)
