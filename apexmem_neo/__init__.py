"""apexmem-neo: append-only, event-anchored temporal memory for LLM agents (APEX-MEM)."""

__version__ = "0.1.0"
