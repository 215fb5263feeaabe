"""MCP sampling as the judge (#27): ``memory_remember`` asks the host's model what a candidate
means when the host offers sampling, through the real mcp SDK client (in-memory transport, a
``sampling_callback``); a host that offers none is not asked; one that errors,
times out or answers nonsense leaves it to the offline rules and says so once; nothing is
written on the host's word that the secret rules refuse."""

from __future__ import annotations

import json
import warnings
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp.client import Client

from memfs.api import MemoryRepo
from memfs.mcp_server import build_server
from memfs.ops import judge

ONE_OFF = "Reply to this thread in French."
LASTING = "Always answer me in Portuguese."
Host = Callable[[Any, types.CreateMessageRequestParams], Awaitable[Any]]


def answering(text: str, asked: list[str]) -> Host:
    async def host(context: Any, params: types.CreateMessageRequestParams) -> Any:
        asked.append(getattr(params.messages[0].content, "text", ""))
        return types.CreateMessageResult(role="assistant", content=types.TextContent(type="text", text=text),
                                         model="host-model")

    return host


async def failing(context: Any, params: types.CreateMessageRequestParams) -> Any:
    return types.ErrorData(code=types.INTERNAL_ERROR, message="the user declined")


async def silent(context: Any, params: types.CreateMessageRequestParams) -> Any:
    await anyio.sleep_forever()


