"""``memfs eval CASES`` (#13, item 5): the shipped cases on example_repo pass, and bad cases files
get an error naming the case and the field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memfs import MemoryRepo
from tests.helpers import run_cli

CASES = Path(__file__).resolve().parents[2] / "example_repo" / "eval-cases.yaml"


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return MemoryRepo.demo(tmp_path_factory.mktemp("eval") / "demo").root


def test_the_shipped_cases_pass_on_the_example(demo: Path) -> None:
    ran = run_cli("-C", str(demo), "eval", str(CASES), "--json")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    report = json.loads(ran.stdout)
    assert report["passed"] and report["cases_ok"] == report["cases_total"] >= 8
    assert report["hit_rate"] == 1.0 and report["wrong_injection_rate"] == 0.0
    assert report["cross_scope_leakage"] == 0
    assert report["tokens_injected"] <= report["tokens_all_eligible"]
    assert report["deletion_propagation"]["still_returned"] == []  # its seconds are reported, never asserted
    assert report["writes"]["accepted_by_op"]["create"] >= 8
    table = run_cli("-C", str(demo), "eval", str(CASES), "--no-deletion")
    assert table.returncode == 0 and "cross-scope leakage            0 (must be 0)" in table.stdout


def test_a_failing_case_exits_1_and_is_named(demo: Path, tmp_path: Path) -> None:
    cases = tmp_path / "c.jsonl"
    cases.write_text(json.dumps({"name": "v1-leaks", "task": "payments request timeout",
                                 "scope": "project:P8/service:payments-api", "at": "2026-09-25T00:00:00Z",
                                 "forbid": ["config/payments-v1-timeout.md"]}) + "\n")
    ran = run_cli("-C", str(demo), "eval", str(cases), "--no-deletion", "--json")
    assert ran.returncode == 1
    report = json.loads(ran.stdout)
    assert report["cases"][0]["wrong"] == {"config/payments-v1-timeout.md": "conflicting"}
    assert report["wrong_injection_by_cause"]["conflicting"] == 1


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("cases:\n  - name: a\n    task: [unclosed\n", "malformed YAML"),
        ("- name: nosk\n  task: t\n  at: 2026-09-25T00:00:00Z\n", "case 'nosk', field scope: missing"),
        ("- name: notask\n  scope: project:P8\n  at: 2026-09-25T00:00:00Z\n", "case 'notask', field task: missing"),
        ("- name: noat\n  task: t\n  scope: project:P8\n", "case 'noat', field at: missing"),
        ("- name: ghost\n  task: t\n  scope: project:P8\n  at: 2026-09-25T00:00:00Z\n  expect: [facts/nope.md]\n",
         "case 'ghost', field expect: facts/nope.md: no such committed memory"),
        ("- name: cause\n  task: t\n  scope: project:P8\n  at: 2026-09-25T00:00:00Z\n"
         "  forbid: {facts/b17-status.md: stale}\n", "case 'cause', field forbid"),
        ("- task: t\n  scope: project:P8\n  at: 2026-09-25T00:00:00Z\n  colour: red\n",
         "line 1, case 'case 1', field colour: unknown field"),
        ("cases:\n  - task: t\n    scope: project:P8\n    at: 2026-09-25T00:00:00Z\n  - task: u\n    colour: red\n",
         "line 5, case 'case 2', field colour: unknown field"),
    ],
)
def test_bad_cases_files_name_the_case_and_field(demo: Path, tmp_path: Path, text: str, message: str) -> None:
    cases = tmp_path / "cases.yaml"
    cases.write_text(text)
    ran = run_cli("-C", str(demo), "eval", str(cases))
    assert ran.returncode == 2, ran.stderr
    assert message in ran.stderr and len(ran.stderr.strip().splitlines()) == 1


def test_bad_jsonl_line_is_named(demo: Path, tmp_path: Path) -> None:
    cases = tmp_path / "cases.jsonl"
    cases.write_text('{"task": "t"\n')
    ran = run_cli("-C", str(demo), "eval", str(cases))
    assert ran.returncode == 2 and "line 1 is not JSON" in ran.stderr
    cases.write_text('\n{"task": "t", "scope": "project:P8", "at": "2026-09-25T00:00:00Z", "speaker": "me"}\n')
    ran = run_cli("-C", str(demo), "eval", str(cases))
    assert ran.returncode == 2 and "line 2, case 'case 1', field speaker: unknown field" in ran.stderr


UTTERANCES = Path(__file__).resolve().parents[2] / "bench" / "gate_utterances.jsonl"


def test_the_gate_is_measured_on_a_labelled_file(demo: Path, tmp_path: Path) -> None:
    ran = run_cli("-C", str(demo), "eval", "--gate", str(UTTERANCES), "--json")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    gate = json.loads(ran.stdout)["gate"]
    assert gate["precision"] >= 0.95 and gate["recall"] >= 0.95 and gate["utterances"] >= 60
    assert {"en", "zh"} <= set(gate["by_lang"])
    wrong = tmp_path / "wrong.jsonl"  # a one-off request labelled as a lasting one: the gate disagrees
    wrong.write_text(json.dumps({"text": "Reply to this thread in French.", "lang": "en", "label": "store"}) + "\n")
    failed = run_cli("-C", str(demo), "eval", "--gate", str(wrong))
    assert failed.returncode == 1 and "store -> refuse: Reply to this thread" in failed.stdout
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"text": "x", "lang": "en", "label": "store"}\n{"text": "y", "lang": "en", "label": "store", '
                   '"speaker": "me"}\n')
    refused = run_cli("-C", str(demo), "eval", "--gate", str(bad))
    assert refused.returncode == 2 and "line 2, field speaker: unknown field" in refused.stderr
    assert run_cli("-C", str(demo), "eval").returncode == 2  # neither cases nor --gate
