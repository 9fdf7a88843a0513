"""Moved to ``apexmem_neo.search.indexer`` (the indexer reads the store's typed pages now).

This name is kept only for ``apexmem_neo.cli.progress``, which imports ``Progress`` from
here; once it imports from ``apexmem_neo.search.indexer``, this module goes.
"""

from apexmem_neo.search.indexer import Progress

__all__ = ["Progress"]
