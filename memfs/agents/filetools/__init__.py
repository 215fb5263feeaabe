"""The one file-tool implementation behind ``memfs tool``, MCP's ``memory_*`` file tools and the
Anthropic memory tool: :mod:`.engine` reads a request from the declarations and holds what a
door is; :mod:`.commands` has one runner per command. The doors are thin adapters:
:mod:`memfs.agents.tools` and :mod:`memfs.agents.memory_tool`."""

from memfs.agents.filetools import commands
from memfs.agents.filetools.engine import RUNNERS, Door, Host, Outcome, Run, Texts, execute, parse_request, run, within

__all__ = ["RUNNERS", "Door", "Host", "Outcome", "Run", "Texts", "commands", "execute", "parse_request", "run",
           "within"]
