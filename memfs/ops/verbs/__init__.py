"""Every verb declared once, as a typed request (:mod:`memfs.ops.verbs.declare`); the doors
(the library, the CLI, MCP) are derived from these declarations."""

from memfs.format.declare import Field, Param, fields
from memfs.ops.verbs import collab, history, lifecycle, lineage, recall
from memfs.ops.verbs.declare import VERBS, Request

__all__ = ["VERBS", "Field", "Param", "Request", "collab", "fields", "history", "lifecycle", "lineage", "recall"]
