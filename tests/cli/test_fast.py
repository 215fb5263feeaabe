"""The fast path (:mod:`memfs.cli.fast`) prints what the click application prints, byte for byte,
for the same words: a generated matrix of ``search``, ``context`` and ``remember`` options, each
run once through the fast path and once through click (the fast path turned off), against one
running live index (twin repositories, each with its own, for writes). The fast path must also
have answered by itself (click not run) and sent the very request click sends. Then what it
leaves to click: no server, a dead one, a hung one (asked once, not twice), unknown options,
``--help``, a refusal (the write not sent again), several roots. And its table is the one the
declarations make. The clock memfs reads is held, so both runs of a pair print the same ``at``
whichever second each starts in."""

from __future__ import annotations

import io
import json
import os
import random
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click
import pytest

from memfs import MemoryRepo
from memfs.agents.live import wire
from memfs.cli import app, fast, fast_spec, printing
from tests.helpers import ACTOR, Ran, commit_all, copy_repo, git, memory_text, run_cli, write_file

pytestmark = [pytest.mark.filterwarnings("ignore:Callback with id:RuntimeWarning"),
              pytest.mark.usefixtures("live_run_dir", "clock")]
AT = "2026-06-01T00:00:00Z"
SCOPES = ["user:U5", "user:U5/project:P8", "user:U7"]
WORDS = ["rocket", "friday", "launch", "blue", "satellite", "的", "发布", "red"]


@pytest.fixture(scope="module")
def prepared(tmp_path_factory: pytest.TempPathFactory, template_repo: Path) -> Path:
    """A repository with memories of several scopes, types and versions, one body with ANSI
    styles (click strips them where no terminal reads), one broken file, one uncommitted edit."""
    root = copy_repo(template_repo, tmp_path_factory.mktemp("fast") / "mem")
    rng = random.Random(7)
    for i in range(24):
        fields: dict[str, Any] = {"scope": SCOPES[i % 3], "type": ["fact", "note", "preference"][i % 3],
                                  "source": "tool:ci", "created": f"2026-0{1 + i % 5}-01T00:00:00Z"}
        if i % 5 == 0:
            fields["version"] = "1.0"
        body = " ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 12)))
        write_file(root / f"facts/f{i}.md", memory_text(body + (" \033[31mred\033[0m" if i == 3 else ""), **fields))
    write_file(root / "facts/broken.md", "---\ntype: [\n---\nrocket\n")
    commit_all(root, "memories")
    write_file(root / "facts/f1.md", (root / "facts/f1.md").read_text() + "\nedited rocket\n")
    return root


@pytest.fixture
def served(prepared: Path, tmp_path: Path) -> Iterator[MemoryRepo]:
    repo = MemoryRepo.open(copy_repo(prepared, tmp_path / "served"), ACTOR)
    with _server(repo):
        yield repo


class _server:
    def __init__(self, repo: MemoryRepo) -> None:
        self.server = repo.live_server(debounce=0.01)

    def __enter__(self) -> Any:
        self.server.door = "test"
        self.server.start()
        for live in self.server.lives.values():
            live.settle()
        return self.server

    def __exit__(self, *exc: object) -> None:
        self.server.stop()


@pytest.fixture
def asks(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, dict[str, Any]]]:
    """Every request sent to a live index, as ``(op, args)``."""
    sent: list[tuple[str, dict[str, Any]]] = []
    real = wire.ask

    def ask(start: Any, op: str, args: dict[str, Any], timeout: float | None = None) -> dict[str, Any] | None:
        sent.append((op, json.loads(json.dumps(args, default=str))))
        return real(start, op, args, timeout)

    monkeypatch.setattr(wire, "ask", ask)
    return sent


def both(monkeypatch: pytest.MonkeyPatch, *args: str, input: str | None = None,
         click_args: tuple[str, ...] | None = None) -> tuple[Ran, Ran, bool]:
    """``args`` through the entry point as it is, then (or ``click_args``) with the fast path off;
    and whether the fast path answered by itself (the click application never ran)."""
    clicked: list[bool] = []
    real = app.main
    with monkeypatch.context() as m:
        m.setattr(app, "main", lambda argv=None: clicked.append(True) or real(argv))
        through = run_cli(*args, input=input)
    with monkeypatch.context() as m:
        m.setattr(fast, "run", lambda argv: None)
        alone = run_cli(*(args if click_args is None else click_args), input=input)
    return through, alone, not clicked


