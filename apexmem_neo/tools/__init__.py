"""The agent's read tools: SchemaViewer, EntityLookup, GraphQuery, Search and Timeline.

Each tool function takes what it reads (a ``QueryBackend`` from ``apexmem_neo.query``, a
``GraphStore``, a searcher) and returns a ``ToolResult``: markdown, or the ``ToolError`` that
stopped it (it never raises). The query backends are re-exported here for the import paths
that used them.
"""

from apexmem_neo.query.backend import QueryBackend, QueryLimits, QueryResult, ToolError
from apexmem_neo.query.neo4j_backend import Neo4jQueryBackend
from apexmem_neo.query.shim.translate import Translation, sql_to_cypher
from apexmem_neo.query.sqlite_backend import SQLiteQueryBackend
from apexmem_neo.tools.graph_query import graph_query_tool, run_graph_query
from apexmem_neo.tools.schema_viewer import schema_viewer_tool, view_schema

__all__ = [
    "Neo4jQueryBackend",
    "QueryBackend",
    "QueryLimits",
    "QueryResult",
    "SQLiteQueryBackend",
    "ToolError",
    "Translation",
    "graph_query_tool",
    "run_graph_query",
    "schema_viewer_tool",
    "sql_to_cypher",
    "view_schema",
]
