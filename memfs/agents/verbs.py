"""What agents ask for, declared once (:mod:`memfs.format.declare`): the ``context`` verb, and the
file-tool commands that ``memfs tool``, MCP's file tools and the Anthropic adapter serve."""

from __future__ import annotations

import datetime as dt
import inspect
import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar, dataclass_transform

from memfs.agents.formats import FORMATS
from memfs.format.declare import CLI, MCP, param, record
from memfs.ops.verbs.declare import Request, request
from memfs.ops.verbs.recall import ADMIN_SCOPE, AT, INHERIT, MODEL_INHERIT, VERSION

if TYPE_CHECKING:
    from memfs.agents.evaluate import EvalReport  # noqa: F401
    from memfs.agents.rendering import Context as ContextResult  # noqa: F401 - the result named in Request["..."]
    from memfs.policy.tokens import TokenCounter

C = TypeVar("C", bound=type)

@request("context", tool="memory_context",
         cli_note="Several --scope are each matched exactly. Several roots (memfs -C A -C B context): one "
                  "context per root, the budget shared.",
         model_note="")
class Context(Request["ContextResult"]):
    """The memory to put in front of a model for a task: system/ files (as committed), then
    recalled memories, labelled and delimited as reference material, within a token budget;
    says what was left out."""

    task: str = param(help="What the model is about to do; memories are recalled for it.", argument=True,
                      kw_only=False)
    scope: str | Sequence[str] | None = param(
        help="Whose memory to recall, e.g. user:U5/project:P8 (exact unless inherit); several are each matched "
             "exactly.", model_note=ADMIN_SCOPE)
    version: str | None = param(default=None, help=VERSION)
    budget: int = param(default=4000, help="Token budget for the whole context.", model_minimum=100,
                        model_maximum=200_000)
    format: str = param(default="markdown", help="markdown (fenced blocks), xml (escaped) or json.", choices=FORMATS)
    inherit: bool | None = param(default=None, help=INHERIT, model_note=MODEL_INHERIT)
    all_scopes: bool = param(default=False, doors={CLI, MCP},
                             help="Without a scope, recall from every scope even when the memories belong to more "
                                  "than one person (administration; otherwise that is refused).")
    system_share: float = param(default=0.5, help="Largest fraction of the budget system/ may use.", doors={CLI})
    counter: str | None = param(default=None, doors={CLI},
                                help="Token counter: heuristic (default), bpe-openai:ENC or tiktoken:ENC.")
    count: TokenCounter | None = param(default=None, help="A token counter function (instead of counter).",
                                       doors=())
    at: dt.datetime | None = param(default=None, help=AT, wire="time")
    min_relevance: float = param(
        default=0.2, help="Drop hits below this fraction of the best hit's relevance (0 keeps every match).",
        doors={CLI})


# --- the file-tool commands (memfs tool, MCP's memory_* file tools, the Anthropic adapter) ------------
#: Every file-tool command by its name, in declaration order.
FILE_COMMANDS: dict[str, type[FileCommand]] = {}
#: The door of Anthropic's memory tool (``memory_20250818``): only the reference tool's commands and
#: their fields (``memfs tool`` and MCP take every field at :data:`~memfs.format.declare.MCP`).
REFERENCE = "memory_20250818"
_EVERY = (CLI, MCP, REFERENCE)

_PATH = "Memory file path relative to the memory root, e.g. facts/b17.md ('/memories/facts/b17.md' also works)."
_REASON = "Why this change is made; it goes into the git commit message."


class FileCommand:
    """One file-tool command: its fields are the request's keys besides ``command``."""

    command: ClassVar[str]
    tool: ClassVar[str]
    summary: ClassVar[str]
    writes: ClassVar[bool]
    removes: ClassVar[bool]
    doors: ClassVar[frozenset[str]]


@dataclass_transform(frozen_default=True, kw_only_default=True, field_specifiers=(param,))
def file_command(
    command: str, *, writes: bool = True, removes: bool = False, reference: bool = False
) -> Callable[[C], C]:
    """Declare a file-tool command; its MCP tool is ``memory_<command>``, its docstring the
    tool's description. A ``reference`` command is also one of the Anthropic tool's
    (:data:`REFERENCE`), with the fields declared for that door."""

    def declare(cls: C) -> C:
        record(cls)
        made: Any = cls
        made.command, made.tool = command, f"memory_{command}"
        made.summary = inspect.cleandoc(cls.__doc__ or "")
        made.writes, made.removes = writes, removes
        made.doors = frozenset({CLI, MCP, REFERENCE} if reference else {CLI, MCP})
        FILE_COMMANDS[command] = made
        return cls

    return declare


@file_command("view", writes=False, reference=True)
class View(FileCommand):
    """Show a memory file's text with line numbers (the frontmatter block you wrote, if any, then
    the body; memfs's own fields are not shown), or list the memories in a folder with their
    descriptions."""

    path: str = param(default="/memories", help="A memory file, or a folder to list ('/memories' is the root).",
                      doors=_EVERY)
    view_range: list[int] | None = param(
        default=None, help="Show only lines [first, last] of a file (1-based; last -1 means to the end).", doors=_EVERY)


