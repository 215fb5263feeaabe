"""A scan in a fresh process reads the detect-secrets plugins' patterns from the table
(:mod:`memfs.policy.secrets_library`) and never imports the library (~0.15 s of CPU a process)."""

from __future__ import annotations

import subprocess
import sys

from memfs.policy import secrets_library_table


def test_the_installed_version_is_read_without_importing_the_library() -> None:
    code = ("import sys; from memfs.policy import secrets_library as s, secrets_scan; "
            "v = s.installed_version(); secrets_scan.scan('key AKIAIOSFODNN7EXAMPLE'); "
            "print(v, 'detect_secrets' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == [secrets_library_table.VERSION, "False"]
