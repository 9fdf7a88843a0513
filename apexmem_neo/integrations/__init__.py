"""Adapters that let agent frameworks use a ``Memory`` (the ``langgraph`` and ``llamaindex``
extras).

- ``apexmem_neo.integrations.langgraph``: ``ApexMemStore``, LangGraph's long-term memory store
  (``BaseStore``) kept append-only in a memory's scopes.
- ``apexmem_neo.integrations.langchain``: ``memory_tools``, LangChain tools (search, ask,
  history, current, as_of) over one scope, for any tool-calling agent.
- ``apexmem_neo.integrations.llamaindex``: ``ApexMemBlock``, a long-term memory block for
  LlamaIndex's chat ``Memory`` over one scope.
- ``apexmem_neo.integrations.render``: the text those show a model.

Each framework module imports its framework, so importing this package needs none of them.
"""
