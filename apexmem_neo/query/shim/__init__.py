"""The SQL-compat shim: a guarded SELECT over the paper's tables, written as Cypher for Neo4j.

``translate`` walks the query (tables to labels, joins to patterns), ``aliases`` resolves table
aliases and columns, ``expressions`` and ``projection`` write the expressions and the SELECT
list, ``dates`` SQLite's date functions and ``patterns`` LIKE / GLOB as safe regexes.
"""

from apexmem_neo.query.shim.translate import Translation, sql_to_cypher

__all__ = ["Translation", "sql_to_cypher"]
