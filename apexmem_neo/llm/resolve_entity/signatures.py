"""The ResolveEntity signature; its docstring is the instruction the model sees."""

from __future__ import annotations

import dspy

from apexmem_neo.llm.resolve_entity.models import EntityDecision


class ResolveEntitySignature(dspy.Signature):  # type: ignore[misc]
    """Decide whether a mention in a conversation refers to one of the numbered known
    entities. choose_existing with its candidate number only when they are surely the same
    real-world thing (a nickname, a short form, a spelling variant); propose_new when it is
    a different thing; none when the mention is not a real entity (a pronoun, a feeling,
    a generic word). Give the normalised full name, other names as aliases, the type, a
    confidence between 0 and 1 and a one-sentence rationale."""

    mention: str = dspy.InputField()
    mention_type: str = dspy.InputField()
    text: str = dspy.InputField(desc="the sentence the mention comes from")
    candidates: str = dspy.InputField(desc="numbered known entities: name (type; aliases)")
    decision: EntityDecision = dspy.OutputField()
