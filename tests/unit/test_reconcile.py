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
