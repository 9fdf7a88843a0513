"""ExtractCompact: one LLM call turns one conversation turn into one compact event."""

from __future__ import annotations

from collections.abc import Sequence

import dspy

from apexmem_neo.llm.extract_compact.examples import DEMOS
from apexmem_neo.llm.extract_compact.models import CompactEvent
from apexmem_neo.llm.extract_compact.signatures import ExtractCompactSignature
from apexmem_neo.llm.extract_event.module import format_anchor, format_context

MAX_KNOWN_PROPERTIES = 40


class ExtractCompact(dspy.Module):  # type: ignore[misc]
    """(known properties, anchor, previous turns, speaker, listener, text) -> CompactEvent.

    The LM and adapter come from ``dspy.context`` at call time; ``demos=False`` drops the
    few-shot examples.
    """

    def __init__(self, demos: bool = True) -> None:
        super().__init__()
        self.predict = dspy.Predict(ExtractCompactSignature)
        if demos:
            self.predict.demos = list(DEMOS)

    def forward(
        self,
        speaker: str,
        listener: str,
        text: str,
        anchor: str,
        context: Sequence[tuple[str, str]] = (),
        known_properties: Sequence[str] = (),
        config: dict[str, object] | None = None,
    ) -> CompactEvent:
        known = ", ".join(list(known_properties)[:MAX_KNOWN_PROPERTIES])
        prediction = self.predict(
            known_properties=known or "(none yet)",
            anchor=format_anchor(anchor),
            context=format_context(list(context)) or "(start of conversation)",
            speaker=speaker,
            listener=listener or "(none)",
            text=text,
            config=config or {},
        )
        event: object = prediction.event
        if isinstance(event, CompactEvent):
            return event
        return CompactEvent.model_validate(event)
