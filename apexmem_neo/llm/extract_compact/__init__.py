"""ExtractCompact: a conversation turn -> one compact event with its facts."""

from apexmem_neo.llm.extract_compact.models import CompactEvent, CompactFact
from apexmem_neo.llm.extract_compact.module import ExtractCompact
from apexmem_neo.llm.extract_compact.signatures import ExtractCompactSignature

__all__ = ["CompactEvent", "CompactFact", "ExtractCompact", "ExtractCompactSignature"]
