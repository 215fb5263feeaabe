"""Several memory repositories, one recall: every door (CLI search, CLI context, the library's
search and context, MCP's search and context) x the cases of the issue (a user's, a team's and an
organisation's repositories; a root missing; a root that is not a memory repository; a root
given twice; two roots holding the same scope and path). One set of three repositories serves
every case (built once per module from the session's template; the searches are read-only).

Each door reports what it recalled as ``(root label, path)`` pairs and which roots failed, so the
matrix asserts the same rule at every door: each root answers with its own rules (another
scope's memory never comes back), hits are labelled by root and never merged across roots, a
failed root is named while the others answer, and a root given twice is read once.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import pytest

from memfs import MemoryRepos
from memfs.agents.verbs import Context
from memfs.errors import UsageError
from memfs.ops.verbs.lifecycle import Remember
from tests.helpers import commit_all, copy_repo, memory_text, run_cli, write_file

SCOPE = "user:U5"
QUERY = "release notes checklist"
T = "2026-06-01T00:00:00Z"
#: root -> path -> (scope, body): the same path and scope in team and org on purpose.
FILES = {
    "user": {"prefs/release-language.md": (SCOPE, "Write release notes in English."),
             "facts/other-user.md": ("user:U9", "Release notes checklist of another user.")},
    "team": {"facts/release-day.md": (SCOPE, "Release notes go out on Fridays."),
             "facts/shared.md": (SCOPE, "The release checklist is shared.")},
    "org": {"facts/release-review.md": (SCOPE, "Release notes need a legal review."),
            "facts/shared.md": (SCOPE, "The release checklist is shared.")},
}


@pytest.fixture(scope="module")
def roots(tmp_path_factory: pytest.TempPathFactory, template_repo: Path) -> Path:
    """``user``, ``team`` and ``org`` memory repositories, ``plain`` (a folder, no repository) and
    ``badconf`` (a memory repository whose ``.memfs.toml`` does not parse)."""
    base = tmp_path_factory.mktemp("roots")
    for name, files in FILES.items():
        root = copy_repo(template_repo, base / name)
        for rel, (scope, body) in files.items():
            write_file(root / rel, memory_text(body, scope=scope, source=f"test:{name}", created=T))
        commit_all(root, "memories")
    (base / "plain").mkdir()
    (copy_repo(template_repo, base / "badconf") / ".memfs.toml").write_text("[recall\n")
    return base


def expected(names: list[str]) -> set[tuple[str, str]]:
    return {(name, rel) for name in names for rel, (scope, _) in FILES.get(name, {}).items() if scope == SCOPE}


@dataclass(frozen=True)
class Case:
    given: list[str]
    answer: list[str]
    failed: list[str]


CASES = {
    "user-team-org": Case(["user", "team", "org"], ["user", "team", "org"], []),
    "one-missing": Case(["user", "missing", "org"], ["user", "org"], ["missing"]),
    "not-a-repository": Case(["plain", "team"], ["team"], ["plain"]),
    "unreadable-config": Case(["badconf", "org"], ["org"], ["badconf"]),
    "given-twice": Case(["user", "team", "user", "user/prefs"], ["user", "team"], []),
    "none-answers": Case(["missing", "plain"], [], ["missing", "plain"]),
}


@dataclass(frozen=True)
class Seen:
    recalled: list[tuple[str, str]]
    failed: list[str]


def _names(errors: list[dict[str, Any]]) -> list[str]:
    return [Path(e["root"]).name for e in errors]


def lib_search(paths: list[Path]) -> Seen:
    found = MemoryRepos.open(paths).session(SCOPE).search(QUERY, at=_at())
    return Seen([(h.root.label, h.path) for h in found.hits], [Path(e.root).name for e in found.errors])


def lib_context(paths: list[Path]) -> Seen:
    built = MemoryRepos.open(paths).session(SCOPE).context(QUERY, scope=None, at=_at())
    return Seen([(root.label, b.path) for root, part in zip(built.roots, built.parts, strict=True)
                 for b in part.blocks if b.kind == "recalled"], [Path(e.root).name for e in built.errors])


def _cli(paths: list[Path], *args: str) -> tuple[dict[str, Any], Any]:
    ran = run_cli(*[a for p in paths for a in ("-C", str(p))], *args, "--scope", SCOPE, "--at", T)
    data = json.loads(ran.stdout)
    failed = _names(data["errors"])
    assert ran.returncode == (0 if not failed else 1 if data["roots"] else 3), ran.stderr
    assert all("memfs: error: " in ran.stderr and name in ran.stderr for name in failed)
    return data, ran


def cli_search(paths: list[Path]) -> Seen:
    data, _ = _cli(paths, "search", QUERY, "--json")
    return Seen([(h["root_label"], h["path"]) for h in data["hits"]], _names(data["errors"]))


def cli_context(paths: list[Path]) -> Seen:
    data, _ = _cli(paths, "context", QUERY, "--format", "json")
    return Seen([(c["label"], m["path"]) for c in data["contexts"] for m in c["memories"]
                 if not m["path"].startswith("system/")], _names(data["errors"]))


def _mcp(paths: list[Path], tool: str, **arguments: Any) -> Any:
    from memfs.mcp_server import build_roots_server

    server = build_roots_server(MemoryRepos.open(paths).session(SCOPE, actor="agent:mcp-test"))
    result = anyio.run(server.call_tool, tool, {**arguments, "at": T})
    structured = getattr(result, "structured_content", None)
    if structured is not None:
        return structured.get("result", structured)
    return "\n".join(getattr(c, "text", "") for c in getattr(result, "content", result))


def mcp_search(paths: list[Path]) -> Seen:
    data = _mcp(paths, "memory_search", query=QUERY)
    return Seen([(h["root_label"], h["path"]) for h in data["hits"]], _names(data["errors"]))


def mcp_context(paths: list[Path]) -> Seen:
    data = json.loads(_mcp(paths, "memory_context", task=QUERY, format="json"))
    return Seen([(c["label"], m["path"]) for c in data["contexts"] for m in c["memories"]
                 if not m["path"].startswith("system/")], _names(data["errors"]))


def _at() -> Any:
    from memfs.format.times import given_time

    return given_time(T, "at")


DOORS: dict[str, Callable[[list[Path]], Seen]] = {
    "lib-search": lib_search, "lib-context": lib_context, "cli-search": cli_search, "cli-context": cli_context,
    "mcp-search": mcp_search, "mcp-context": mcp_context,
}


@pytest.mark.parametrize("case", CASES.values(), ids=list(CASES))
@pytest.mark.parametrize("door", DOORS.values(), ids=list(DOORS))
def test_every_door_recalls_each_root_by_its_own_rules_and_names_the_failed(
    roots: Path, door: Callable[[list[Path]], Seen], case: Case
) -> None:
    seen = door([roots / name for name in case.given])
    assert set(seen.recalled) == expected(case.answer)
    assert len(seen.recalled) == len(set(seen.recalled))
    assert seen.failed == case.failed


def test_one_root_through_the_several_roots_path_is_exactly_the_one_root_result(roots: Path) -> None:
    from memfs import MemoryRepo

    one = MemoryRepo.open(roots / "team").session(SCOPE)
    alone = one.search(QUERY, at=_at())
    through = MemoryRepos.open([roots / "team"]).session(SCOPE).search(QUERY, at=_at())
    assert [h.to_json() for h in alone.hits] == [
        {k: v for k, v in h.to_json().items() if k not in ("root", "root_label")} for h in through.hits]
    single = one.context(QUERY, scope=None, at=_at())
    several = MemoryRepos.open([roots / "team"]).session(SCOPE).context(QUERY, scope=None, at=_at())
    assert several.parts[0].to_json() == single.to_json()
    assert several.render() == several.parts[0].render()
    cli_one = json.loads(run_cli("-C", str(roots / "team"), "search", QUERY, "--at", T, "--json").stdout)
    cli_through = json.loads(run_cli("-C", str(roots / "team"), "-C", str(roots / "team" / "facts"), "search", QUERY,
                                     "--at", T, "--json").stdout)
    assert [{k: v for k, v in h.items() if k not in ("root", "root_label")} for h in cli_through["hits"]] == \
        cli_one["hits"]


def test_coverage_ranks_first_and_each_roots_own_order_is_kept(roots: Path) -> None:
    paths = [roots / "user", roots / "team", roots / "org"]
    merged = MemoryRepos.open(paths).session(SCOPE).search(QUERY, at=_at())
    coverages = [int(h.hit.score) for h in merged.hits]
    assert coverages == sorted(coverages, reverse=True)
    for root, found in zip(merged.roots, merged.results, strict=True):
        assert [h.path for h in merged.hits if h.root == root] == [h.path for h in found.hits]
    assert [h.root.label for h in merged.hits if h.path == "facts/shared.md"] == ["team", "org"]


def test_the_library_over_several_roots_takes_what_one_root_takes() -> None:
    import inspect

    from memfs import MemoryRepo

    for name in ("search", "context"):
        assert inspect.signature(getattr(MemoryRepos, name)) == inspect.signature(getattr(MemoryRepo, name))


def test_writes_take_one_root_at_every_door(roots: Path) -> None:
    from memfs.mcp_server import build_roots_server, tool_names

    paths = [roots / "user", roots / "team"]
    ran = run_cli("-C", str(paths[0]), "-C", str(paths[1]), "remember", "--body", "x", "--source", "test:x")
    assert ran.returncode == 2 and "acts on one memory repository" in ran.stderr and "team" in ran.stderr
    with pytest.raises(UsageError, match="acts on one memory repository"):
        MemoryRepos.open(paths).run(Remember({"body": "x"}))
    assert tool_names(build_roots_server(MemoryRepos.open(paths).session(SCOPE))) == ["memory_search",
                                                                                    "memory_context"]
    listed = run_cli("-C", str(paths[0]), "-C", str(roots / "missing"), "mcp", "--scope", SCOPE, "--list-tools")
    assert json.loads(listed.stdout) == ["memory_search", "memory_context"] and "missing" in listed.stderr
    unbound = run_cli("-C", str(paths[0]), "-C", str(paths[1]), "mcp", "--list-tools")
    assert unbound.returncode == 2 and "--scope" in unbound.stderr


def test_configured_roots_are_read_when_no_root_is_given(roots: Path, tmp_path: Path) -> None:
    relative = os.path.relpath(roots / "org", tmp_path)
    config = write_file(tmp_path / "config.toml", f'[recall]\nroots = ["{roots / "user"}", "{relative}"]\n')
    ran = run_cli("search", QUERY, "--scope", SCOPE, "--json", cwd=tmp_path, env={"MEMFS_CONFIG": str(config)})
    assert {h["root_label"] for h in json.loads(ran.stdout)["hits"]} == {"user", "org"}
    config.write_text("[recall]\nroots = \"~/memory\"\n")
    ran = run_cli("search", QUERY, cwd=tmp_path, env={"MEMFS_CONFIG": str(config)})
    assert ran.returncode == 3 and str(config) in ran.stderr and "[recall] roots" in ran.stderr


def test_a_bad_request_is_a_usage_error_not_a_failed_root(roots: Path) -> None:
    ran = run_cli("-C", str(roots / "user"), "-C", str(roots / "team"), "search", QUERY, "--scope", "not a scope")
    assert ran.returncode == 2 and ran.stderr.count("memfs: error:") == 1


def test_context_over_several_roots_stays_within_the_budget(roots: Path) -> None:
    paths = [roots / "user", roots / "team", roots / "org", roots / "missing"]
    for fmt in ("markdown", "xml", "json"):
        built = MemoryRepos.open(paths).session(SCOPE).context(QUERY, scope=None, budget=1500, format=fmt, at=_at())
        op = Context(QUERY, scope=None, budget=1500, format=fmt)
        from memfs.policy.tokens import counter

        assert counter(op.counter)(built.render()) <= 1500
        assert "missing" in built.render()
