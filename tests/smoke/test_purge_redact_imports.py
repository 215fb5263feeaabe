"""The message callback of purge's history rewrite runs in git-filter-repo's own Python, which
imports it once per purge: it must bring in no other memfs module (importing
:mod:`memfs.ops.purge` there cost ~0.3 s of CPU a purge)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path


def test_the_callback_imports_no_other_memfs_module_and_redacts(tmp_path: Path) -> None:
    where = tmp_path / "needles.json"
    where.write_text(json.dumps({"paths": ["facts/dose.md"], "digest": "ab12", "needles": ["twelve drops a day"],
                                 "fragments": ["frobnazol"]}))
    message = "b'memfs: add facts/dose.md\\n\\nfrobnazol, twelve drops\\nMemfs-Op: add\\n'"
    code = ("import sys; from memfs.ops.purge_redact import redact_message; "
            f"out = redact_message({message}, {str(where)!r}); "
            "print(repr(out)); print(sorted(m for m in sys.modules if m.split('.')[0] == 'memfs'))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.splitlines()
    assert out[0] == repr(b"memfs: add sha256:ab12\n\n[purged]\nMemfs-Op: add\n")
    assert out[1] == str(["memfs", "memfs.ops", "memfs.ops.purge_redact"])
