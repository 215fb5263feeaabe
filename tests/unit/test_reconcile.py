"""Reconcile (pure): what a candidate does to the memories already stored about its subject."""

from __future__ import annotations

from memfs.format.parse import parse
from memfs.policy.candidate import from_mapping
from memfs.policy.reconcile import Op, normalise, reconcile, reinforced_confidence
from tests.helpers import memory_text


def _mem(path: str, body: str, **meta: object):
    return parse(path, memory_text(body, id=path[:-3], source="s", **meta).encode())


def test_normalise() -> None:
    assert normalise("  Use\tENGLISH. ") == normalise("use english") == "use english"
    assert normalise("用英文。") == normalise("用英文")
    assert normalise("ＡＢＣ") == "abc"
    assert normalise("use English") != normalise("use Chinese")


def test_reconcile_ops() -> None:
    def c(**kw: object):
        return from_mapping({"scope": "user:U5", "key": "k", "body": "v1", "source": "s2", **kw})

    old = _mem("facts/k.md", "v1", key="k")
    assert reconcile(c(), []).op is Op.INSERT
    assert reconcile(c(), [old]).op is Op.REINFORCE
    assert reconcile(c(source="s"), [old]).op is Op.NOOP
    assert reconcile(c(body="v2"), [old]).op is Op.SUPERSEDE
    assert reconcile(c(scope="user:U6"), [old]).op is Op.KEEP_BOTH
    assert reconcile(c(version="v2"), [old]).op is Op.KEEP_BOTH
    assert reconcile(c(retract=True), [old]).op is Op.RETRACT
    assert reconcile(c(retract=True), []).op is Op.NOOP
    assert reconcile(c(), [old], applied_in="abc").op is Op.NOOP
    retracted = _mem("facts/k.md", "v1", key="k", status="retracted")
    assert reconcile(c(), [retracted]).op is Op.INSERT


def test_reinforced_confidence() -> None:
    assert reinforced_confidence(0.8, 0.8) == 0.96
    assert reinforced_confidence(0.8, None) == 0.9
    assert reinforced_confidence(1.0, 0.3) == 1.0


def test_a_judges_rulings_choose_among_the_probable_conflicts() -> None:
    """A keyless candidate paired with two memories by the rules: a ruling on the newest decides
    (replace, keep-both); ``unrelated`` passes the decision to the next one; no ruling, or one
    about a memory the rules do not pair, leaves the rules' SUPERSEDE."""
    from memfs.policy.conflicts import Ruling

    older = _mem("facts/kai-a.md", "Kai works in Berlin.", scope="user:U5", type="fact",
                 updated="2026-01-01T00:00:00Z")
    newer = _mem("facts/kai-b.md", "Kai works in Munich.", scope="user:U5", type="fact",
                 updated="2026-02-01T00:00:00Z")
    other = _mem("facts/team.md", "Kai is on the payments team.", scope="user:U5", type="fact")
    new = from_mapping({"scope": "user:U5", "body": "Kai works in Paris now.", "type": "fact", "source": "s2"})
    every = [older, newer, other]

    def decided(*rulings: Ruling):
        return reconcile(new, every, rulings={r.path: r for r in rulings})

    assert (decided().op, decided().target) == (Op.SUPERSEDE, newer)
    replaced = decided(Ruling("facts/kai-b.md", "replace", "the judge j"))
    assert replaced.target == newer and replaced.reason.startswith("the judge j reads it as replacing facts/kai-b.md")
    kept = decided(Ruling("facts/kai-b.md", "keep-both", "the judge j"))
    assert kept.op is Op.KEEP_BOTH and kept.kept == ("facts/kai-b.md", "facts/kai-a.md")
    assert "the judge j" in kept.reason
    passed_on = decided(Ruling("facts/kai-b.md", "unrelated", "the judge j"))
    assert (passed_on.op, passed_on.target) == (Op.SUPERSEDE, older)
    apart = decided(Ruling("facts/kai-b.md", "unrelated", "the judge j"), Ruling("facts/kai-a.md", "unrelated", "j"))
    assert apart.op is Op.INSERT and "unrelated to facts/kai-b.md, facts/kai-a.md" in apart.reason
    assert decided(Ruling("facts/team.md", "replace", "the judge j")).target == newer  # not the judge's to pair
    asked = from_mapping({"scope": "user:U5", "body": "Kai works in Paris now.", "type": "fact", "source": "s2",
                          "keep_both": True})
    assert reconcile(asked, every, rulings={"facts/kai-b.md": Ruling("facts/kai-b.md", "replace", "j")}).op \
        is Op.KEEP_BOTH  # the caller's decision stands


def test_only_a_judges_replace_supersedes_a_near_miss() -> None:
    """No probable conflict by the rules: a judge's ``replace`` on an active memory of the
    candidate's scope and type (a near miss of the wider net) supersedes it; no ruling, another
    answer, another scope or type, or the caller's ``keep_both`` keeps both."""
    from memfs.policy.conflicts import Ruling

    bike = _mem("facts/bike.md", "Mia keeps her bike in the garage.", scope="user:U5", type="fact")
    theirs = _mem("facts/their-bike.md", "Ola keeps her bike in the garage.", scope="user:U6", type="fact")
    note = _mem("notes/bike.md", "Mia keeps her bike in the garage.", scope="user:U5", type="note")
    new = from_mapping({"scope": "user:U5", "body": "Mia's bike now lives in the hallway.", "type": "fact",
                        "source": "s2"})
    every = [bike, theirs, note]

    def decided(*rulings: Ruling, candidate=new):  # type: ignore[no-untyped-def]
        return reconcile(candidate, every, rulings={r.path: r for r in rulings})

    assert decided().op is Op.INSERT
    replaced = decided(Ruling("facts/bike.md", "replace", "the judge j"))
    assert (replaced.op, replaced.target) == (Op.SUPERSEDE, bike)
    assert "the judge j reads it as replacing facts/bike.md, a similar memory the rules did not pair" in replaced.reason
    for answer in ("keep-both", "unrelated"):
        assert decided(Ruling("facts/bike.md", answer, "j")).op is Op.INSERT  # type: ignore[arg-type]
    assert decided(Ruling("facts/their-bike.md", "replace", "j"), Ruling("notes/bike.md", "replace", "j")).op \
        is Op.INSERT  # another scope, another type: not the judge's to pair
    asked = from_mapping({"scope": "user:U5", "body": "Mia's bike now lives in the hallway.", "type": "fact",
                          "source": "s2", "keep_both": True})
    assert decided(Ruling("facts/bike.md", "replace", "j"), candidate=asked).op is not Op.SUPERSEDE
