"""The agent's read-only tools: GraphQuery and SchemaViewer over a ``QueryBackend``.

Build a backend (``SQLiteQueryBackend(path)`` or ``Neo4jQueryBackend(driver)``), then the
tools the agent calls: ``graph_query_tool(backend)`` and ``schema_viewer_tool(backend)``.
Both return markdown and never raise; problems come back under an "## Error:" heading.
"""

from apexmem_neo.tools.backend import QueryBackend, QueryLimits, QueryResult, ToolError
from apexmem_neo.tools.graph_query import graph_query_tool, run_graph_query
from apexmem_neo.tools.neo4j_backend import Neo4jQueryBackend
from apexmem_neo.tools.schema_viewer import schema_viewer_tool, view_schema
from apexmem_neo.tools.sql_to_cypher import Translation, sql_to_cypher
from apexmem_neo.tools.sqlite_backend import SQLiteQueryBackend

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