def masked(ran: Ran) -> tuple[int, str, str]:
    """Commit ids and a context's fence (random per rendering) taken out."""
    def mask(text: str) -> str:
        return re.sub(r"(MEMORY|END) \d+", r"\1 N", re.sub(r"\b[0-9a-f]{10,40}\b", "COMMIT", text))

    return ran.returncode, mask(ran.stdout), mask(ran.stderr)


# --- the matrix ---------------------------------------------------------------------------------
def search_words(rng: random.Random) -> list[str]:
    groups: list[list[str]] = []
    for option, values in (("--scope", SCOPES), ("--version", ["1.0", "2.0"]), ("--type", ["fact", "note"]),
                           ("--at", [AT, "2026-06-01"]), ("--limit", ["1", "3"]), ("-n", ["2"])):
        if rng.random() < 0.35:
            value = rng.choice(values)
            groups.append([f"{option}={value}"] if option.startswith("--") and rng.random() < 0.3 else [option, value])
    groups += [[flag] for flag in ("--inherit", "--explain", "--json") if rng.random() < 0.35]
    rng.shuffle(groups)
    query = rng.sample(WORDS, rng.randint(1, 3))
    if rng.random() < 0.3:
        return [*(w for g in groups for w in g), "--", *query]
    groups.insert(rng.randint(0, len(groups)), query)
    return [w for g in groups for w in g]


def context_words(rng: random.Random) -> list[str]:
    words = [word for scope in rng.sample(SCOPES, rng.randint(0, 2)) for word in ("--scope", scope)]
    if not words:
        words.append("--all-scopes")
    for option, values in (("--version", ["1.0"]), ("--budget", ["300", "4000"]), ("--format", ["xml", "json"]),
                           ("--system-share", ["0.3"]), ("--counter", ["heuristic"]), ("--at", [AT]),
                           ("--min-relevance", ["0", "0.5"])):
        if rng.random() < 0.35:
            words += [option, rng.choice(values)]
    words += ["--inherit"] if rng.random() < 0.3 else []
    return [*words, " ".join(rng.sample(WORDS, 2))]


@pytest.mark.parametrize("seed", range(4))
def test_search_and_context_print_what_click_prints(served: MemoryRepo, monkeypatch: pytest.MonkeyPatch,
                                                     asks: list[tuple[str, dict[str, Any]]], seed: int) -> None:
    rng = random.Random(seed)
    runs = [["search", *search_words(rng)] for _ in range(8)] + [["context", *context_words(rng)] for _ in range(4)]
    for words in runs:
        before = len(asks)
        through, alone, answered = both(monkeypatch, "-C", str(served.root), *words)
        assert masked(through) == masked(alone), words
        assert through.returncode == 0 and answered, (words, through.stderr)
        assert len(asks) == before + 2 and asks[-2] == asks[-1], words  # one request each, the same


REMEMBER = [["--scope", "user:U5", "--type", "fact", "--source", "conversation:C9", "--source-kind", "user"],
            ["--scope", "user:U5", "--type", "preference", "--key", "launch.day", "--source", "user:U5",
             "--source-kind", "user", "--tag", "a", "--tag", "b", "--confidence", "0.9"],
            ["--scope=user:U7", "--type", "note", "--source", "tool:ci", "--expires", "2027-01-01",
             "--description", "a note", "--reason", "why", "--idempotency-key", "k1"]]


