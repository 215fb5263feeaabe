"""What the Anthropic SDK's reference memory tool (``BetaLocalFilesystemMemoryTool``) prints:
numbered lines, directory listings and sizes. The memory tool (:mod:`memfs.agents.memory_tool`)
presents the text of :mod:`memfs.agents.filetext` this way, so a prompt written for one works
with the other; ``memfs tool`` and MCP present the same text their own way (:mod:`memfs.agents.tools`)."""

from __future__ import annotations

from typing import Any

from memfs.errors import UsageError

#: Width of the line numbers ``view`` and the edit snippets print (the reference tool's).
LINE_NUMBER_WIDTH = 6
#: What a directory's size is shown as (what the reference tool shows for a folder on ext4: 4096 bytes).
DIR_SIZE = "4K"


def numbered(number: int, line: str) -> str:
    return f"{str(number).rjust(LINE_NUMBER_WIDTH)}\t{line}"


def numbered_view(path: str, content: str, view_range: Any) -> str:
    lines = content.split("\n")
    shown, start = lines, 1
    if view_range is not None:
        if (
            not isinstance(view_range, list | tuple)
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in view_range)
        ):
            raise UsageError("`view_range` must be two line numbers [first, last] (last -1 = the end)")
        if len(view_range) == 2:
            first = max(1, view_range[0]) - 1
            last = len(lines) if view_range[1] == -1 else view_range[1]
            shown, start = lines[first:last], first + 1
    rows = [numbered(i + start, line) for i, line in enumerate(shown)]
    return f"Here's the content of {path} with line numbers:\n" + "\n".join(rows)


def listing(path: str, rel: str, files: list[tuple[str, int]]) -> str:
    """Files and folders up to two levels below ``rel`` (``files``: each file's path below the
    root and the size of its text), as the reference tool lists them."""
    prefix = f"{rel}/" if rel else ""
    tree: dict[str, Any] = {}
    for name, size in files:
        parts = name[len(prefix) :].split("/")
        node = tree
        for part in parts[:-1]:
            child = node.setdefault(part, {})
            if not isinstance(child, dict):
                break
            node = child
        else:
            node.setdefault(parts[-1], size)
    items: list[tuple[str, str]] = []

    def walk(node: dict[str, Any], relative: str, depth: int) -> None:
        for name in sorted(node):
            child = node[name]
            item = f"{relative}/{name}" if relative else name
            if isinstance(child, dict):
                items.append((DIR_SIZE, f"{item}/"))
                if depth < 2:
                    walk(child, item, depth + 1)
            else:
                items.append((_size(child), item))

    walk(tree, "", 1)
    header = f"Here're the files and directories up to 2 levels deep in {path}, excluding hidden items:"
    lines = [f"{DIR_SIZE}\t{path}", *(f"{size}\t{path}/{item}" for size, item in items)]
    return f"{header}\n" + "\n".join(lines)


def _size(count: int) -> str:
    """A byte count as the reference tool prints it (``512B``, ``1.5K``)."""
    if count == 0:
        return "0B"
    unit = min((count.bit_length() - 1) // 10, 3)
    value = count / (1024**unit)
    suffix = "BKMG"[unit]
    return f"{int(value)}{suffix}" if value == int(value) else f"{value:.1f}{suffix}"
