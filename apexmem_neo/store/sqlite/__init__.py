"""The SQLite backend of the GraphStore protocol (the embedded default)."""

from apexmem_neo.store.sqlite.store import SQLiteGraphStore

__all__ = ["SQLiteGraphStore"]
