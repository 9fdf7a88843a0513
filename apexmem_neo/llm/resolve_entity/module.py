"""ResolveEntity: one LLM call decides an ambiguous mention against numbered candidates."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Generic, TypeVar

import dspy
from pydantic import BaseModel

from apexmem_neo.llm.resolve_entity.models import EntityDecision
from apexmem_neo.llm.resolve_entity.signatures import ResolveEntitySignature

DecisionT = TypeVar("DecisionT", bound=BaseModel)


class CandidateResolver(dspy.Module, Generic[DecisionT]):  # type: ignore[misc]
    """One LLM call that decides an ambiguous name against numbered candidates: the
    ``signature``'s ``decision`` read as ``decision_model`` (free-text models answer a dict)."""

    decision_model: type[DecisionT]
    signature: type[dspy.Signature]

    def __init__(self) -> None:
        super().__init__()
        self.predict = dspy.Predict(self.signature)

    def decide(self, **inputs: object) -> DecisionT:
        """The decision the model gives for the signature's ``inputs``."""
        decision: object = self.predict(**inputs).decision
        if isinstance(decision, self.decision_model):
            return decision
        return self.decision_model.model_validate(decision)


class ResolveEntity(CandidateResolver[EntityDecision]):
    """(mention, type, text, candidates) -> EntityDecision. Only called when ambiguous."""

    decision_model = EntityDecision
    signature = ResolveEntitySignature

    def forward(
        self,
        mention: str,
        mention_type: str,
        text: str,
        candidates: Sequence[tuple[str, str, Sequence[str]]],
        config: dict[str, object] | None = None,
    ) -> EntityDecision:
        return self.decide(
            mention=mention,
            mention_type=mention_type,
            text=text,
            candidates=format_candidates(candidates),
            config=config or {},
        )


def format_candidates(candidates: Sequence[tuple[str, str, Sequence[str]]]) -> str:
    """``1. Melanie (Person; aliases: Mel)`` lines from (name, type, aliases) triples."""
    lines = []
    for number, (name, kind, aliases) in enumerate(candidates, start=1):
        extra = f"; aliases: {', '.join(aliases)}" if aliases else ""
        lines.append(f"{number}. {name} ({kind}{extra})")
    return "\n".join(lines) or "(none)"
