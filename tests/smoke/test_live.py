"""A fresh ``python -m memfs search`` answered by a running live index: the real entry point,
its answer, and what it loads (neither Whoosh nor YAML: the point of asking the server)."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from memfs import MemoryRepo
from tests.helpers import memory_text, run_process

pytestmark = pytest.mark.filterwarnings("ignore:Callback with id:RuntimeWarning")


@pytest.fixture(autouse=True)
def short_run_dir(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    folder = Path(tempfile.mkdtemp(prefix="mfs", dir="/tmp"))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(folder))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.slow
def test_a_fresh_process_answered_by_the_server_loads_no_whoosh_nor_yaml(repo: MemoryRepo) -> None:
    (repo.root / "facts").mkdir()
    (repo.root / "facts/a.md").write_text(
        memory_text("The rocket launches on friday.", type="fact", scope="user:U5", source="tool:ci"))
    with repo.live_server() as server:
        server.live.wait_barrier(server.live.barrier())
        ran = run_process("search", "rocket", cwd=repo.root, env={"PYTHONPROFILEIMPORTTIME": "1"})
        assert server.live.answered == 1
    assert "facts/a.md" in ran.stdout
    loaded = {line.split("|")[-1].strip() for line in ran.stderr.splitlines() if line.startswith("import time:")}
    assert loaded and not {m for m in loaded if m.split(".")[0] in ("whoosh", "yaml", "ruamel", "rich", "mcp")}
