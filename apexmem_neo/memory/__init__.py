"""The public API: ``Memory`` (and ``AsyncMemory``) and what their methods return."""

from apexmem_neo.agent.models import UnknownModeError
from apexmem_neo.errors import (
    AmbiguousEntityError,
    LanguageModelError,
    LanguageModelUnreachableError,
    UnknownEntityError,
)
from apexmem_neo.memory.aio import AsyncMemory
from apexmem_neo.memory.build import StoreNotFoundError
from apexmem_neo.memory.core import (
    Memory,
    NoLanguageModelError,
    NoSearchIndexError,
)
from apexmem_neo.memory.forget import ForgetResult, NothingToForgetError
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
    "AmbiguousEntityError",
    "AsyncMemory",
    "EntityHistory",
    "ForgetResult",
    "InvalidInputError",
    "LanguageModelError",
    "LanguageModelUnreachableError",
    "Memory",
    "MemoryStats",
    "NoLanguageModelError",
    "NoSearchIndexError",
    "NothingToForgetError",
    "StoreNotFoundError",
    "StoredFact",
    "UnknownEntityError",
    "UnknownModeError",
]
