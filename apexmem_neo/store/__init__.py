"""Storage: the GraphStore protocol and its backends (SQLite here, Neo4j beside it)."""

from apexmem_neo.store.protocol import (
    TABLES,
    ChangeRecord,
    DanglingReferenceError,
    FactRecord,
    GraphStore,
    StoreCounts,
    StoreError,
    StoreNotReadyError,
    UnknownReferenceError,
)

__all__ = [
    "TABLES",
    "ChangeRecord",
    "DanglingReferenceError",
    "FactRecord",
    "GraphStore",
    "StoreCounts",
    "StoreError",
    "StoreNotReadyError",
    "UnknownReferenceError",
]
