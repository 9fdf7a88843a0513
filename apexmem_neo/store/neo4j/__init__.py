"""The Neo4j backend of the GraphStore protocol (the primary store)."""

from apexmem_neo.store.neo4j.store import Neo4jGraphStore

__all__ = ["Neo4jGraphStore"]
