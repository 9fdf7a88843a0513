"""The read-only query layer under GraphQuery, the CLI's ``query`` and the MCP server.

A ``QueryBackend`` runs one bounded, read-only query over the memory graph: on SQLite SQL on a
read-only connection (``sqlite_backend``, guarded by ``sql``), on Neo4j Cypher behind the static
guard and the scope rewrite (``cypher``), with SQL translated to Cypher by the shim (``shim``).
"""

from apexmem_neo.query.backend import (
    Language,
    QueryBackend,
    QueryLimits,
    QueryResult,
    SchemaInfo,
)
from apexmem_neo.query.neo4j_backend import Neo4jQueryBackend
from apexmem_neo.query.shim import Translation, sql_to_cypher
from apexmem_neo.query.sqlite_backend import SQLiteQueryBackend

__all__ = [
    "Language",
    "Neo4jQueryBackend",
    "QueryBackend",
    "QueryLimits",
    "QueryResult",
    "SQLiteQueryBackend",
    "SchemaInfo",
    "Translation",
    "sql_to_cypher",
]
