"""Plain notes adopted in place (pure): a Markdown file without frontmatter, written by a person
in an editor such as Obsidian or by an agent with a file tool, becomes a memory with the
defaults the root's ``.memfs.toml`` gives under ``[adopt]`` (per folder).

The note's text is never touched: a frontmatter block is put in front of it, as an import of a
plain Markdown folder does (:mod:`memfs.format.interop.markdown`). Its ``source_kind`` is, unless
``[adopt]`` says otherwise, the kind of whoever wrote it: ``user`` for a person, ``agent`` or
``tool`` for those; its ``source`` is ``file:<path>``. A byte-order mark goes (the fence must be
the first bytes for python-frontmatter to read the fields). A note whose scope cannot be derived
is not adopted: the caller reports it with :data:`NO_SCOPE_FIX` and leaves the file as it is.
"""

from __future__ import annotations

from memfs.format.config import AdoptConfig
from memfs.format.document import BOM
from memfs.format.interop.common import Converted, Defaults, SourceFile, convert_note, finish

#: What to add so that a plain note outside ``system/`` can be adopted.
NO_SCOPE_FIX = 'say whose notes these are in .memfs.toml: [adopt] scope = "user:<you>" (or per folder)'
#: The ``source`` prefix of an adopted note with no ``[adopt] source``: ``file:<path>``.
ORIGIN = "file"
_WRITER_KINDS = ("user", "agent", "tool")


def is_plain(data: bytes) -> bool:
    """Whether ``data`` is a Markdown note without a frontmatter block (the first line is not ``---``)."""
    text = data.removeprefix(BOM.encode("utf-8"))
    first = text.split(b"\n", 1)[0].rstrip(b"\r").rstrip()
    return first != b"---"


def writer_kind(actor: str) -> str:
    """The ``source_kind`` of a note written by ``actor`` (``user:maria`` → ``user``)."""
    kind = actor.split(":", 1)[0].strip().lower() if ":" in actor else ""
    return kind if kind in _WRITER_KINDS else "document"


def adopt_note(config: AdoptConfig, rel: str, data: bytes, actor: str) -> Converted:
    """The plain note at ``rel`` (root-relative) with its frontmatter, or the :class:`Converted`
    whose ``problem`` says why it cannot be adopted."""
    rule = config.rule_for(rel)
    defaults = Defaults(rule.scope, rule.source, rule.source_kind or writer_kind(actor), rule.type)
    draft = convert_note(SourceFile(rel, data.removeprefix(BOM.encode("utf-8"))), defaults, ORIGIN)
    return draft if isinstance(draft, Converted) else finish(draft, rel)