def test_remember_prints_what_click_prints(prepared: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           asks: list[tuple[str, dict[str, Any]]]) -> None:
    """Each remember on twin repositories (each with its server): the fast path on one, click on
    the other; the same outputs, commits and requests."""
    fast_repo, click_repo = (MemoryRepo.open(copy_repo(prepared, tmp_path / n), ACTOR) for n in ("f", "c"))
    candidate = {"scope": "user:U5", "type": "fact", "source": "conversation:C2", "source_kind": "user",
                 "body": "The rocket is painted blue."}
    cases: list[tuple[list[str], str | None]] = [
        ([*REMEMBER[0], "--body", "The rocket launches on friday."], None),
        ([*REMEMBER[1], "--json", "--value", "Launches are on fridays."], None),
        ([*REMEMBER[2], "--body-file", "-"], "Notes are kept in English.\n"),
        (["--json", "-"], json.dumps(candidate)),
        (["-", "--tag", "x"], json.dumps({**candidate, "body": "The satellite is red."})),
        ([*REMEMBER[0], "--json", "--body", "The deploy key is sk-abcdefabcdefabcdefabcdefabcdef1234"], None),
        ([*REMEMBER[0], "--body", "The deploy key is sk-abcdefabcdefabcdefabcdefabcdef1234"], None),
    ]
    with _server(fast_repo), _server(click_repo):
        for words, stdin in cases:
            through, alone, answered = both(monkeypatch, "-C", str(fast_repo.root), "remember", *words, input=stdin,
                                            click_args=("-C", str(click_repo.root), "remember", *words))
            assert masked(through) == masked(alone), words
            refused = "sk-" in " ".join(words)
            assert through.returncode == (3 if refused else 0), through.stderr
            assert answered != refused, words  # a refusal is printed by click, from the reply it was handed
            assert asks[-2][1]["request"] == asks[-1][1]["request"], words
    assert len(asks) == 2 * len(cases)  # no write sent twice
    assert git(fast_repo.root, "log", "--format=%an %s") == git(click_repo.root, "log", "--format=%an %s")


# --- what is left to click ----------------------------------------------------------------------
@pytest.mark.parametrize("words", [
    ["search", "--help"], ["search", "-h"], ["--help"], ["-V"], ["search", "--nope", "rocket"], ["search"],
    ["search", "-n5", "rocket"], ["search", "-n", "0", "rocket"], ["search", "--limit", "x", "rocket"],
    ["search", "--type", "nope", "rocket"], ["search", "--at", "2026-06-01T00:00:00", "rocket"],
    ["search", "--json=1", "rocket"], ["search", "rocket", "--scope"], ["context", "a", "b"],
    ["context", "--budget", "nan", "x"], ["context", "--system-share", "inf", "x"],
    ["remember", "--set", "ticket=B1", "--scope", "user:U5", "--body", "x"],
    ["remember", "--body", "x", "--body-file", "-"],
    ["-C"], ["--actor"], ["--debug", "search", "--explain", "--nope"], ["ls"],
])
def test_words_it_does_not_read_as_click_are_left_to_click_unasked(
        served: MemoryRepo, monkeypatch: pytest.MonkeyPatch, asks: list[tuple[str, dict[str, Any]]],
        words: list[str]) -> None:
    assert fast.run(["-C", str(served.root), *words]) is None
    assert asks == []  # refused before asking: nothing to hand over
    through, alone, answered = both(monkeypatch, "-C", str(served.root), *words)
    assert masked(through) == masked(alone) and not answered


def test_no_server_a_dead_one_or_a_hung_one_is_asked_once(prepared: Path, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch,
                                                          asks: list[tuple[str, dict[str, Any]]]) -> None:
    import socket
    import subprocess

    repo = MemoryRepo.open(copy_repo(prepared, tmp_path / "alone"), ACTOR)
    words = ["-C", str(repo.root), "search", "--at", AT, "rocket"]
    direct = run_cli(*words, env={"MEMFS_NO_LIVE": "1"})
    folder = wire.run_dir()
    folder.mkdir(mode=0o700, exist_ok=True)
    record = repo.root / ".memfs" / wire.RECORD
    for state in ("none", "dead", "hung"):
        path = folder / f"{state}.sock"
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        if state != "none":
            listener.bind(str(path))
            pid = os.getpid()
            if state == "dead":
                listener.close()
                done = subprocess.Popen(["true"])
                done.wait()
                pid = done.pid
            else:
                listener.listen(4)
                monkeypatch.setattr(wire, "CLIENT_TIMEOUT", 0.2)
            record.write_text(json.dumps({"protocol": wire.PROTOCOL, "socket": str(path),
                                          "root": os.path.realpath(repo.root), "pid": pid}))
        before = len(asks)
        ran = run_cli(*words)
        listener.close()
        assert (ran.returncode, ran.stdout, ran.stderr) == (direct.returncode, direct.stdout, direct.stderr), state
        assert len(asks) == before + 1, state  # the click application took the fast path's answer
        record.unlink(missing_ok=True)


