"""memfs ships its type hints (PEP 561): ``memfs/py.typed`` is in the package, so users' type
checkers read memfs's annotations instead of treating it as untyped. The wheel holds the whole
``memfs`` package (``[tool.hatch.build.targets.wheel] packages``), the marker included."""

from __future__ import annotations

import tomllib
from importlib import resources

from tests.helpers import PROJECT


def test_the_package_is_marked_typed() -> None:
    marker = resources.files("memfs").joinpath("py.typed")
    assert marker.is_file()
    assert marker.read_text(encoding="utf-8") == ""


def test_the_wheel_packs_the_whole_package() -> None:
    wheel = tomllib.loads((PROJECT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["hatch"]["build"]
    assert wheel["targets"]["wheel"]["packages"] == ["memfs"]
