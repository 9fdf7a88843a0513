"""ResolveProperty: one LLM call decides an ambiguous property name against candidates."""

from __future__ import annotations

from collections.abc import Sequence

import dspy

from apexmem_neo.llm.resolve_property.models import PropertyDecision
from apexmem_neo.llm.resolve_property.signatures import ResolvePropertySignature


def format_properties(candidates: Sequence[tuple[str, str]]) -> str:
    """``1. favourite_restaurant (str)`` lines from (name, dtype) pairs."""
    lines = [f"{n}. {name} ({dtype})" for n, (name, dtype) in enumerate(candidates, start=1)]
    return "\n".join(lines) or "(none)"


class ResolveProperty(dspy.Module):  # type: ignore[misc]
    """(proposed name, example, candidates) -> PropertyDecision. Only called when ambiguous."""

    def __init__(self) -> None:
        super().__init__()
        self.predict = dspy.Predict(ResolvePropertySignature)

    def forward(
        self,
        proposed: str,
        example: str,
        candidates: Sequence[tuple[str, str]],
        config: dict[str, object] | None = None,
    ) -> PropertyDecision:
        prediction = self.predict(
            proposed=proposed,
            example=example,
            candidates=format_properties(candidates),
            config=config or {},
        )
        decision: object = prediction.decision
        if isinstance(decision, PropertyDecision):
            return decision
        return PropertyDecision.model_validate(decision)
