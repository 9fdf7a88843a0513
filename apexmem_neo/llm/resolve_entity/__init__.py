"""ResolveEntity: mention + candidates -> choose_existing | propose_new | none."""

from apexmem_neo.llm.resolve_entity.models import Decision, EntityDecision
from apexmem_neo.llm.resolve_entity.module import ResolveEntity, format_candidates
from apexmem_neo.llm.resolve_entity.signatures import ResolveEntitySignature

__all__ = [
    "Decision",
    "EntityDecision",
    "ResolveEntity",
    "ResolveEntitySignature",
    "format_candidates",
]
