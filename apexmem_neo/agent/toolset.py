"""The agent's tool set by name: SchemaViewer, EntityLookup, GraphQuery, Search (the paper's
four) and the optional Timeline."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from apexmem_neo.agent.models import ALL_TOOL_NAMES, TOOL_NAMES
from apexmem_neo.errors import ApexMemError
from apexmem_neo.store.protocol import GraphStore
from apexmem_neo.tools.backend import Language, QueryBackend, QueryLimits
from apexmem_neo.tools.entity_lookup import Searcher, entity_lookup_tool
from apexmem_neo.tools.graph_query import GRAPH_QUERY_DOC, graph_query_tool, run_graph_query
from apexmem_neo.tools.schema_viewer import schema_viewer_tool
from apexmem_neo.tools.search_tool import search_tool
from apexmem_neo.tools.timeline import timeline_tool

Tool = Callable[..., str]


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
            tools[name] = entity_lookup_tool(store, searcher, max_facts)
        elif name == "Timeline":
            tools[name] = timeline_tool(store, searcher, max_facts)
        elif name == "Search" and searcher is not None:
            tools[name] = search_tool(searcher)
        elif name == "GraphQuery" and backend is not None:
            tools[name] = _graph_query(backend, limits, language)
        elif name == "SchemaViewer" and backend is not None:
            tools[name] = schema_viewer_tool(backend)
    return tools


def _graph_query(
    backend: QueryBackend, limits: QueryLimits | None, language: Language | None
) -> Tool:
    if language is None or language == backend.native_language:
        return graph_query_tool(backend, limits)
    bound = limits or QueryLimits()
    default: str = language

    def graph_query(
        query: str, language: str = default, params: dict[str, Any] | None = None
    ) -> str:
        return run_graph_query(backend, query, language, params, bound)

    graph_query.__name__ = graph_query.__qualname__ = "GraphQuery"
    graph_query.__doc__ = GRAPH_QUERY_DOC.format(
        default=default, backend=backend.name, max_rows=bound.max_rows, timeout=bound.timeout_s
    )
    return graph_query
