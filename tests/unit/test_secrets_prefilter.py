"""The secret scanner's literal prefilter drops no rule that could match.

For ASCII text, rules whose required strings (read off each pattern's parse tree) do not occur are
skipped before their whole-text search. Texts holding a match of each rule (generated from the
rule's own pattern, among random ASCII) must get exactly the rules the plain whole-text searches
give, so every rule still fires and findings are unchanged.
"""

from __future__ import annotations

import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memfs.policy import secrets_scan

ASCII = st.characters(codec="ascii")
RULES = [rule for _, rule in secrets_scan._required() if rule.pattern.pattern.isascii()]
#: Every rule with its own pattern in multi-line mode, compiled here: the plain whole-text searches.
EVERY = [(rule, re.compile(rule.pattern.pattern, rule.pattern.flags | re.MULTILINE)) for rule in secrets_scan._rules()]


def _searched(text: str) -> list[secrets_scan._Rule]:
    return [rule for rule, anywhere in EVERY if anywhere.search(text)]


@st.composite
def texts_with_a_match(draw: st.DrawFn) -> tuple[secrets_scan._Rule, str]:
    rule = draw(st.sampled_from(RULES))
    sample = draw(st.from_regex(rule.pattern, alphabet=ASCII))
    before, after = draw(st.text(ASCII, max_size=40)), draw(st.text(ASCII, max_size=40))
    return rule, f"{before}\n{sample}\n{after}"


@settings(max_examples=400, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(texts_with_a_match())
def test_a_text_holding_a_match_of_any_rule_keeps_every_rule_that_can_match(case: tuple[object, str]) -> None:
    rule, text = case
    kept = secrets_scan._candidates(text)
    assert kept == _searched(text)
    assert rule in kept


@settings(max_examples=200, derandomize=True)
@given(st.text(ASCII, max_size=300))
def test_ordinary_ascii_text_gets_the_same_rules(text: str) -> None:
    assert secrets_scan._candidates(text) == _searched(text)


def test_every_ascii_rule_but_the_digit_shapes_has_required_strings() -> None:
    unfiltered = {rule.slug for needed, rule in secrets_scan._required() if needed is None}
    assert unfiltered == {"payment-card", "cn-resident-id"}


def test_findings_are_unchanged_for_prose_and_secrets() -> None:
    text = ("my password is hunter2xyz and the key AKIAIOSFODNN7EXAMPLE; see https://u:pw1234@db.example/x\n"
            "ghp_" + "a" * 36 + " and 4111 1111 1111 1111\n")
    expected = {"secret/password", "secret/aws-access-key", "secret/credentials-in-url", "secret/github-token",
                "secret/payment-card"}
    assert {f.rule for f in secrets_scan.scan(text)} == expected
