"""Which file names the watcher ignores (pure)."""

from __future__ import annotations

from memfs.agents.watch import is_temporary


def test_filters():
    for name in ("4913", "note.md~", ".note.md.swp", ".note.md.abc.tmp", ".x.md.1234.memfs-tmp", "sedAb12"):
        assert is_temporary(name) or not name.endswith(".md")
