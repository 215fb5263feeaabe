"""The Anthropic memory tool (``memory_20250818``) backed by a memfs repository.

>>> from anthropic import Anthropic
>>> from memfs.integrations.anthropic import MemfsMemoryTool
>>> memory = MemfsMemoryTool("path/to/memory", scope="user:U5", actor="agent:claude")   # doctest: +SKIP
>>> runner = Anthropic().beta.messages.tool_runner(                                    # doctest: +SKIP
...     model="claude-sonnet-5-5", max_tokens=2048, tools=[memory],
...     messages=[{"role": "user", "content": "Remember that I review PRs on Fridays."}])
>>> runner.until_done()                                                                # doctest: +SKIP

The host picks the scope and the actor; the model only sees ``/memories`` (the files of that
scope, and ``system/`` to read). Each call is one commit by the actor, through memfs's core
guard and write gate. What the model sees and how it is stored is described in
:mod:`memfs.agents.memory_tool`; outputs and error texts follow the SDK's own
``BetaLocalFilesystemMemoryTool``. Errors reach the model as ``ToolError`` (``is_error: true``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from memfs.integrations import require

require("anthropic", "anthropic")

from anthropic.lib.tools import (  # noqa: E402
    BetaAbstractMemoryTool,
    BetaAsyncAbstractMemoryTool,
    ToolError,
)
from anthropic.types.beta import (  # noqa: E402
    BetaCacheControlEphemeralParam,
    BetaMemoryTool20250818CreateCommand,
    BetaMemoryTool20250818DeleteCommand,
    BetaMemoryTool20250818InsertCommand,
    BetaMemoryTool20250818RenameCommand,
    BetaMemoryTool20250818StrReplaceCommand,
    BetaMemoryTool20250818ViewCommand,
)
from anyio.to_thread import run_sync  # noqa: E402

from memfs.agents.memory_tool import Call, MemoryTool, MemoryToolError  # noqa: E402
from memfs.api import MemoryRepo  # noqa: E402
from memfs.errors import MemfsError  # noqa: E402
from memfs.policy.guard import Grants  # noqa: E402

__all__ = ["AsyncMemfsMemoryTool", "MemfsMemoryTool", "open_tool"]

#: Who the tool acts as (the commits' author) unless the host says otherwise.
DEFAULT_ACTOR = "agent:claude"
_T = TypeVar("_T")


def open_tool(
    repo: MemoryRepo | str | os.PathLike[str],
    *,
    scope: str,
    actor: str = DEFAULT_ACTOR,
    inherit: bool = False,
    grants: Grants | None = None,
    source: str | None = None,
    defaults: Mapping[str, Any] | None = None,
    reason: str | None = None,
    on_call: Callable[[Call], None] | None = None,
) -> MemoryTool:
    """The memory tool over a session of ``repo`` bound to ``scope``, acting as ``actor``."""
    base = repo if isinstance(repo, MemoryRepo) else MemoryRepo.open(repo)
    session = base.session(scope, inherit=inherit, grants=grants, actor=actor)
    return MemoryTool(session.store, source=source, defaults=defaults, reason=reason, on_call=on_call)


def _run(fn: Callable[..., _T], *args: Any) -> _T:
    try:
        return fn(*args)
    except (MemoryToolError, MemfsError) as exc:
        raise ToolError(str(exc)) from None


class _Session:
    """What the sync and async tools share: the memfs memory tool they run, and its session."""

    memory: MemoryTool

    @property
    def repo(self) -> MemoryRepo:
        """The session the tool works in."""
        return MemoryRepo(self.memory.repo)

    @property
    def last_call(self) -> Call | None:
        """What the latest call did."""
        return self.memory.last


class MemfsMemoryTool(_Session, BetaAbstractMemoryTool):
    """``memory_20250818`` for ``client.beta.messages.tool_runner`` (sync), backed by memfs.

    ``scope`` and ``actor`` are the host's choice: the session is bound to that scope (with
    ``inherit``, its ancestors are readable too), and every commit is authored by ``actor``.
    ``source`` and ``defaults`` fill the frontmatter of memories the model creates; ``grants``
    are the host's grants (:class:`memfs.Grants`). ``last_call`` says what the latest call did.
    """

    def __init__(
        self,
        repo: MemoryRepo | str | os.PathLike[str],
        *,
        scope: str,
        actor: str = DEFAULT_ACTOR,
        inherit: bool = False,
        grants: Grants | None = None,
        source: str | None = None,
        defaults: Mapping[str, Any] | None = None,
        reason: str | None = None,
        on_call: Callable[[Call], None] | None = None,
        cache_control: BetaCacheControlEphemeralParam | None = None,
    ) -> None:
        super().__init__(cache_control=cache_control)
        self.memory = open_tool(
            repo, scope=scope, actor=actor, inherit=inherit, grants=grants, source=source, defaults=defaults,
            reason=reason, on_call=on_call,
        )

    def view(self, command: BetaMemoryTool20250818ViewCommand) -> str:
        return _run(self.memory.view, command.path, command.view_range)

    def create(self, command: BetaMemoryTool20250818CreateCommand) -> str:
        return _run(self.memory.create, command.path, command.file_text)

    def str_replace(self, command: BetaMemoryTool20250818StrReplaceCommand) -> str:
        return _run(self.memory.str_replace, command.path, command.old_str, command.new_str)

    def insert(self, command: BetaMemoryTool20250818InsertCommand) -> str:
        return _run(self.memory.insert, command.path, command.insert_line, command.insert_text)

    def delete(self, command: BetaMemoryTool20250818DeleteCommand) -> str:
        return _run(self.memory.delete, command.path)

    def rename(self, command: BetaMemoryTool20250818RenameCommand) -> str:
        return _run(self.memory.rename, command.old_path, command.new_path)

    def clear_all_memory(self) -> str:
        """Delete every memory of the session's scope (``system/`` stays), in one commit."""
        return _run(self.memory.clear)


