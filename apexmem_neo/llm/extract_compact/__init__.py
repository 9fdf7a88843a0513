"""ExtractCompact: a conversation turn -> one compact event with mentions and facts."""

from apexmem_neo.llm.extract_compact.models import CompactEvent, CompactFact, Mention
from apexmem_neo.llm.extract_compact.module import ExtractCompact
from apexmem_neo.llm.extract_compact.signatures import ExtractCompactSignature

__all__ = ["CompactEvent", "CompactFact", "ExtractCompact", "ExtractCompactSignature", "Mention"]
