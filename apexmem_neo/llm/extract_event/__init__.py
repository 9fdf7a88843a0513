"""ExtractEvent: a conversation turn -> one event with participants and typed facts."""

from apexmem_neo.llm.extract_event.models import (
    ExtractedEvent,
    ExtractedFact,
    ExtractedParticipant,
)
from apexmem_neo.llm.extract_event.module import ExtractEvent, format_anchor, format_context
from apexmem_neo.llm.extract_event.signatures import ExtractEventSignature

__all__ = [
    "ExtractEvent",
    "ExtractEventSignature",
    "ExtractedEvent",
    "ExtractedFact",
    "ExtractedParticipant",
    "format_anchor",
    "format_context",
]
