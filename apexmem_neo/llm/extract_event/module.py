"""ExtractEvent: one LLM call turns one conversation turn into one event with typed facts."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Generic, TypeVar

import dspy
from pydantic import BaseModel

from apexmem_neo.llm.extract_event.examples import DEMOS
from apexmem_neo.llm.extract_event.models import ExtractedEvent
from apexmem_neo.llm.extract_event.signatures import ExtractEventSignature

MAX_CONTEXT_CHARS = 240
MAX_KNOWN_PROPERTIES = 40
EventT = TypeVar("EventT", bound=BaseModel)


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


class TurnExtractor(dspy.Module, Generic[EventT]):  # type: ignore[misc]
    """One LLM call from one conversation turn to one event of ``event_model``: the inputs
    every turn-extraction signature takes, formatted alike, and the ``event`` it answers.

    The LM and adapter come from ``dspy.context`` at call time.
    """

    event_model: type[EventT]

    def __init__(self, signature: type[dspy.Signature], demos: Sequence[dspy.Example]) -> None:
        super().__init__()
        self.predict = dspy.Predict(signature)
        self.predict.demos = list(demos)

    def forward(
        self,
        speaker: str,
        listener: str,
        text: str,
        anchor: str,
        context: Sequence[tuple[str, str]] | None = None,
        known_properties: Sequence[str] | None = None,
        config: dict[str, object] | None = None,
    ) -> EventT:
        known = ", ".join(list(known_properties or ())[:MAX_KNOWN_PROPERTIES])
        prediction = self.predict(
            speaker=speaker,
            listener=listener or "(none)",
            text=text,
            anchor=format_anchor(anchor),
            context=format_context(list(context or ())) or "(start of conversation)",
            known_properties=known or "(none yet)",
            config=config or {},
        )
        event: object = prediction.event
        if isinstance(event, self.event_model):
            return event
        return self.event_model.model_validate(event)


class ExtractEvent(TurnExtractor[ExtractedEvent]):
    """u = (speaker, listener, text, anchor, context, known properties) -> one ExtractedEvent.

    ``demos=False`` drops the few-shot examples (for models that do well without them).
    """

    event_model = ExtractedEvent

    def __init__(self, demos: bool = True) -> None:
        super().__init__(ExtractEventSignature, DEMOS if demos else ())
