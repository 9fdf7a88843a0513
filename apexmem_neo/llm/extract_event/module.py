"""ExtractEvent: one LLM call turns one conversation turn into one event with typed facts."""

from __future__ import annotations

from datetime import datetime

import dspy

from apexmem_neo.llm.extract_event.examples import DEMOS
from apexmem_neo.llm.extract_event.models import ExtractedEvent
from apexmem_neo.llm.extract_event.signatures import ExtractEventSignature

MAX_CONTEXT_CHARS = 240
MAX_KNOWN_PROPERTIES = 40


def format_anchor(anchor: str) -> str:
    """``2023-05-08T13:56:00 (Monday)``: the weekday helps the model count days."""
    moment = datetime.fromisoformat(anchor)
    return f"{moment.isoformat(timespec='seconds')} ({moment.strftime('%A')})"


def format_context(previous: list[tuple[str, str]]) -> str:
    """The previous turns as ``speaker: text`` lines, each cut to a short length."""
    lines = []
    for speaker, text in previous:
        cut = text if len(text) <= MAX_CONTEXT_CHARS else text[: MAX_CONTEXT_CHARS - 3] + "..."
        lines.append(f"{speaker}: {cut}")
    return "\n".join(lines)


class ExtractEvent(dspy.Module):  # type: ignore[misc]
    """u = (speaker, listener, text, anchor, context, known properties) -> one ExtractedEvent.

    The LM and adapter come from ``dspy.context`` at call time; ``demos=False`` drops the
    few-shot examples (for models that do well without them).
    """

    def __init__(self, demos: bool = True) -> None:
        super().__init__()
        self.predict = dspy.Predict(ExtractEventSignature)
        if demos:
            self.predict.demos = list(DEMOS)

    def forward(
        self,
        speaker: str,
        listener: str,
        text: str,
        anchor: str,
        context: list[tuple[str, str]] | None = None,
        known_properties: list[str] | None = None,
        config: dict[str, object] | None = None,
    ) -> ExtractedEvent:
        known = ", ".join((known_properties or [])[:MAX_KNOWN_PROPERTIES])
        prediction = self.predict(
            speaker=speaker,
            listener=listener or "(none)",
            text=text,
            anchor=format_anchor(anchor),
            context=format_context(context or []) or "(start of conversation)",
            known_properties=known or "(none yet)",
            config=config or {},
        )
        event: object = prediction.event
        if isinstance(event, ExtractedEvent):
            return event
        return ExtractedEvent.model_validate(event)
