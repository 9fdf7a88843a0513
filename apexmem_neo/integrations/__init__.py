"""Adapters that let agent frameworks use a ``Memory`` (the ``langgraph`` extra).

- ``apexmem_neo.integrations.langgraph``: ``ApexMemStore``, LangGraph's long-term memory store
  (``BaseStore``) kept append-only in a memory's scopes.
- ``apexmem_neo.integrations.langchain``: ``memory_tools``, LangChain tools (search, ask,
  history, current, as_of) over one scope, for any tool-calling agent.

Each module imports its framework, so importing this package needs neither.
"""
