"""``memfs validate`` as a pre-commit hook: the hook definition."""

from __future__ import annotations

import yaml

from tests.helpers import PROJECT


def test_pre_commit_hook_definition() -> None:
    (hook,) = yaml.safe_load((PROJECT / ".pre-commit-hooks.yaml").read_text())
    assert hook["id"] == "memfs-validate"
    assert hook["entry"] == "memfs validate"
    assert hook["files"] == r"\.md$"
    assert hook.get("pass_filenames", True) is True
