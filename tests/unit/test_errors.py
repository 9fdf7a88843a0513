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
]


def test_every_error_class_is_an_apexmem_error() -> None:
    classes = [
        c for _, c in inspect.getmembers(errors, inspect.isclass) if c.__module__ == errors.__name__
    ]
    assert len(classes) > 10
    assert all(issubclass(c, errors.ApexMemError) for c in classes)


@pytest.mark.parametrize(("module", "name"), MOVED)
def test_a_moved_error_still_imports_from_its_old_home(module: str, name: str) -> None:
    assert getattr(importlib.import_module(module), name) is getattr(errors, name)
