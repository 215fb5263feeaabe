"""``[sync]``'s route and writer id (:mod:`memfs.format.config`): read, defaulted, and named when wrong."""

from __future__ import annotations

import pytest

from memfs.errors import InvalidConfig
from memfs.format.config import parse_config


@pytest.mark.parametrize(("text", "route", "writer"), [
    ("", "direct", None),
    ('[sync]\nroute = "writer-ref"\n', "writer-ref", None),
    ('[sync]\nroute = "writer-ref"\nwriter = "bot-7"\n', "writer-ref", "bot-7"),
])
def test_the_route_and_writer_are_read(text: str, route: str, writer: str | None) -> None:
    conf = parse_config("format = 1\n" + text).sync
    assert (conf.route, conf.writer) == (route, writer)


@pytest.mark.parametrize(("text", "named"), [
    ('[sync]\nroute = "main"\n', "[sync] route = 'main'"),
    ("[sync]\nwriter = 7\n", "[sync] writer must be a string"),
])
def test_a_bad_route_or_writer_is_named(text: str, named: str) -> None:
    with pytest.raises(InvalidConfig, match=named.replace("[", r"\[").replace("]", r"\]")):
        parse_config("format = 1\n" + text)
