"""apexmem-neo: append-only, event-anchored temporal memory for LLM agents (APEX-MEM).

``Memory`` is the way in::

    from apexmem_neo import Memory

    with Memory.sqlite("memory.sqlite") as memory:
        memory.add([{"role": "user", "content": "I moved to Seattle."}], scope="alice")
        print(memory.ask("Where does Alice live?", scope="alice").answer)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from apexmem_neo.memory import AsyncMemory, Memory, MemoryConfig

__version__ = "0.2.0"

__all__ = ["AsyncMemory", "Memory", "MemoryConfig", "__version__"]


def __getattr__(name: str) -> Any:
    """``Memory``, ``AsyncMemory`` and ``MemoryConfig`` load on first use, so importing a
    submodule (the CLI, the settings) does not load DSPy and the stores."""
    if name in ("Memory", "AsyncMemory", "MemoryConfig"):
        from apexmem_neo import memory

        return getattr(memory, name)
    raise AttributeError(f"module 'apexmem_neo' has no attribute {name!r}")
