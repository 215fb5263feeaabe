"""The write gate and the secret scanner (pure): each secret kind, near-misses that must pass,
and the source / preference / one-off rules."""

from __future__ import annotations

import pytest

from memfs.errors import MemfsError
from memfs.policy.candidate import Candidate, from_mapping
from memfs.policy.gate import check, downgrades
from memfs.policy.secrets_scan import scan
from tests.helpers import PREFERENCE, candidate
from tests.unit import gate_phrases

PREFERENCE_FIELDS = {k: v for k, v in PREFERENCE.items() if k != "type"}

# A syntactically valid JWT (header {"alg":"HS256","typ":"JWT"}, payload {"sub":"1234567890"}).
JWT = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"

SECRETS = [
    ("my password is hunter2!", "secret/password"),
    ("password = 'Tr0ub4dor&3'", "secret/password"),
    ("The wifi passphrase: c0rrect-horse", "secret/password"),
    ("我的密码是 abc12345", "secret/password"),
    ("Deploy with password hunter2hunter2", "secret/password"),
    ("token-Zk3LmQ9xR2vT8wY5pA7s", "secret/api-key"),
    ("access_token=a1b2c3d4e5f6a7b8c9d0", "secret/api-key"),
    ("log in as admin, pwd Xk29!mq", "secret/password"),
    ("use key AKIAIOSFODNN7EXAMPLE for S3", "secret/aws-access-key"),
    ("token ghp_abcdefghijklmnopqrstuvwxyz0123456789 works", "secret/github-token"),
    ("github_pat_11ABCDEFG0abcdefghijklmnopqrstuvwxyz", "secret/github-token"),
    ("glpat-abcdefghijklmnopqrst", "secret/gitlab-token"),
    ("xoxb-123456789012-1234567890123-abcdefghijABCDEFGHIJklmn", "secret/slack-token"),
    ("sk_live_abcdefghijklmnopqrstuvwx", "secret/stripe-key"),
    ("sk-proj-abcdefghijklmnopqrstuvwxyz12", "secret/openai-key"),
    ("sk-ant-api03-abcdefghijklmnopqrstuvwxyz", "secret/anthropic-key"),
    ("AIzaSyA1234567890abcdefghijklmnopqrstuv", "secret/google-api-key"),
    ("hf_abcdefghijklmnopqrstuvwxyzABCDEFGH", "secret/huggingface-token"),
    ("api_key=abcd1234efgh5678ijkl", "secret/api-key"),
    ("Authorization: Bearer abcdef0123456789abcdef", "secret/api-key"),
    ("-----BEGIN OPENSSH PRIVATE KEY-----", "secret/private-key"),
    ("-----BEGIN RSA PRIVATE KEY-----", "secret/private-key"),
    (f"session {JWT}", "secret/jwt"),
    ("db is postgres://bob:s3cret@db.example.com:5432/app", "secret/credentials-in-url"),
    ("mongodb+srv://admin:Pa55word@cluster0.example.net", "secret/credentials-in-url"),
    ("card 4111 1111 1111 1111 exp 12/29", "secret/payment-card"),
    ("card 5555-5555-5555-4444", "secret/payment-card"),
    ("amex 378282246310005", "secret/payment-card"),
    ("身份证 11010519491231002X", "secret/cn-resident-id"),
]

NEAR_MISSES = [
    "the password is stored in the team vault",
    "Reset your password: click the link in the email",
    "We changed the password policy last week",
    "The password reset flow sends a link",
    "See facts/token-rotation-runbook-v2.md and token-expiry-notes-2024",
    "password requirements:12 chars",
    "The password field for user42 is hidden",
    "PIN code 4432 opens the shed",
    "postgres://db.example.com:5432/app has no credentials in it",
    "postgres://user:${DB_PASSWORD}@db/app",
    "postgres://user:****@db/app",
    "https://example.com/a:b",
    "card 4111 1111 1111 1112 fails the Luhn check",
    "order number 1234567812345678",
    "call me at +86 138 0013 8000",
    "ID 110105194912310021 has a wrong check digit",
    "ID 110105194913310026 has no such birth date",
    "the build id is 7f3a9b2c1d4e5f6a7b8c9d0e1f2a3b4c",
    "git commit 3211de64009bd0e2c1f4d6a1f1b1c2d3e4f5a6b7",
    "token economy, tokenization, access token expiry is 15 minutes",
    "sk-learn and scikit-learn are the same library",
    "I love my PIN-up posters",
    "Melanie ran 10 km in 52:31 and her best is 49:58",
    "the meeting is 2026-09-20T10:00:00Z in room 4111",
    "-----BEGIN PUBLIC KEY-----",
    "密码学是一门学科",
    "U5 asked on 2026-09-20 that P8 release notes be written in Chinese.",
]