@pytest.fixture(autouse=True)
def fresh_warnings(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(judge, "_said", set())
    monkeypatch.setattr(judge, "_unread", [])
    yield


def _remember(repo: MemoryRepo, host: Host | None, bodies: list[str], mode: str = "legacy",
              keyed: bool = True, type_: str = "preference") -> list[Any]:
    """Each body through ``memory_remember`` of one server bound to user:U5, in one connection."""
    server = build_server(repo.session("user:U5", actor="user:U5"))

    async def main() -> list[Any]:
        out = []
        async with Client(server, sampling_callback=host, mode=mode) as client:  # type: ignore[arg-type]
            for number, body in enumerate(bodies):
                out.append(await client.call_tool("memory_remember", {
                    "body": body, "type": type_, "source": f"conversation:C1#msg-{number}",
                    "source_kind": "user", **({"key": f"k{number}"} if keyed else {})}))
        return out

    return anyio.run(main)


def _stored(result: Any) -> bool:
    return not result.is_error


def _text(result: Any) -> str:
    return " ".join(getattr(c, "text", "") for c in result.content)


def test_the_hosts_model_reads_meaning_when_the_host_offers_sampling(repo: MemoryRepo) -> None:
    asked: list[str] = []
    lasting, secret = _remember(repo, answering("Lasting.", asked), [ONE_OFF, "My passport number is X1234567"])
    assert _stored(lasting), _text(lasting)  # the offline rules alone refuse it as one-off
    assert len(asked) == 1 and ONE_OFF in asked[0] and "one-off" in asked[0]  # the secret was never put to it
    assert not _stored(secret) and "id-document" in _text(secret)
    refused = _remember(repo, answering("one-off", asked), [LASTING])[0]
    assert not _stored(refused) and "one-off" in _text(refused)


@pytest.mark.parametrize(("host", "mode", "said"), [
    (answering("store it, definitely", []), "legacy", "answered 'store it, definitely'"),
    (failing, "legacy", "the user declined"),
    (silent, "legacy", "no answer within 0.3 s"),
], ids=["nonsense", "error", "timeout"])
def test_a_host_that_cannot_judge_leaves_it_to_the_rules(repo: MemoryRepo, host: Host, mode: str,
                                                         said: str) -> None:
    (repo.root / ".memfs.toml").write_text("[judge]\ntimeout = 0.3\n", encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", judge.JudgeFallback)  # the notice is checked where the model reads it
        first, second = _remember(repo, host, [ONE_OFF, LASTING])
    assert not _stored(first) and "one-off" in _text(first)  # the offline rules decided
    assert said in _text(first) and "offline rules decide instead" in _text(first)
    assert _stored(second) and "notices" not in _text(second)  # said once


def test_a_host_without_sampling_is_not_asked(repo: MemoryRepo) -> None:
    one_off, lasting = _remember(repo, None, [ONE_OFF, LASTING])
    assert not _stored(one_off) and "one-off" in _text(one_off) and _stored(lasting)
    assert "notices" not in _text(lasting)


@pytest.mark.parametrize(("answer", "op", "noticed"), [
    ("keep-both", "KEEP_BOTH", False), ("Replace.", "SUPERSEDE", False), ("both are fine", "SUPERSEDE", True),
])
def test_the_hosts_model_decides_a_probable_conflict(repo: MemoryRepo, answer: str, op: str, noticed: bool) -> None:
    """Kai's city twice without a key: the host's model decides whether the new one replaces the
    old (``supersedes`` it) or both are kept; without a usable answer memfs's SUPERSEDE stands."""
    asked: list[str] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", judge.JudgeFallback)
        old, new = _remember(repo, answering(answer, asked), ["Kai works in Berlin.", "Kai works in Paris now."],
                             keyed=False, type_="fact")
    assert _stored(old) and _stored(new), _text(new)
    assert len(asked) == 1 and "Kai works in Berlin." in asked[0] and "Kai works in Paris now." in asked[0]
    done = json.loads(_text(new))
    assert done["op"] == op and ("notices" in done) is noticed
    assert ("as asked (supersedes)" in done["reason"]) is (answer == "Replace.")


def test_a_host_that_fails_leaves_it_to_the_configured_judge(repo: MemoryRepo) -> None:
    (repo.root / ".memfs.toml").write_text('[judge]\nclassify = "tests.integration.test_judge_remember:lasting"\n',
                                           encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", judge.JudgeFallback)
        [done] = _remember(repo, failing, [ONE_OFF])
    assert _stored(done)  # the [judge] read it as lasting, where the offline rules refuse it
    assert "the user declined" in _text(done) and "the [judge] decides instead" in _text(done)


DECIDED: list[str] = []


def judge_replaces(question: judge.ConflictQuestion) -> str:
    DECIDED.append(question.old.text)
    return "replace"


@pytest.mark.parametrize(("host", "op", "judge_asked"), [
    (answering("keep-both", []), "KEEP_BOTH", False), (failing, "SUPERSEDE", True),
], ids=["host answers", "host fails"])
def test_sampling_decides_a_conflict_before_the_configured_judge(repo: MemoryRepo, host: Host, op: str,
                                                                  judge_asked: bool) -> None:
    """The order is sampling, then ``[judge] conflict``, then the offline rules: the host's
    ``keep-both`` stands over a judge that would replace; a host that fails leaves it to the
    judge (its ruling named in the reason), and the tool's answer says so once."""
    DECIDED.clear()
    (repo.root / ".memfs.toml").write_text(
        '[judge]\nconflict = "tests.integration.test_mcp_sampling:judge_replaces"\n', encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", judge.JudgeFallback)
        old, new = _remember(repo, host, ["Kai works in Berlin.", "Kai works in Paris now."], keyed=False,
                             type_="fact")
    done = json.loads(_text(new))
    assert _stored(old) and done["op"] == op and bool(DECIDED) is judge_asked, done
    if judge_asked:
        assert DECIDED == ["Kai works in Berlin."] and "judge_replaces reads it as replacing" in done["reason"]
        assert any("the user declined" in n and "the [judge] decides the probable conflict instead" in n
                   for n in done["notices"])


NEAR_OLD, NEAR_NEW = "Mia keeps her bike in the garage.", "Mia's bike now lives in the hallway."


@pytest.mark.parametrize(("answer", "op"), [("Replace", "SUPERSEDE"), ("keep-both", "INSERT"),
                                            ("no idea", "INSERT")])
def test_the_hosts_model_is_asked_about_a_near_miss(repo: MemoryRepo, answer: str, op: str) -> None:
    """A pair the rules do not call a conflict but the wider net finds similar: the host's model
    is asked (as a near miss); only its ``replace`` supersedes the old memory, anything else keeps
    both, since nothing is superseded on similarity alone."""
    asked: list[str] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", judge.JudgeFallback)
        old, new = _remember(repo, answering(answer, asked), [NEAR_OLD, NEAR_NEW], keyed=False, type_="fact")
    assert _stored(old) and _stored(new), _text(new)
    assert len(asked) == 1 and NEAR_OLD in asked[0] and NEAR_NEW in asked[0] and "found no conflict" in asked[0]
    done = json.loads(_text(new))
    assert done["op"] == op, done
    assert ("as asked (supersedes)" in done["reason"]) is (op == "SUPERSEDE")


def test_the_host_is_not_asked_about_what_is_not_similar(repo: MemoryRepo) -> None:
    asked: list[str] = []
    _remember(repo, answering("replace", asked), ["Mia keeps her bike in the garage.", "Kai works in Berlin."],
              keyed=False, type_="fact")
    assert asked == []