def test_several_roots_and_the_no_live_switch_are_left_to_click(
        served: MemoryRepo, prepared: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    other = copy_repo(prepared, tmp_path / "other")
    assert fast.run(["-C", str(served.root), "-C", str(other), "search", "rocket"]) is None
    config = tmp_path / "config.toml"
    config.write_text(f'[recall]\nroots = ["{served.root}", "{other}"]\n')
    monkeypatch.setenv("MEMFS_CONFIG", str(config))
    assert fast.run(["search", "rocket"]) is None
    assert fast.run(["-C", str(served.root), "search", "--at", AT, "rocket"]) == 0
    monkeypatch.setenv("MEMFS_NO_LIVE", "1")
    assert fast.run(["-C", str(served.root), "search", "rocket"]) is None
    monkeypatch.delenv("MEMFS_NO_LIVE")
    monkeypatch.setenv("GIT_AUTHOR_NAME", "x")
    assert fast.run(["-C", str(served.root), "remember", "--scope", "user:U5", "--body", "x"]) is None


def test_an_answer_the_streams_cannot_encode_is_left_to_click(served: MemoryRepo, monkeypatch: pytest.MonkeyPatch,
                                                               asks: list[tuple[str, dict[str, Any]]]) -> None:
    """On streams that cannot hold the answer (a Latin-1 terminal, a CJK hit), click ends the verb
    with its one error line and exit code; the fast path must not write half of it and end in a
    traceback, but hand the reply over (asked once)."""
    outputs = []
    for _ in range(2):
        out, err = (io.TextIOWrapper(io.BytesIO(), encoding="latin-1") for _ in range(2))
        monkeypatch.setattr(sys, "stdout", out)
        monkeypatch.setattr(sys, "stderr", err)
        if not outputs:
            assert fast.run(["-C", str(served.root), "search", "发布"]) is None
            assert len(asks) == 1
        with pytest.raises(SystemExit) as ended:
            app.main(["-C", str(served.root), "search", "发布"])
        out.flush()
        err.flush()
        outputs.append((ended.value.code, out.buffer.getvalue(), err.buffer.getvalue()))  # type: ignore[attr-defined]
    assert len(asks) == 2  # the click application took the reply it was handed, then asked itself
    assert outputs[0] == outputs[1] and outputs[0][0] == 3 and b"memfs: error: " in outputs[0][2]
    assert run_cli("-C", str(served.root), "search", "发布").returncode == 0


# --- the table and the printing -------------------------------------------------------------------
def test_the_table_is_the_one_the_declarations_make() -> None:
    assert fast_spec.TARGET.read_text(encoding="utf-8") == fast_spec.render(), (
        f"the verbs' declarations changed: run {fast_spec.REGENERATE}")


@pytest.mark.parametrize("param", [
    click.Option(["--must"], required=True), click.Argument(["pair"], nargs=2),
    click.Option(["--n"], type=click.IntRange(0, 5, clamp=True)), click.Option(["--p"], type=click.Path()),
])
def test_a_parameter_its_parser_does_not_read_as_click_is_refused_by_the_table(param: click.Parameter) -> None:
    """The parser reads no required option (click refuses one left out, the parser would send
    its default) and no argument of a fixed number of words but one (click gives a tuple):
    declaring one makes the table fail, as a clamped range or a path does, instead of the fast
    path reading it otherwise than click."""
    with pytest.raises(ValueError, match="the fast path does not"):
        fast_spec._param(param, None)


class _Stream(io.StringIO):
    def __init__(self, tty: bool) -> None:
        super().__init__()
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


@pytest.mark.parametrize("tty", [False, True])
@pytest.mark.parametrize("text", ["plain", "a \033[31mred\033[0m word", "\033[1;4mbold\033[m", "ä 的 \033]x", ""])
def test_the_fast_echo_writes_what_click_echo_writes(monkeypatch: pytest.MonkeyPatch, tty: bool, text: str) -> None:
    for err in (False, True):
        for nl in (False, True):
            written = []
            for echo in (printing.echo, click.echo):
                stream = _Stream(tty)
                monkeypatch.setattr(sys, "stderr" if err else "stdout", stream)
                echo(text, err=err, nl=nl)
                written.append(stream.getvalue())
            assert written[0] == written[1], (text, tty, err, nl)


@pytest.mark.parametrize(("words", "as_json"), [
    (["search", "rocket"], False), (["search", "--json", "rocket"], True),
    (["remember", "--json", "--scope", "user:U5", "--body", "x"], True),
    (["context", "--counter", "--json", "rocket"], False),  # context has no --json: a value
    (["--actor", "--json", "search", "x"], False),  # a global option's value, not the verb's
])
def test_ctrl_c_while_asking_ends_as_click_ends_it(served: MemoryRepo, monkeypatch: pytest.MonkeyPatch,
                                                   words: list[str], as_json: bool) -> None:
    def interrupted(*args: Any, **kwargs: Any) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(wire, "ask", interrupted)
    through, alone, answered = both(monkeypatch, "-C", str(served.root), *words)
    assert (through.returncode, through.stdout, through.stderr) == (alone.returncode, alone.stdout, alone.stderr)
    assert through.returncode == 130 and "interrupted" in through.stderr and answered
    assert ('"Interrupted"' in through.stdout) == as_json


class _Full(io.RawIOBase):
    """A stdout on a full disk: every write fails as ``/dev/full`` fails it."""

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        import errno

        raise OSError(errno.ENOSPC, "No space left on device")


@pytest.mark.parametrize(("debug", "json_flag"), [([], []), ([], ["--json"]), (["--debug"], [])])
def test_a_stdout_that_fails_ends_as_click_ends_it(served: MemoryRepo, monkeypatch: pytest.MonkeyPatch,
                                                    debug: list[str], json_flag: list[str]) -> None:
    """A write to stdout that fails (a full disk; not a closed pipe) ends the click application's
    verb with its one error line and exit code 3 (with ``--debug``, its traceback); the fast path,
    which already has the answer, must end the same way, not in a traceback."""
    from memfs import cli

    outputs = []
    for fast_run in (fast.run, lambda argv: None):
        out = io.TextIOWrapper(io.BufferedWriter(_Full()), encoding="utf-8")
        err = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
        with monkeypatch.context() as m:
            m.setattr(fast, "run", fast_run)
            m.setattr(sys, "stdout", out)
            m.setattr(sys, "stderr", err)
            try:
                cli.main([*debug, "-C", str(served.root), "search", *json_flag, "--at", AT, "rocket"])
                code: Any = 0
            except SystemExit as ended:
                code = ended.code
            except Exception as exc:  # what the interpreter would print: a traceback
                code = type(exc).__name__
        err.flush()
        outputs.append((code, err.buffer.getvalue()))  # type: ignore[attr-defined]
    assert outputs[0] == outputs[1]
    assert outputs[1][0] == ("OSError" if debug else 3) and (b"No space left" in outputs[1][1]) is not bool(debug)


def test_a_candidate_file_is_closed_once_read(tmp_path: Path) -> None:
    """``memfs remember CANDIDATE.json`` (the fast path and click read it alike) closes the file
    it read: no handle is left for the collector, which warns about it."""
    import gc
    import warnings

    path = tmp_path / "candidate.json"
    path.write_text('{"scope": "user:U5", "body": "x"}')
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert fast.record_mapping(str(path), "candidate_file", lambda: []) == {"scope": "user:U5", "body": "x"}
        gc.collect()
    assert [w.message for w in caught if issubclass(w.category, ResourceWarning)] == []
