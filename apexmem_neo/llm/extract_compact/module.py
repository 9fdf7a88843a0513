"""ExtractCompact: one LLM call turns one conversation turn into one compact event."""

from __future__ import annotations

from apexmem_neo.llm.extract_compact.examples import DEMOS
from apexmem_neo.llm.extract_compact.models import CompactEvent
from apexmem_neo.llm.extract_compact.signatures import ExtractCompactSignature
from apexmem_neo.llm.extract_event.module import TurnExtractor


class ExtractCompact(TurnExtractor[CompactEvent]):
    """(known properties, anchor, previous turns, speaker, listener, text) -> CompactEvent.

    ``demos=False`` drops the few-shot examples.
    """

    event_model = CompactEvent

    def __init__(self, demos: bool = True) -> None:
        super().__init__(ExtractCompactSignature, DEMOS if demos else ())
