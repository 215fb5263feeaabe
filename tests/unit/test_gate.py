"""The write gate and the secret scanner (pure): each secret kind, near-misses that must pass,
and the source / preference / one-off rules."""

from __future__ import annotations

import pytest

from memfs.errors import MemfsError
from memfs.policy.candidate import Candidate, from_mapping
from memfs.policy.gate import check
from memfs.policy.secrets_scan import scan
from tests.helpers import candidate

# A syntactically valid JWT (header {"alg":"HS256","typ":"JWT"}, payload {"sub":"1234567890"}).
JWT = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"

SECRETS = [
    ("my password is hunter2!", "secret/password"),
    ("password = 'Tr0ub4dor&3'", "secret/password"),
    ("The wifi passphrase: c0rrect-horse", "secret/password"),
    ("我的密码是 abc12345", "secret/password"),
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
    assert _rules(candidate(type="episode", body="translate this to English")) == []


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
