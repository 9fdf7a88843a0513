"""ResolveProperty: proposed property + candidates -> decision, snake_case name, dtype."""

from apexmem_neo.llm.resolve_property.models import PropertyDecision
from apexmem_neo.llm.resolve_property.module import ResolveProperty, format_properties
from apexmem_neo.llm.resolve_property.signatures import ResolvePropertySignature

__all__ = [
    "PropertyDecision",
    "ResolveProperty",
    "ResolvePropertySignature",
    "format_properties",
]
