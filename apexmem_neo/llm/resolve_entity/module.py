"""ResolveEntity: one LLM call decides an ambiguous mention against numbered candidates."""

from __future__ import annotations

from collections.abc import Sequence

import dspy

from apexmem_neo.llm.resolve_entity.models import EntityDecision
from apexmem_neo.llm.resolve_entity.signatures import ResolveEntitySignature


def format_candidates(candidates: Sequence[tuple[str, str, Sequence[str]]]) -> str:
    """``1. Melanie (Person; aliases: Mel)`` lines from (name, type, aliases) triples."""
    lines = []
    for number, (name, kind, aliases) in enumerate(candidates, start=1):
        extra = f"; aliases: {', '.join(aliases)}" if aliases else ""
        lines.append(f"{number}. {name} ({kind}{extra})")
    return "\n".join(lines) or "(none)"


class ResolveEntity(dspy.Module):  # type: ignore[misc]
    """(mention, type, text, candidates) -> EntityDecision. Only called when ambiguous."""

    def __init__(self) -> None:
        super().__init__()
        self.predict = dspy.Predict(ResolveEntitySignature)

    def forward(
        self,
        mention: str,
        mention_type: str,
        text: str,
        candidates: Sequence[tuple[str, str, Sequence[str]]],
        config: dict[str, object] | None = None,
    ) -> EntityDecision:
        prediction = self.predict(
            mention=mention,
            mention_type=mention_type,
            text=text,
            candidates=format_candidates(candidates),
            config=config or {},
        )
        decision: object = prediction.decision
        if isinstance(decision, EntityDecision):
            return decision
        return EntityDecision.model_validate(decision)
