"""Line numbers are the model's own at every file-tool door (issue #24).

One matrix of doors (``memfs tool`` through the CLI, the MCP file tools of the in-process
server, the Anthropic adapter) by cases (a bare body, a whole file, a memory another door wrote,
the model's own frontmatter block, CJK and CRLF text). At every door a line number counts the
lines of the text the model sent (``create``) or was shown (``view``), so each case's edit gives
the same body, and the stored memory is valid and in the session's scope.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import anyio
import pytest

from memfs import MemoryRepo
from memfs.format.parse import parse
from tests.helpers import FACT, cli

pytestmark = pytest.mark.slow

SCOPE = "user:U5"
_NUMBERED = re.compile(r"^ *(\d+)\t(.*)$")


class Door:
    """One way a model reaches the file tool; paths are the model's (``/memories/...``)."""

    name = ""

    def __init__(self, repo: MemoryRepo) -> None:
        self.repo = repo

    def call(self, command: str, **arguments: Any) -> str:
        raise NotImplementedError

    def fail(self, command: str, **arguments: Any) -> str:
        """The error text of a call that must be refused."""
        raise NotImplementedError

    def view(self, path: str, view_range: list[int] | None = None) -> list[tuple[int, str]]:
        """The numbered lines ``view`` showed (a reference tool's empty last line left out)."""
        shown = self.call("view", path=path, **({"view_range": view_range} if view_range else {}))
        lines = [(int(m[1]), m[2].removesuffix("\r")) for m in map(_NUMBERED.match, shown.split("\n")) if m]
        if lines and lines[-1][1] == "" and len(lines) > 1:
            lines.pop()
        return lines


class CliDoor(Door):
    name = "memfs tool"

    def call(self, command: str, **arguments: Any) -> str:
        request = {"command": command, **arguments}
        done = cli(self.repo, "--actor", "agent:cli", "tool", "--scope", SCOPE, input=json.dumps(request))
        result = json.loads(done.stdout)
        assert result["ok"], result["output"]
        return str(result["output"])

    def fail(self, command: str, **arguments: Any) -> str:
        done = cli(self.repo, "--actor", "agent:cli", "tool", "--scope", SCOPE,
                   input=json.dumps({"command": command, **arguments}))
        result = json.loads(done.stdout)
        assert not result["ok"], result
        return str(result["output"])


class McpDoor(Door):
    name = "mcp"

    def call(self, command: str, **arguments: Any) -> str:
        from memfs.mcp_server import build_server

        server = build_server(self.repo.session(SCOPE, actor="agent:mcp"))
        result = anyio.run(server.call_tool, f"memory_{command}", arguments)
        assert not getattr(result, "is_error", False), result
        return "\n".join(getattr(c, "text", "") for c in getattr(result, "content", []))

    def fail(self, command: str, **arguments: Any) -> str:
        from mcp.server.mcpserver.exceptions import ToolError

        from memfs.mcp_server import build_server

        server = build_server(self.repo.session(SCOPE, actor="agent:mcp"))
        with pytest.raises(ToolError) as caught:
            anyio.run(server.call_tool, f"memory_{command}", arguments)
        return str(caught.value)


class AnthropicDoor(Door):
    name = "anthropic"

    def call(self, command: str, **arguments: Any) -> str:
        from anthropic.types.beta import (
            BetaMemoryTool20250818CreateCommand,
            BetaMemoryTool20250818InsertCommand,
            BetaMemoryTool20250818StrReplaceCommand,
            BetaMemoryTool20250818ViewCommand,
        )

        from memfs.integrations.anthropic import MemfsMemoryTool

        tool = MemfsMemoryTool(self.repo, scope=SCOPE, actor="agent:claude")
        kinds: dict[str, Any] = {
            "view": BetaMemoryTool20250818ViewCommand,
            "create": BetaMemoryTool20250818CreateCommand,
            "insert": BetaMemoryTool20250818InsertCommand,
            "str_replace": BetaMemoryTool20250818StrReplaceCommand,
        }
        method: Callable[[Any], str] = getattr(tool, command)
        return method(kinds[command](command=command, **arguments))

    def fail(self, command: str, **arguments: Any) -> str:
        from anthropic.lib.tools import ToolError

        with pytest.raises(ToolError) as caught:
            self.call(command, **arguments)
        return str(caught.value)


