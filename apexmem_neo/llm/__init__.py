"""Language-model plumbing: DSPy LM construction and structured output for local servers."""

from apexmem_neo.llm.lm import SchemaJSONAdapter, make_lm, quiet_litellm

__all__ = ["SchemaJSONAdapter", "make_lm", "quiet_litellm"]
