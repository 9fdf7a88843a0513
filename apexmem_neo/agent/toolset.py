"""The agent's tool set by name: SchemaViewer, EntityLookup, GraphQuery, Search (the paper's
four) and the optional Timeline."""

from __future__ import annotations

from collections.abc import Iterable

from apexmem_neo.agent.models import ALL_TOOL_NAMES, TOOL_NAMES
from apexmem_neo.errors import ApexMemError
from apexmem_neo.query.backend import Language, QueryBackend, QueryLimits
from apexmem_neo.store.protocol import GraphStore
from apexmem_neo.tools.entity_lookup import Searcher, entity_lookup_tool
from apexmem_neo.tools.graph_query import graph_query_tool
from apexmem_neo.tools.result import Tool
from apexmem_neo.tools.schema_viewer import schema_viewer_tool
from apexmem_neo.tools.search_tool import search_tool
from apexmem_neo.tools.timeline import timeline_tool


def build_tools(
    store: GraphStore,
    backend: QueryBackend | None = None,
    searcher: Searcher | None = None,
    names: Iterable[str] = TOOL_NAMES,
    max_facts: int = 30,
    limits: QueryLimits | None = None,
    language: Language | None = None,
) -> dict[str, Tool]:
    """The named tools that can be built from what is given (Search needs a searcher,
    SchemaViewer and GraphQuery a query backend); an unknown name raises ``ApexMemError``.
    ``language`` sets GraphQuery's default language (default: the backend's native one)."""
    wanted = list(dict.fromkeys(names))
    unknown = [n for n in wanted if n not in ALL_TOOL_NAMES]
    if unknown:
        raise ApexMemError(f"unknown tool(s) {unknown}; choose from {list(ALL_TOOL_NAMES)}")
    tools: dict[str, Tool] = {}
    for name in wanted:
        if name == "EntityLookup":
            tools[name] = entity_lookup_tool(store, max_facts)
        elif name == "Timeline":
            tools[name] = timeline_tool(store, max_facts)
        elif name == "Search" and searcher is not None:
            tools[name] = search_tool(searcher)
        elif name == "GraphQuery" and backend is not None:
            tools[name] = graph_query_tool(backend, limits, language)
        elif name == "SchemaViewer" and backend is not None:
            tools[name] = schema_viewer_tool(backend)
    return tools
