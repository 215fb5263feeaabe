"""The integrations' import rule: a framework that is not installed fails loudly, naming the extra."""

from __future__ import annotations

import pytest

from memfs.integrations import require


def test_a_missing_framework_names_the_extra_to_install() -> None:
    with pytest.raises(ModuleNotFoundError, match=r"pip install 'memfs\[langgraph\]'") as caught:
        require("no_such_framework_for_memfs", "langgraph")
    assert caught.value.name == "no_such_framework_for_memfs"


def test_an_installed_framework_passes() -> None:
    require("anthropic", "anthropic")
    require("langgraph", "langgraph")