class AsyncMemfsMemoryTool(_Session, BetaAsyncAbstractMemoryTool):
    """:class:`MemfsMemoryTool` for the async client (``AsyncAnthropic``): the same tool, each
    call run in a worker thread so git never blocks the event loop."""

    def __init__(
        self,
        repo: MemoryRepo | str | os.PathLike[str],
        *,
        scope: str,
        actor: str = DEFAULT_ACTOR,
        inherit: bool = False,
        grants: Grants | None = None,
        source: str | None = None,
        defaults: Mapping[str, Any] | None = None,
        reason: str | None = None,
        on_call: Callable[[Call], None] | None = None,
        cache_control: BetaCacheControlEphemeralParam | None = None,
    ) -> None:
        super().__init__(cache_control=cache_control)
        self.memory = open_tool(
            repo, scope=scope, actor=actor, inherit=inherit, grants=grants, source=source, defaults=defaults,
            reason=reason, on_call=on_call,
        )

    async def _call(self, fn: Callable[..., str], *args: Any) -> str:
        return await run_sync(lambda: _run(fn, *args))

    async def view(self, command: BetaMemoryTool20250818ViewCommand) -> str:
        return await self._call(self.memory.view, command.path, command.view_range)

    async def create(self, command: BetaMemoryTool20250818CreateCommand) -> str:
        return await self._call(self.memory.create, command.path, command.file_text)

    async def str_replace(self, command: BetaMemoryTool20250818StrReplaceCommand) -> str:
        return await self._call(self.memory.str_replace, command.path, command.old_str, command.new_str)

    async def insert(self, command: BetaMemoryTool20250818InsertCommand) -> str:
        return await self._call(self.memory.insert, command.path, command.insert_line, command.insert_text)

    async def delete(self, command: BetaMemoryTool20250818DeleteCommand) -> str:
        return await self._call(self.memory.delete, command.path)

    async def rename(self, command: BetaMemoryTool20250818RenameCommand) -> str:
        return await self._call(self.memory.rename, command.old_path, command.new_path)

    async def clear_all_memory(self) -> str:
        return await self._call(self.memory.clear)
