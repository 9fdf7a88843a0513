"""The public API: ``Memory`` (and ``AsyncMemory``) and what their methods return."""

from apexmem_neo.errors import (
    AmbiguousEntityError,
    InvalidInputError,
    LanguageModelError,
    LanguageModelUnreachableError,
    NoLanguageModelError,
    NoSearchIndexError,
    NothingToForgetError,
    StoreNotFoundError,
    UnknownEntityError,
    UnknownModeError,
    UnknownSessionError,
)
from apexmem_neo.memory.aio import AsyncMemory
from apexmem_neo.memory.config import MemoryConfig, MemoryOptions
from apexmem_neo.memory.core import Memory
from apexmem_neo.memory.forget import ForgetResult
from apexmem_neo.memory.listing import Listing
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
    "AmbiguousEntityError",
    "AsyncMemory",
    "EntityHistory",
    "ForgetResult",
    "InvalidInputError",
    "LanguageModelError",
    "LanguageModelUnreachableError",
    "Listing",
    "Memory",
    "MemoryConfig",
    "MemoryOptions",
    "MemoryStats",
    "NoLanguageModelError",
    "NoSearchIndexError",
    "NothingToForgetError",
    "StoreNotFoundError",
    "StoredFact",
    "UnknownEntityError",
    "UnknownModeError",
    "UnknownSessionError",
]
