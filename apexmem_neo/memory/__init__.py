"""The public API: ``Memory`` (and ``AsyncMemory``) and what their methods return."""

from apexmem_neo.memory.aio import AsyncMemory
from apexmem_neo.memory.build import StoreNotFoundError
from apexmem_neo.memory.core import (
    Memory,
    NoLanguageModelError,
    NoSearchIndexError,
    UnknownEntityError,
)
from apexmem_neo.memory.forget import ForgetResult
from apexmem_neo.memory.messages import InvalidInputError
from apexmem_neo.memory.results import (
    AddedTurn,
    AddResult,
    EntityHistory,
    MemoryStats,
    StoredFact,
)

__all__ = [
    "AddResult",
    "AddedTurn",
    "AsyncMemory",
    "EntityHistory",
    "ForgetResult",
    "InvalidInputError",
    "Memory",
    "MemoryStats",
    "NoLanguageModelError",
    "NoSearchIndexError",
    "StoreNotFoundError",
    "StoredFact",
    "UnknownEntityError",
]
