"""memfs as the backend of agent frameworks' own memory interfaces.

Each module needs its framework, installed with an extra, and imports it at once: a missing
extra fails loudly on import, naming the extra to install.

* :mod:`memfs.integrations.anthropic` (``pip install 'memfs[anthropic]'``): the Anthropic
  ``memory_20250818`` tool, as subclasses of the SDK's ``BetaAbstractMemoryTool`` and
  ``BetaAsyncAbstractMemoryTool``.
* :mod:`memfs.integrations.langgraph` (``pip install 'memfs[langgraph]'``): a LangGraph
  ``BaseStore``.

Layer: above the library (``memfs.api``), below the CLI; nothing in memfs imports these modules.
"""

from __future__ import annotations

import importlib.util


def require(module: str, extra: str) -> None:
    """Fail with a message naming the extra when the framework ``module`` is not installed."""
    if importlib.util.find_spec(module) is None:
        raise ModuleNotFoundError(
            f"this memfs integration needs the {module!r} package: pip install 'memfs[{extra}]'", name=module
        )
