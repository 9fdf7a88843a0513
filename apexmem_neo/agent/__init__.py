"""The memory agent: a one-call fast path over prefetched memory, then ReAct over the tools."""

from apexmem_neo.agent.agent import MemoryAgent
from apexmem_neo.agent.context import prefetch, quote_turns
from apexmem_neo.agent.models import (
    ALL_TOOL_NAMES,
    TOOL_NAMES,
    AgentConfig,
    AgentResult,
    ContextOrder,
    ContextStyle,
    EvidenceItem,
    Mode,
    TraceStep,
    UnknownModeError,
)
from apexmem_neo.agent.timewords import resolve_time_words
from apexmem_neo.agent.toolset import build_tools

__all__ = [
    "ALL_TOOL_NAMES",
    "TOOL_NAMES",
    "AgentConfig",
    "AgentResult",
    "ContextOrder",
    "ContextStyle",
    "EvidenceItem",
    "MemoryAgent",
    "Mode",
    "TraceStep",
    "UnknownModeError",
    "build_tools",
    "prefetch",
    "quote_turns",
    "resolve_time_words",
]
