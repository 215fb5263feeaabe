"""The examples for the agent frameworks in the guide for agent hosts (docs/agents.md) run as
written: the LangGraph graph against a repository, the Anthropic tool_runner example against a
mocked Messages API (no network)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import pytest

from memfs import MemoryRepo
from tests.helpers import PROJECT
from tests.integration.test_anthropic_memory_tool import ScriptedModel

if TYPE_CHECKING:
    import anthropic

pytestmark = pytest.mark.slow

GUIDE = "docs/agents.md"


def example(name: str) -> str:
    """The Python block after ``<!-- example:NAME -->`` in the guide for agent hosts."""
    text = (PROJECT / GUIDE).read_text(encoding="utf-8")
    found = re.search(rf"<!-- example:{name} -->\n```python\n(.*?)\n```", text, re.DOTALL)
    assert found is not None, name
    return found.group(1)


def test_the_langgraph_example(repo: MemoryRepo, capsys: pytest.CaptureFixture[str]) -> None:
    code = example("langgraph").replace('"path/to/memory"', repr(str(repo.root)))
    exec(compile(code, f"{GUIDE}:langgraph", "exec"), {"__name__": "readme_example"})
    assert capsys.readouterr().out.strip() == "['U5 takes oat milk']"
    assert repo.store.read("langgraph/memories/u5/coffee.md").scope == "memories/u5"


def test_the_anthropic_example(repo: MemoryRepo, capsys: pytest.CaptureFixture[str],
                               monkeypatch: pytest.MonkeyPatch) -> None:
    import anthropic
    import httpx2

    script = [{"command": "create", "path": "/memories/pr-review.md", "file_text": "U5 reviews PRs on Fridays.\n"}]
    model = ScriptedModel(script, dict)
    real = anthropic.Anthropic

    def offline(**options: Any) -> anthropic.Anthropic:
        return real(api_key="test-key", http_client=httpx2.Client(transport=httpx2.MockTransport(model)), **options)

    monkeypatch.setattr(anthropic, "Anthropic", offline)
    code = example("anthropic").replace('"path/to/memory"', repr(str(repo.root)))
    exec(compile(code, f"{GUIDE}:anthropic", "exec"), {"__name__": "readme_example"})
    printed = capsys.readouterr().out.splitlines()
    assert printed[0] == "Done." and printed[1].startswith("Call(command='create', path='/memories/pr-review.md'")
    assert repo.store.read("pr-review.md").body == "U5 reviews PRs on Fridays.\n"
    assert [s.is_error for s in model.steps] == [False]
