"""Templates for new memories: one ``templates/<type>.md`` per memory type, plus ``system``.

A template is a memory file whose frontmatter holds defaults (type, confidence, tags...) and
whose body guides the writer. Templates ship inside the wheel (``memfs/_data/templates``) and
are read from the source tree's ``templates/`` in a checkout.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from memfs.errors import NotFound, UsageError
from memfs.format import edit, yamlio
from memfs.format.document import split
from memfs.format.model import utcnow


def data_dir(name: str) -> Path:
    """A data folder shipped with memfs: inside the package when installed, else the checkout's."""
    package = Path(__file__).resolve().parents[1]
    for candidate in (package / "_data" / name, package.parent / name):
        if candidate.is_dir():
            return candidate
    raise NotFound(f"memfs is installed without its {name}/ folder; reinstall memfs")


def names() -> list[str]:
    return sorted(p.stem for p in data_dir("templates").glob("*.md"))


def load_template(name: str) -> tuple[dict[str, Any], str]:
    """(default fields, body) of template ``name``."""
    path = data_dir("templates") / f"{name}.md"
    if not path.is_file():
        raise UsageError(f"no template {name!r}; choose one of: {', '.join(names())}", param="template")
    doc = split(path.read_text(encoding="utf-8"))
    return dict(yamlio.load(doc.frontmatter) or {}), doc.body


def fill(name: str, fields: Mapping[str, Any], body: str | None) -> tuple[dict[str, Any], str]:
    """(fields, body) of a new memory from template ``name``: the template's defaults with
    ``fields`` on top, and ``body`` unless it is ``None`` (then the template's guiding body)."""
    defaults, template_body = load_template(name)
    defaults.update({k: v for k, v in fields.items() if v is not None})
    return defaults, template_body if body is None else body


def render_template(name: str, rel: str, fields: Mapping[str, Any]) -> bytes:
    """The bytes of a new memory at ``rel`` from template ``name`` with ``fields`` on top."""
    result = edit.new_file(rel, *fill(name, fields, None), utcnow())
    assert result.content is not None
    return result.content
