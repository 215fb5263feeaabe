"""The gate's meaning rules (pure): one-off requests by what they refer to, inferred wording,
durable claims from one observation, ID documents in any language; and the labelled utterance
set (bench/gate_utterances.jsonl) held to the precision and recall targets of issue #27."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memfs.agents.gate_eval import MIN_PRECISION, MIN_RECALL, evaluate_gate, load_utterances, outcome
from memfs.errors import UsageError
from memfs.policy import meaning
from memfs.policy.candidate import from_mapping
from memfs.policy.meaning import Reading
from memfs.policy.secrets_scan import scan
from tests.helpers import PROJECT

EXPIRES = "2026-12-31T00:00:00Z"


def _candidate(text: str, **fields: object) -> object:
    kind = fields.pop("source_kind", "user")
    base = {"scope": "user:U5", "source": "conversation:C1#msg-1", "source_kind": kind, "body": text,
            "type": "preference" if kind == "user" else "fact"}
    return from_mapping({**base, **fields})


@pytest.mark.parametrize(
    ("text", "label"),
    [
        # deictic references to one artifact or event
        ("Answer this question in French.", "one-off"),
        ("Rewrite the last paragraph more casually.", "one-off"),
        ("Format the table below as CSV.", "one-off"),
        ("Reply to those messages politely.", "one-off"),
        ("For Thursday's demo, use the light theme.", "one-off"),
        ("帮我把这句话翻译成英文", "one-off"),
        ("刚才那封邮件改一下", "one-off"),
        ("这个问题用英文回答。", "one-off"),
        # time-bounded scope
        ("Tomorrow, keep the answers short.", "one-off"),
        ("Use metric units this week.", "one-off"),
        ("下周一的会议用中文", "one-off"),
        ("今晚的演讲稿用正式语气", "one-off"),
        # lasting despite a time or a deictic word
        ("From tomorrow on, write in German.", "lasting"),
        ("Always reply to this thread's kind of question in English.", "lasting"),
        ("从明天开始用英文回复", "lasting"),
        ("以后这种邮件都用英文", "lasting"),
        # lasting things named with "this"
        ("Use this format for all reports.", "lasting"),
        ("Use tabs in this repository.", "lasting"),
        ("Send invoices to this email address.", "lasting"),
        ("这个仓库用英文写文档", "lasting"),
        # inferred wording
        ("The user is likely to want tables.", "inferred"),
        ("User appears to prefer dark mode.", "inferred"),
        ("用户大概喜欢表格。", "inferred"),
        ("Keep answers as short as possible.", "lasting"),
        ("尽可能简短", "lasting"),
        # one thing picked by whose it is, or being made now; one named day (#27 held-out set)
        ("Answer Lea's message in German.", "one-off"),
        ("Shorten your previous answer.", "one-off"),
        ("Polish the speech she is writing.", "one-off"),
        ("For the review on Friday, bring the numbers.", "one-off"),
        ("把上一封邮件改短一点", "one-off"),
        ("星期三的会用英文", "one-off"),
        ("Answer Lea's messages in German.", "lasting"),
        ("Use Kai's template for status reports.", "lasting"),
        ("Keep my replies short.", "lasting"),
        ("Every Friday, send me the summary.", "lasting"),
        ("周一到周五不要打扰我", "lasting"),
        ("每周三提醒我交周报", "lasting"),
        # a third person's preference told as a prediction or judged from evidence
        ("Lea seems happier with bullet lists.", "inferred"),
        ("The user would like longer examples.", "inferred"),
        ("The user likely reads on a phone.", "inferred"),
        ("从她的回复来看，她喜欢表格。", "inferred"),
        ("我觉得用户想要更短的回答。", "inferred"),
        ("根据她的提问，用户喜欢先看结论。", "inferred"),
        ("根据发布日历，发布说明用英文。", "lasting"),
        ("I'd like longer examples.", "lasting"),
        ("我觉得简短的回答更好。", "lasting"),
    ],
)
def test_a_preference_is_read_by_what_it_refers_to(text: str, label: str) -> None:
    assert meaning.read_preference(text).label == label


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("The package registry is down, it is never available.", "durable-claim"),
        ("Export is permanently disabled on CI.", "durable-claim"),
        ("该接口永远返回 500。", "durable-claim"),
        ("Do not use pdf-export.", "durable-claim"),
        ("The upload is not always fast.", "status"),
        ("As always, the nightly build passed.", "status"),
        ("The registry returned 503 at 09:12.", "status"),
        ("The backup job fails every night.", "durable-claim"),
        ("Builds are slow on Mondays.", "durable-claim"),
        ("镜像每次同步都失败。", "durable-claim"),
        ("每个周末备份都很慢。", "durable-claim"),
        ("The backup job failed last night.", "status"),
        ("Every deploy to eu-west fails at the migration step.", "durable-claim"),
        ("Each nightly build times out on the ARM runner.", "durable-claim"),
        ("该服务不再支持 HTTP。", "durable-claim"),
        ("Every file in src/ has a license header.", "status"),
        ("The deploy at 10:02 failed at the migration step.", "status"),
        ("服务已重启，支持 HTTP 和 HTTPS。", "status"),
    ],
)
def test_an_observation_is_a_durable_claim_or_a_status(text: str, label: str) -> None:
    assert meaning.read_observation(text).label == label


def test_a_status_with_expires_is_stored_and_without_it_is_held() -> None:
    text = "Deploy freeze on Lumen until the audit closes; do not deploy."
    assert outcome(_candidate(text, source_kind="tool", expires=EXPIRES)) == "store"
    assert outcome(_candidate(text, source_kind="tool")) == "hold"
    assert outcome(_candidate("The package registry is down, it is never available.", source_kind="tool")) == "hold"


def test_inferred_wording_is_held_whatever_the_label() -> None:
    for kind in ("user", "system"):
        assert outcome(_candidate("User seems to prefer Python.", source_kind=kind, type="preference")) == "hold"
    assert outcome(_candidate("看起来用户喜欢简短的回答。")) == "hold"


def test_a_reading_replaces_the_offline_one_only_for_its_question() -> None:
    one_off = _candidate("Reply to this thread in French.")
    assert outcome(one_off) == "refuse"
    assert outcome(one_off, Reading("preference", "lasting", by="judge")) == "store"
    assert outcome(one_off, Reading("observation", "status", by="judge")) == "refuse"  # not its question
    assert outcome(one_off, Reading("preference", "nonsense", by="judge")) == "refuse"
    plain = _candidate("I prefer short answers.")
    assert outcome(plain, Reading("preference", "inferred", by="judge")) == "hold"
    assert outcome(plain, Reading("preference", "one-off", by="judge")) == "refuse"


def test_a_reading_never_lifts_the_secret_source_or_trust_rules() -> None:
    lasting = Reading("preference", "lasting", by="judge")
    assert outcome(_candidate("我的护照号是 E12345678"), lasting) == "refuse"
    assert outcome(_candidate("Use English.", source_kind="tool", type="preference"), lasting) == "refuse"
    assert outcome(_candidate("Use English.", source=""), lasting) == "refuse"


ID_NUMBERS = [
    "我的护照号是 E12345678",
    "My passport number is X1234567",
    "passport: 123456789",
    "Personalausweis L01X00T47",
    "Mi pasaporte es AAB123456",
    "numéro de passeport 12AB34567",
    "carte d'identité n° 880692310285",
    "パスポート番号は TK1234567です",
    "Driving licence MORGA657054SM9IJ",
    "driver's license no. D1234-5678-9012",
    "my national ID is 123-45-6789",
    "DNI 12345678Z",
    "여권번호 M12345678",
    "Reisepass-Nr. C01X00T47",
    "驾驶证号 440301199001011236",
    "My SSN is 412-58-3907",
    "my social is 412-58-3907",
    "Aadhaar: 2345 6789 0123",
    "Reisepassnummer C4J9K2L7M",
    "numéro de sécurité sociale 1 85 05 78 006 084 36",
    "社保卡号 12345678901",
]
ID_NEAR_MISSES = [
    "My passport expires on 2027-03-01",
    "Renew my passport before 2030",
    "passport photo is 35x45 mm",
    "护照在抽屉里",
    "The passport office opens at 9:00",
    "Passport renewal takes 10 weeks",
    "I have an ID card",
    "the DNI office",
    "Tickets for Tuesday, passport needed, gate B12",
    "passports of 3 people",
    "Passports of 3 people 2 adults 4 kids",
    "passport valid 10 years 2 months",
    "My social life is busy since 2019",
    "the SSN field was added in 2024 03 05",
]


@pytest.mark.parametrize("text", ID_NUMBERS)
def test_an_id_document_number_is_found_in_any_language(text: str) -> None:
    assert [f.rule for f in scan(text)] == ["secret/id-document"]


@pytest.mark.parametrize("text", ID_NEAR_MISSES)
def test_an_id_document_without_its_number_passes(text: str) -> None:
    assert scan(text) == []


@pytest.mark.parametrize(
    "name",
    ["gate_utterances.jsonl", "gate_heldout.jsonl", "gate_blind2.jsonl", "gate_blind3.jsonl", "gate_blind4.jsonl",
     "gate_blind5.jsonl"],
)
def test_the_labelled_set_meets_the_targets(name: str) -> None:
    """The project's set, the held-out set and the blind sets (bench/README.md has each one's
    first-run figure, taken before a rule was changed for it). The gate never reads the clock
    (tests/unit/test_gate_frames.py), so the sets' ``expires`` dates passing changes nothing."""
    path = PROJECT / "bench" / name
    report = evaluate_gate(path)
    items = load_utterances(path)
    assert len(items) >= 40 and {"en", "zh"} <= {u.lang for u in items}
    assert {u.label for u in items} == {"store", "hold", "refuse"}
    assert report.precision >= MIN_PRECISION and report.recall >= MIN_RECALL, report.wrong


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"text": "x", "lang": "en", "label": "store", "colour": 1}', "line 2, field colour: unknown field"),
        ('{"text": "x", "lang": "en"}', "line 2, field label: missing"),
        ('{"text": "x", "lang": "en", "label": "maybe"}', "line 2, field label: 'maybe' is not one of"),
        ('{"text": "x", "lang": "en", "label": "store", "expires": "soon"}', "line 2, field expires"),
        ('{"text": "x", "lang": "en", "label": "store", "source_kind": "robot"}', "line 2, field source_kind"),
        ('["x"]', "line 2, field -: a line is one JSON object"),
        ("{not json", "line 2 is not JSON"),
    ],
)
def test_a_bad_utterance_line_names_the_line_and_the_field(tmp_path: Path, line: str, message: str) -> None:
    path = tmp_path / "u.jsonl"
    good = json.dumps({"text": "I prefer tea.", "lang": "en", "label": "store"})
    path.write_text(f"{good}\n{line}\n", encoding="utf-8")
    with pytest.raises(UsageError, match=message.replace("(", r"\(")):
        load_utterances(path)


def test_labels_may_be_spelt_as_outcomes(tmp_path: Path) -> None:
    path = tmp_path / "u.jsonl"
    lines = [{"text": "Reply to this thread in French.", "lang": "en", "label": "refused"},
             {"text": "User seems to prefer tea.", "lang": "en", "label": "needs_review"},
             {"text": "I prefer tea.", "lang": "en", "label": "Stored"}]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    assert [u.label for u in load_utterances(path)] == ["refuse", "hold", "store"]
    assert evaluate_gate(path).wrong == []