@pytest.mark.parametrize(("text", "rule"), SECRETS)
def test_each_secret_kind_is_found_with_its_position(text: str, rule: str) -> None:
    found = scan(text)
    assert [f.rule for f in found] == [rule], found
    finding = found[0]
    assert finding.line == 1 and finding.column == finding.start + 1
    assert text[finding.start : finding.end].strip()
    secret = text[finding.start : finding.end]
    assert secret not in finding.preview or len(secret) <= 1


@pytest.mark.parametrize("text", NEAR_MISSES)
def test_near_misses_pass(text: str) -> None:
    assert scan(text) == []


def test_position_on_a_later_line() -> None:
    text = "first line\nsecond: AKIAIOSFODNN7EXAMPLE\n"
    [finding] = scan(text)
    assert (finding.line, finding.column) == (2, 9)
    assert text[finding.start : finding.end] == "AKIAIOSFODNN7EXAMPLE"


def _rules(candidate: Candidate) -> list[str]:
    return [r.rule for r in check(candidate)]


def test_a_user_statement_passes() -> None:
    assert _rules(candidate()) == []


def test_no_source_is_refused() -> None:
    assert _rules(candidate(source="  ")) == ["no-source"]


@pytest.mark.parametrize("kind", ["tool", "document", "agent", None])
def test_only_the_user_sets_a_preference(kind: str | None) -> None:
    [refusal] = check(candidate(source_kind=kind, body="use English"))
    assert refusal.rule == "untrusted-preference" and refusal.forceable
    assert refusal.field == "source_kind"


def test_a_tool_may_record_a_fact() -> None:
    assert _rules(candidate(type="fact", source_kind="tool", body="B17 was closed as fixed")) == []


def test_changing_an_existing_preference_counts_even_as_another_type() -> None:
    from memfs.format.parse import parse

    existing = parse(
        "prefs/x.md",
        b"---\nid: x\ntype: preference\nscope: user:U5\nsource: c\nstatus: active\n---\nChinese\n",
    )
    rules = [r.rule for r in check(candidate(type="fact", source_kind="tool"), existing)]
    assert rules == ["untrusted-preference"]


@pytest.mark.parametrize(
    "body",
    [
        "translate this to English",
        "Just this once, answer in French",
        "这次用英文写",
        "for this email use a formal tone",
    ],
)
def test_one_off_requests_are_not_preferences(body: str) -> None:
    [refusal] = check(candidate(body=body))
    assert refusal.rule == "one-off-preference" and refusal.forceable
    assert refusal.field == "body" and refusal.line == 1
    assert body[refusal.start : refusal.end]


def test_one_off_flag_and_lasting_wording() -> None:
    assert _rules(candidate(one_off=True)) == ["one-off-preference"]
    assert _rules(candidate(body="From now on, translate this kind of note to English")) == []
    assert _rules(candidate(body="translate this to English", expires="2026-12-31T00:00:00Z")) == []
    episode = candidate(type="episode", body="Trigger: U5 asked in C9.\n\ntranslate this to English",
                        expires="2026-12-31T00:00:00Z")
    assert _rules(episode) == []


def test_secrets_are_found_in_every_text_field_and_are_not_forceable() -> None:
    refusals = check(candidate(description="pw: hunter2!", tags=["ghp_abcdefghijklmnopqrstuvwxyz0123456789"]))
    assert {(r.rule, r.field) for r in refusals} == {
        ("secret/password", "description"),
        ("secret/github-token", "tags"),
    }
    assert not any(r.forceable for r in refusals)
    assert "hunter2" not in " ".join(str(r) for r in refusals)


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"body": "x"}, "scope"),
        ({"scope": "user:U5", "body": ""}, "body"),
        ({"scope": "user:U5", "body": "x", "type": "opinion"}, "type"),
        ({"scope": "user:U5", "body": "x", "confidence": 2}, "confidence"),
        ({"scope": "user:U5", "body": "x", "expires": "next week"}, "expires"),
        ({"scope": "user:U5", "body": "x", "version": 1.1}, "version"),
        ({"scope": "user:U5", "body": "x", "expected_revision": "1"}, "expected_revision"),
        ({"scope": "user:U5", "body": "x", "depends_on": ["../x.md"]}, "depends_on"),
        ({"scope": "user U5", "body": "x"}, "scope"),
    ],
)
def test_bad_candidates_name_the_field(data: dict, field: str) -> None:
    with pytest.raises(MemfsError, match=f"'{field}'"):
        from_mapping(data)


