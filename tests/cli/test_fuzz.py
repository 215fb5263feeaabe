"""Fuzzing every door (seeded, bounded): random files on disk, random file-tool requests, random
``remember`` JSON and random CLI argument values. For each: no traceback reaches the user, an
error is one line with the README's exit code, nothing invalid is committed, and the repository
stays valid. Budgets are small (derandomized, a few hundred cases in all) so the suite stays fast."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memfs import MemoryRepo
from memfs.agents.tools import COMMANDS
from tests.helpers import add, cli

FUZZ = settings(
    derandomize=True, database=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)

HOSTILE_TEXT = [
    "9" * 5000, "&a [*a]", "\x00", "\x07bell", "\ud800", "<<<<<<< ours\na\n=======\nb\n>>>>>>> theirs\n",
    "nan", "inf", "-Infinity", "x" * 300, "../../etc/passwd", "---", "\u2028", "{{{", "'", "[" * 100,
]
TEXT = st.one_of(st.sampled_from(HOSTILE_TEXT), st.text(max_size=30))
JSONISH = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), TEXT),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=8,
)
PATHS = st.one_of(
    st.sampled_from(
        ["/memories/notes/a.md", "/memories/facts/source.md", "/memories", "/memories/" + "n" * 300 + ".md",
         "/memories/../x.md", "/memories/.git/config", "/memories/notes/\x00.md", "/memories/system/persona.md"]
    ),
    TEXT,
)


def _one_line_error(done: Any) -> None:
    assert "Traceback" not in done.stderr, done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("memfs: error:")]
    assert len(errors) <= 1, done.stderr


def _still_valid(repo: MemoryRepo) -> None:
    """Every committed memory is valid (the fuzzed doors commit through the transaction)."""
    found = [p for p in repo.validate() if p.severity == "error"]
    assert not found, found
    assert not repo.store.git.git_dir.joinpath("index.lock").exists()


@pytest.fixture
def fuzzed(repo: MemoryRepo) -> MemoryRepo:
    add(repo, "facts/source.md")
    return repo


@settings(FUZZ, max_examples=120)
@given(request=st.fixed_dictionaries(
    {"command": st.one_of(st.sampled_from(COMMANDS), TEXT), "path": PATHS},
    optional={"file_text": TEXT, "old_str": TEXT, "new_str": TEXT, "insert_line": JSONISH, "insert_text": TEXT,
              "new_path": PATHS, "view_range": JSONISH, "fields": JSONISH, "reason": TEXT, "description": TEXT},
))
def test_fuzz_file_tools(fuzzed: MemoryRepo, request: dict[str, Any]):
    session = fuzzed.session("user:U5")
    result = session.tool(request)
    assert isinstance(result.ok, bool)
    if not result.ok:
        assert result.error and "\n" not in result.error
        assert "Traceback" not in result.output
    _still_valid(fuzzed)


@settings(FUZZ, max_examples=60)
@given(candidate=st.fixed_dictionaries(
    {"scope": st.sampled_from(["user:U5", "user:U6"]), "body": TEXT, "source": st.sampled_from(["conv:1", ""])},
    optional={"type": TEXT, "key": TEXT, "confidence": JSONISH, "extra": JSONISH, "tags": JSONISH,
              "source_kind": st.sampled_from(["user", "agent", "x"])},
))
def test_fuzz_remember_json(fuzzed: MemoryRepo, candidate: dict[str, Any]):
    data = json.dumps(candidate, allow_nan=True)
    done = cli(fuzzed, "remember", "-", input=data)
    _one_line_error(done)
    assert done.returncode in (0, 2, 3), done.stderr
    _still_valid(fuzzed)


@settings(FUZZ, max_examples=60)
@given(
    option=st.sampled_from(["--confidence", "--set", "--description", "--body", "--tag", "--depends-on", "--expires",
                            "--scope", "--status", "--version"]),
    value=TEXT,
)
def test_fuzz_cli_argument_values(fuzzed: MemoryRepo, option: str, value: str):
    if option == "--set":
        value = f"x={value}"
    done = cli(fuzzed, "write", "facts/source.md", option, value.replace("\x00", "\\0"))
    _one_line_error(done)
    assert done.returncode in (0, 2, 3), done.stderr
    _still_valid(fuzzed)


@settings(FUZZ, max_examples=40)
@given(data=st.binary(max_size=200) | TEXT.map(lambda t: f"---\n{t}\n---\nbody\n".encode("utf-8", "surrogatepass")))
def test_fuzz_files_on_disk_never_stop_the_others(fuzzed: MemoryRepo, data: bytes):
    """A hostile file on disk is reported; every command about the other files still works."""
    (fuzzed.root / "facts" / "hostile.md").write_bytes(data)
    for args in (("validate",), ("ls",), ("show", "facts/source.md"), ("search", "source"),
                 ("context", "--scope", "user:U5", "source"), ("write", "facts/source.md", "--description", "d")):
        done = cli(fuzzed, *args)
        _one_line_error(done)
        # search and context may fail (one line, exit 3) on a known Whoosh assertion when many
        # rapid catch-ups commit segments (create_compound_file); not about the hostile file
        assert done.returncode in ((0, 1, 3) if args[0] in ("search", "context") else (0, 1)), (args, done.stderr)


HOSTILE_CLI = [
    ("write", "facts/source.md", "--confidence", "nan"),
    ("write", "facts/source.md", "--confidence", "inf"),
    ("write", "facts/source.md", "--set", "x=&a [*a]"),
    ("write", "facts/source.md", "--set", "x=" + "9" * 5000),
    ("show", "facts/" + "n" * 300 + ".md"),
    ("tool", "--scope", "user:U5"),
    ("remember", "-"),
]
HOSTILE_STDIN = {
    "tool": "[" * 3000 + "]" * 3000,
    "remember": '{"scope": "user:U5", "body": "\\ud800", "source": "conv:1"}',
}


@pytest.mark.parametrize("args", HOSTILE_CLI, ids=lambda a: " ".join(a)[:40])
def test_hostile_cli_values_are_one_line(fuzzed: MemoryRepo, args: tuple[str, ...]):
    done = cli(fuzzed, *args, input=HOSTILE_STDIN.get(args[0]))
    _one_line_error(done)
    assert done.returncode in (2, 3), done.stderr
    _still_valid(fuzzed)


def test_nothing_invalid_is_committed_by_any_door(fuzzed: MemoryRepo, tmp_path):
    session = fuzzed.session("user:U5")
    marker = "<<<<<<< ours\na\n=======\nb\n>>>>>>> theirs\n"
    result = session.tool({"command": "str_replace", "path": "/memories/facts/source.md",
                           "old_str": "facts/source.md\n", "new_str": marker})
    assert not result.ok and "conflict markers" in (result.error or "")
    body = tmp_path / "nul.txt"
    body.write_bytes(b"hello\x00world\n")
    done = cli(fuzzed, "write", "facts/source.md", "--body-file", str(body))
    assert done.returncode == 3 and "NUL" in done.stderr
    remembered = json.dumps({"scope": "user:U5", "body": "bell\x07", "source": "conv:1", "source_kind": "user",
                             "type": "fact", "key": "k"})
    done = cli(fuzzed, "remember", "-", input=remembered)
    assert done.returncode == 3 and "control byte" in done.stderr
    _still_valid(fuzzed)


def test_validate_reports_binary_content(fuzzed: MemoryRepo):
    (fuzzed.root / "facts" / "bin.md").write_bytes(b"---\nid: bin\n---\n\x00\x01\x02")
    done = cli(fuzzed, "validate")
    assert done.returncode == 1 and "facts/bin.md" in done.stdout + done.stderr and "NUL" in done.stdout + done.stderr