DOORS = [CliDoor, McpDoor, AnthropicDoor]


@dataclass(frozen=True)
class Case:
    """What the model sends, what it does next, and the body that must result."""

    text: str | None  # the model's create; None: the memory is written by the library first
    edit: Callable[[Door, str], None]
    body: str
    shown: str | None = None  # the text view must show at the end (default: the body)


def _insert_after(number: int, text: str) -> Callable[[Door, str], None]:
    return lambda door, path: _ok(door.call("insert", path=path, insert_line=number, insert_text=text))


def _replace(old: str, new: str) -> Callable[[Door, str], None]:
    return lambda door, path: _ok(door.call("str_replace", path=path, old_str=old, new_str=new))


def _ok(_: str) -> None:
    return None


def _view_range(door: Door, path: str) -> None:
    assert door.view(path, [2, 2]) == [(2, "second")]


def _after_shown(line: str, text: str) -> Callable[[Door, str], None]:
    """View the file, then insert after the number ``view`` showed for ``line``."""

    def edit(door: Door, path: str) -> None:
        shown = {text: number for number, text in door.view(path)}
        _ok(door.call("insert", path=path, insert_line=shown[line], insert_text=text))

    return edit


WHOLE = "---\ntype: fact\nscope: user:U5\nsource: conversation:C1\n---\nB17 shipped.\nTested twice.\n"
OWN = "---\ntitle: Coffee\ntags: [drinks]\n---\nOat milk.\nNo sugar.\n"
CASES: dict[str, Case] = {
    "bare body, insert after 1": Case("first\nsecond\nthird\n", _insert_after(1, "inserted"),
                                      "first\ninserted\nsecond\nthird\n"),
    "bare body, insert at the top": Case("first\nsecond", _insert_after(0, "top"), "top\nfirst\nsecond\n"),
    "bare body, view_range": Case("first\nsecond\nthird\n", _view_range, "first\nsecond\nthird\n"),
    "bare body, str_replace": Case("first\nsecond\nthird\n", _replace("second", "2nd"), "first\n2nd\nthird\n"),
    "whole file, insert after its body's first line": Case(WHOLE, _insert_after(6, "On Monday."),
                                                          "B17 shipped.\nOn Monday.\nTested twice.\n",
                                                          WHOLE.replace("shipped.\n", "shipped.\nOn Monday.\n")),
    "whole file, view then insert": Case(WHOLE, _after_shown("B17 shipped.", "On Monday."),
                                        "B17 shipped.\nOn Monday.\nTested twice.\n",
                                        WHOLE.replace("shipped.\n", "shipped.\nOn Monday.\n")),
    "another door's memory, view then insert": Case(None, _after_shown("alpha", "inserted"),
                                                   "alpha\ninserted\nbeta\n"),
    "own frontmatter block, insert after its body's first line": Case(OWN, _insert_after(5, "Large cup."),
                                                                     "Oat milk.\nLarge cup.\nNo sugar.\n",
                                                                     OWN.replace("milk.\n", "milk.\nLarge cup.\n")),
    "own frontmatter block, edit a key": Case(OWN, _replace("tags: [drinks]", "tags: [drinks, morning]"),
                                             "Oat milk.\nNo sugar.\n", OWN.replace("drinks", "drinks, morning")),
    "CJK, insert after 1": Case("第一行\n第二行\n", _insert_after(1, "插入的一行"), "第一行\n插入的一行\n第二行\n"),
    "CJK, str_replace": Case("会议纪要: 周五发布\n", _replace("周五", "周一"), "会议纪要: 周一发布\n"),
    "CRLF, insert after 1": Case("a\r\nb\r\n", _insert_after(1, "x"), "a\r\nx\r\nb\r\n"),
    "CRLF, view then insert": Case("a\r\nb\r\nc\r\n", _after_shown("b", "x"), "a\r\nb\r\nx\r\nc\r\n"),
}


