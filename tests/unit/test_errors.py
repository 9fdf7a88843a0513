"""The exception hierarchy: every class in apexmem_neo.errors is an ApexMemError, and the names
moved there still import from where they used to live."""

from __future__ import annotations

import importlib
import inspect

import pytest

from apexmem_neo import errors

MOVED = [
    ("apexmem_neo.memory", "InvalidInputError"),
    ("apexmem_neo.memory", "NoLanguageModelError"),
    ("apexmem_neo.memory", "NoSearchIndexError"),
    ("apexmem_neo.memory", "NothingToForgetError"),
    ("apexmem_neo.memory", "StoreNotFoundError"),
    ("apexmem_neo.memory", "UnknownModeError"),
    ("apexmem_neo.memory.messages", "InvalidInputError"),
    ("apexmem_neo.memory.core", "NoLanguageModelError"),
    ("apexmem_neo.memory.build", "StoreNotFoundError"),
    ("apexmem_neo.memory.forget", "NothingToForgetError"),
    ("apexmem_neo.agent.models", "UnknownModeError"),
    ("apexmem_neo.tools", "ToolError"),
    ("apexmem_neo.search.protocol", "SearchError"),
    ("apexmem_neo.search.protocol", "EmptyQueryError"),
    ("apexmem_neo.search.protocol", "MissingScopeError"),
    ("apexmem_neo.search.protocol", "EmbedderMismatchError"),
    ("apexmem_neo.search.protocol", "UnscopedIndexError"),
    ("apexmem_neo.search.protocol", "REBUILD_COMMAND"),
    ("apexmem_neo.search.packaged_models", "EmbedderError"),
    ("apexmem_neo.store.protocol", "StoreError"),
    ("apexmem_neo.store.protocol", "StoreNotReadyError"),
    ("apexmem_neo.store.protocol", "DanglingReferenceError"),
    ("apexmem_neo.store.protocol", "UnknownReferenceError"),
    ("apexmem_neo.store.protocol", "InvalidCursorError"),
    ("apexmem_neo.store.bulk", "BulkWriteError"),
    ("apexmem_neo.store.neo4j.cypher_files", "CypherFileError"),
    ("apexmem_neo.memory.transfer", "TransferError"),
    ("apexmem_neo.construction.loaders", "LoaderError"),
]

KEEPS_ITS_BUILTIN_BASE = [
    ("EmptyQueryError", ValueError),
    ("MissingScopeError", ValueError),
    ("InvalidCursorError", ValueError),
    ("LoaderError", ValueError),
]


def test_every_error_class_is_an_apexmem_error() -> None:
    classes = [
        c for _, c in inspect.getmembers(errors, inspect.isclass) if c.__module__ == errors.__name__
    ]
    assert len(classes) > 10
    assert all(issubclass(c, errors.ApexMemError) for c in classes)


@pytest.mark.parametrize(("name", "base"), KEEPS_ITS_BUILTIN_BASE)
def test_a_moved_error_keeps_its_builtin_base(name: str, base: type[Exception]) -> None:
    assert issubclass(getattr(errors, name), base)


def test_search_and_store_errors_keep_their_bases() -> None:
    assert issubclass(errors.EmbedderError, errors.SearchError)
    assert issubclass(errors.BulkWriteError, errors.StoreError)
    assert issubclass(errors.CypherFileError, errors.StoreError)
    assert issubclass(errors.InvalidCursorError, errors.StoreError)


@pytest.mark.parametrize(("module", "name"), MOVED)
def test_a_moved_error_still_imports_from_its_old_home(module: str, name: str) -> None:
    assert getattr(importlib.import_module(module), name) is getattr(errors, name)
