"""ResolveProperty: one LLM call decides an ambiguous property name against candidates."""

from __future__ import annotations

from collections.abc import Sequence

from apexmem_neo.llm.resolve_entity.module import CandidateResolver
from apexmem_neo.llm.resolve_property.models import PropertyDecision
from apexmem_neo.llm.resolve_property.signatures import ResolvePropertySignature


def format_properties(candidates: Sequence[tuple[str, str]]) -> str:
    """``1. favourite_restaurant (str)`` lines from (name, dtype) pairs."""
    lines = [f"{n}. {name} ({dtype})" for n, (name, dtype) in enumerate(candidates, start=1)]
    return "\n".join(lines) or "(none)"


class ResolveProperty(CandidateResolver[PropertyDecision]):
    """(proposed name, example, candidates) -> PropertyDecision. Only called when ambiguous."""

    decision_model = PropertyDecision
    signature = ResolvePropertySignature

    def forward(
        self,
        proposed: str,
        example: str,
        candidates: Sequence[tuple[str, str]],
        config: dict[str, object] | None = None,
    ) -> PropertyDecision:
        return self.decide(
            proposed=proposed,
            example=example,
            candidates=format_properties(candidates),
            config=config or {},
        )
