"""The ExtractEvent signature; its docstring is the instruction the model sees."""

from __future__ import annotations

import dspy

from apexmem_neo.llm.extract_event.models import ExtractedEvent


class ExtractEventSignature(dspy.Signature):  # type: ignore[misc]
    """Extract one event and its facts from a conversation turn for a temporal memory.
    participants: people and things involved; the speaker has role Speaker, the listener
    Listener, others Mentioned. facts: atomic statements about a subject (a name, never
    "I" or "you"); property in snake_case, reusing a known property when one fits; value
    typed by dtype: bool for yes/no attributes, int/float for numbers, date for days,
    enum for emotional_state and other fixed categories, str otherwise. when: the time
    words exactly as said ("yesterday", "last May") or null; t_from: the ISO date they
    mean counted from the anchor, null when no time is said. evidence: the shortest exact
    quote from the text. Greetings and small talk give facts: []."""

    speaker: str = dspy.InputField()
    listener: str = dspy.InputField()
    text: str = dspy.InputField()
    anchor: str = dspy.InputField(desc="when the turn was said: ISO datetime and weekday")
    context: str = dspy.InputField(desc="the previous turns")
    known_properties: str = dspy.InputField()
    event: ExtractedEvent = dspy.OutputField()