@pytest.mark.parametrize("door_type", DOORS, ids=[d.name for d in DOORS])
@pytest.mark.parametrize("case", list(CASES.values()), ids=list(CASES))
def test_a_line_number_counts_the_models_own_text(repo: MemoryRepo, door_type: type[Door], case: Case) -> None:
    door = door_type(repo)
    rel = "notes/case.md"
    path = f"/memories/{rel}"
    if case.text is None:
        repo.write(rel, fields=FACT, body="alpha\nbeta\n")
    else:
        door.call("create", path=path, file_text=case.text)
        shown = "\n".join(text for _, text in door.view(path))
        assert shown == "\n".join(line.removesuffix("\r") for line in case.text.split("\n")).rstrip("\n")
    case.edit(door, path)
    memory = parse(rel, (repo.root / rel).read_bytes())
    assert memory.body == case.body
    assert memory.scope == SCOPE and [p for p in repo.validate() if p.path == rel and p.severity == "error"] == []
    expected = case.shown if case.shown is not None else case.body
    assert [text for _, text in door.view(path)] == [line.removesuffix("\r") for line in expected.splitlines()]


def test_the_same_edit_gives_the_same_file_text_at_every_door(repo: MemoryRepo) -> None:
    """One script through each door: what the model sees afterwards is the same everywhere."""
    seen = {}
    for number, door_type in enumerate(DOORS):
        door = door_type(repo)
        path = f"/memories/notes/same-{number}.md"
        door.call("create", path=path, file_text=OWN)
        door.call("insert", path=path, insert_line=5, insert_text="Large cup.")
        door.call("str_replace", path=path, old_str="No sugar.", new_str="No sugar, ever.")
        door.call("insert", path=path, insert_line=len(door.view(path)), insert_text="The end.")
        seen[door.name] = [text for _, text in door.view(path)]
    assert len({tuple(v) for v in seen.values()}) == 1, seen
    assert seen["mcp"] == ["---", "title: Coffee", "tags: [drinks]", "---", "Oat milk.", "Large cup.",
                           "No sugar, ever.", "The end."]


SECRET_LINE = "password: hunter2hunter2X9"
#: (what the model sends, the edit that must be refused or None, the line the error must cite)
REFUSED: dict[str, tuple[str, tuple[str, str] | None, str]] = {
    "a secret on line 3 of a bare body": ("one\ntwo\n" + SECRET_LINE + "\nfour\n", None, "line 3,"),
    "an unknown type in the model's own block": ("---\ntype: rumour\n---\nbody\n", None, ":2:"),
    "a confidence out of range, line 4": ("---\ndescription: d\ntags: [x]\nconfidence: 7\n---\nbody\n", None, ":4:"),
    "a secret put in by str_replace": ("one\ntwo\nthree\n", ("three", SECRET_LINE), "line 3,"),
}


@pytest.mark.parametrize("door_type", DOORS, ids=[d.name for d in DOORS])
@pytest.mark.parametrize("case", list(REFUSED), ids=list(REFUSED))
def test_an_error_cites_the_line_the_model_wrote(repo: MemoryRepo, door_type: type[Door], case: str) -> None:
    text, edit, cited = REFUSED[case]
    door = door_type(repo)
    path = "/memories/notes/refused.md"
    if edit is None:
        said = door.fail("create", path=path, file_text=text)
    else:
        door.call("create", path=path, file_text=text)
        said = door.fail("str_replace", path=path, old_str=edit[0], new_str=edit[1])
    assert cited in said, said
    assert "notes/refused.md.md" not in said and str(repo.root) not in said