@file_command("create", reference=True)
class Create(FileCommand):
    """Create a memory file, from a whole file or from a bare Markdown body. An existing file
    is refused unless overwrite is true."""

    path: str = param(help=_PATH, minimum=1, doors=_EVERY)
    file_text: str = param(help="The file's text: the Markdown body, optionally preceded by a '---' block of "
                                "frontmatter fields of your own (one 'field: value' line each); 'fields' and the "
                                "server fill the fields it leaves out. Line numbers count this text.", doors=_EVERY)
    reason: str | None = param(default=None, help=_REASON)
    overwrite: bool = param(default=False,
                            help="Replace the file if it exists (otherwise an existing file is refused).")
    description: str | None = param(default=None, help="One line shown in listings and in the system tree.")
    fields: dict[str, Any] | None = param(
        default=None, help="Frontmatter fields for a new memory (a '---' block in file_text overrides them), e.g. "
                           "{\"type\": \"fact\", "
                           "\"source\": \"conversation:C1\", \"tags\": [\"x\"]}.")


@file_command("str_replace", reference=True)
class StrReplace(FileCommand):
    """Replace text in a memory file; old_str must occur exactly once (add surrounding text if not)."""

    path: str = param(help=_PATH, minimum=1, doors=_EVERY)
    old_str: str = param(help="Text to replace; it must occur exactly once in the file.", minimum=1, doors=_EVERY)
    new_str: str = param(help="The replacement text (may be empty).", doors=_EVERY)
    reason: str | None = param(default=None, help=_REASON)


@file_command("insert", reference=True)
class Insert(FileCommand):
    """Insert text after a line of a memory file (line numbers as memory_view shows them)."""

    path: str = param(help=_PATH, minimum=1, doors=_EVERY)
    insert_line: int = param(help="Insert after this line (0 = at the top), as memory_view numbers them.",
                             doors=_EVERY)
    insert_text: str = param(help="The text to insert (one or more lines).", doors=_EVERY)
    reason: str | None = param(default=None, help=_REASON)


@file_command("append")
class Append(FileCommand):
    """Add text at the end of a memory's body (a log, a list that grows)."""

    path: str = param(help=_PATH, minimum=1)
    text: str = param(help="Text to add at the end of the memory's body.", minimum=1)
    reason: str | None = param(default=None, help=_REASON)


@file_command("replace_section")
class ReplaceSection(FileCommand):
    """Replace the Markdown section under a heading of a memory's body, or add the section at
    the end if there is no such heading."""

    path: str = param(help=_PATH, minimum=1)
    heading: str = param(help="The section's heading: '## Decisions', or just 'Decisions' (a level-2 heading is "
                              "added if there is none).", minimum=1)
    content: str = param(help="The new text of the section, below its heading (replaces the old text up to the next "
                              "heading of the same or a higher level).")
    reason: str | None = param(default=None, help=_REASON)


@file_command("delete", removes=True, reference=True)
class Delete(FileCommand):
    """Delete a memory file (it stays in git history). Refused while other memories depend on it."""

    path: str = param(help=_PATH, minimum=1, doors=_EVERY)
    reason: str | None = param(default=None, help=_REASON)


@file_command("rename", reference=True)
class Rename(FileCommand):
    """Move a memory file to a new path (refused while other memories depend on the old path)."""

    old_path: str = param(help="The memory's current path.", minimum=1, doors=_EVERY)
    new_path: str = param(help="Its new path (must not exist yet).", minimum=1, doors=_EVERY)
    reason: str | None = param(default=None, help=_REASON)


@file_command("update_description")
class UpdateDescription(FileCommand):
    """Set the one-line description shown in listings and the system tree."""

    path: str = param(help=_PATH, minimum=1)
    description: str = param(help="The new one-line description.")
    reason: str | None = param(default=None, help=_REASON)


@request("eval")
class Eval(Request["EvalReport"]):
    """Measure context assembly against CASES (YAML or JSONL: task, scope(s), version, at, the
    memories expected in context and those that must not appear): hit rate, wrong injections by
    cause, cross-scope leakage, tokens and savings, deletion propagation, writes by commit
    trailer; with --gate, the write gate's precision and recall on a labelled utterance file.
    Exits 1 when a case fails or a rate is below its threshold."""

    cases: str | os.PathLike[str] | None = param(default=None, help="The cases file (YAML or JSONL).",
                                                 argument=True, path="file", kw_only=False)
    gate: str | os.PathLike[str] | None = param(
        default=None, path="file", metavar="UTTERANCES",
        help="A labelled utterance file (JSONL: text, lang, label store|hold|refuse, optional source_kind, type, "
             "expires, note): report the write gate's precision and recall, with the [judge] if one is set.")
    deletion: bool = param(default=True,
                           help="Skip the deletion-propagation check (it works on a scratch clone).")
