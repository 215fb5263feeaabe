"""Every verb declared once, as a typed request (:mod:`memfs.ops.verbs.declare`); the doors
(the library, the CLI, MCP, the live index's socket) are derived from these declarations. The
verbs whose work the agents layer does (``context``) and the file-tool commands are declared in
:mod:`memfs.agents.verbs`."""

from memfs.format.declare import Field, Param, fields
from memfs.ops.verbs import collab, files, history, lifecycle, lineage, recall
from memfs.ops.verbs.declare import VERBS, Request

__all__ = ["VERBS", "Field", "Param", "Request", "collab", "fields", "files", "history", "lifecycle", "lineage",
           "recall"]