def test_candidate_aliases_and_extra_fields() -> None:
    candidate = from_mapping({"scope": "user:U5", "value": "v", "ticket": "B17", "idempotency": "k"})
    assert candidate.body == "v" and candidate.idempotency_key == "k"
    assert dict(candidate.extra) == {"ticket": "B17"}


# --- the phrase set: one-off requests in English and Chinese, and near-misses -------------------
@pytest.mark.parametrize("body", gate_phrases.ONE_OFF_EN + gate_phrases.ONE_OFF_ZH)
def test_the_phrase_set_one_off_requests_are_refused(body: str) -> None:
    [refusal] = check(candidate(body=body))
    assert refusal.rule == "one-off-preference" and refusal.forceable, body
    assert body[refusal.start : refusal.end] and "--force" in refusal.fix and "person" in refusal.fix


@pytest.mark.parametrize("body", gate_phrases.NEAR_MISS_EN + gate_phrases.NEAR_MISS_ZH)
def test_the_phrase_set_near_misses_pass(body: str) -> None:
    assert _rules(candidate(body=body)) == [], body


def test_the_phrase_set_is_broad() -> None:
    assert len(gate_phrases.ONE_OFF_EN) >= 30 and len(gate_phrases.ONE_OFF_ZH) >= 20
    assert len(gate_phrases.NEAR_MISS_EN) >= 20 and len(gate_phrases.NEAR_MISS_ZH) >= 15
    for must in ("just this once", "for the next email", "这次", "临时"):
        assert any(must in p.lower() for p in gate_phrases.ONE_OFF_EN + gate_phrases.ONE_OFF_ZH), must
    for must in ("from now on", "以后"):
        assert any(must in p.lower() for p in gate_phrases.NEAR_MISS_EN + gate_phrases.NEAR_MISS_ZH), must


# --- episodes, summaries, and single events turned into rules ------------------------------------
def test_an_episode_needs_its_trigger_and_an_expiry() -> None:
    bare = candidate(type="episode", source_kind="tool", body="PDF export timed out on CI.")
    assert _rules(bare) == ["episode-without-trigger", "episode-without-expiry"]
    for body in ("## Trigger\n\n- runner re-imaged\n\nPDF export timed out.", "触发条件：字体缓存为空\n导出超时"):
        assert _rules(candidate(type="episode", body=body, expires="2027-01-01")) == []
    fielded = from_mapping({**PREFERENCE_FIELDS, "type": "episode", "body": "PDF export timed out.",
                            "trigger": ["runner ci-07 re-imaged"], "expires": "2027-01-01"})
    assert _rules(fielded) == []
    refusals = check(bare)
    assert all(r.forceable and "--force" in r.fix for r in refusals)


def test_a_summary_needs_an_expiry() -> None:
    [refusal] = check(candidate(type="summary", source_kind="agent", body="Thread T1: ship B17."))
    assert refusal.rule == "summary-without-expiry" and refusal.field == "expires" and refusal.forceable
    assert _rules(candidate(type="summary", source_kind="agent", body="x", expires="2027-01-01")) == []


@pytest.mark.parametrize(
    ("kind", "type_", "body", "roots", "held"),
    [
        ("tool", "procedure", "Restart the runner before the PDF job.", {"ci:4821"}, True),
        ("agent", "note", "Never use pdf-export on CI.", set(), True),
        ("tool", "fact", "Don't raise the timeout.", {"ci:4821"}, True),
        ("agent", "fact", "总是先清空字体缓存。", set(), True),
        ("tool", "procedure", "Restart the runner first.", {"ci:4821", "ci:4907"}, False),  # two events
        ("user", "procedure", "Never use pdf-export on CI.", {"conversation:C1"}, False),  # the user's rule
        ("tool", "fact", "B17 was closed as fixed.", {"tracker:B17"}, False),  # not a rule
        ("tool", "episode", "Never again: the export timed out.", {"ci:4821"}, False),  # an episode is one event
    ],
)
def test_a_rule_from_one_observation_is_held_for_review(
    kind: str, type_: str, body: str, roots: set[str], held: bool
) -> None:
    found = downgrades(candidate(type=type_, source_kind=kind, body=body), frozenset(roots))
    assert [r.rule for r in found] == (["single-event-rule"] if held else [])
    if held:
        assert "needs_review" in found[0].message and "memfs reinstate" in found[0].fix and found[0].forceable
