"""Every verb declared once, as a typed request (:mod:`memfs.ops.verbs.declare`); the doors
(the library, the CLI, MCP, the live index's socket) are derived from these declarations. The
verbs whose work the agents layer does (``context``, ``eval``) and the file-tool commands are
declared in :mod:`memfs.agents.verbs`.

Nothing is imported here: a one-shot ``memfs search`` loads only the declarations it needs
(:data:`memfs.ops.verbs.declare.VERBS` then holds those; the library and the registry test load
every module).
"""
