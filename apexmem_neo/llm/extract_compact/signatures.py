"""The ExtractCompact signature; its docstring is the instruction the model sees.

Input fields go from the slowest-changing to the fastest (known properties, the anchor, the
previous turns, then the turn itself), so consecutive calls share a long prompt prefix that
the server keeps cached.
"""

from __future__ import annotations

import dspy

from apexmem_neo.llm.extract_compact.models import CompactEvent


class ExtractCompactSignature(dspy.Signature):  # type: ignore[misc]
    """Extract one event and its facts from a conversation turn for a temporal memory.
    event: what the turn reports, in snake_case. facts: atomic statements about a subject (a
    name, never "I" or "you"); property in snake_case, reusing a known property when one fits;
    value a bool for yes/no attributes, a number for amounts, else short text. when: the time
    words exactly as said ("yesterday", "last May") or null. Greetings and small talk give
    facts: []."""

    known_properties: str = dspy.InputField()
    anchor: str = dspy.InputField(desc="when the turn was said: ISO datetime and weekday")
    context: str = dspy.InputField(desc="the previous turns")
    speaker: str = dspy.InputField()
    listener: str = dspy.InputField()
    text: str = dspy.InputField()
    event: CompactEvent = dspy.OutputField()
