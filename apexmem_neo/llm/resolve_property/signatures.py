"""The ResolveProperty signature; its docstring is the instruction the model sees."""

from __future__ import annotations

import dspy

from apexmem_neo.llm.resolve_property.models import PropertyDecision


class ResolvePropertySignature(dspy.Signature):  # type: ignore[misc]
    """Decide whether a proposed property name means the same as one of the numbered known
    properties. choose_existing with its candidate number only when both describe the same
    attribute (synonyms, spelling variants, singular/plural); propose_new otherwise; none
    when it is not a property at all. Give the snake_case name, the value type (str, int,
    float, bool, date, datetime, enum, url, list), a confidence between 0 and 1 and a
    one-sentence rationale."""

    proposed: str = dspy.InputField(desc="proposed property name")
    example: str = dspy.InputField(desc="subject, property and value as extracted")
    candidates: str = dspy.InputField(desc="numbered known properties: name (dtype)")
    decision: PropertyDecision = dspy.OutputField()
