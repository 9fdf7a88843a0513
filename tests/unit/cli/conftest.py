"""Fixtures of the CLI tests: a clean environment under tmp_path and the Alice store, with or
without its search index (the packaged MiniLM model, offline; no service, no LLM)."""

from __future__ import annotations

from pathlib import Path

import pytest

from apexmem_neo.memory import Memory
from tests.unit.agent.alice import alice_store

EMBED_MODEL = "all-MiniLM-L6-v2"
SETTINGS_VARS = (
    "APEXMEM_STORE", "APEXMEM_DB", "APEXMEM_SEARCH", "APEXMEM_INDEX_NAME", "APEXMEM_LM",
    "APEXMEM_LM_API_BASE", "APEXMEM_LM_API_KEY", "APEXMEM_EMBED_CACHE", "NEO4J_PASSWORD",
    "APEXMEM_ANSWER_PROGRAM",
)  # fmt: skip


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """APEXMEM_HOME in tmp_path, the packaged embedding model, nothing else set."""
    for name in SETTINGS_VARS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("APEXMEM_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("APEXMEM_EMBED_MODEL", EMBED_MODEL)
    return tmp_path / "home"


@pytest.fixture
def alice_db(home: Path, tmp_path: Path) -> Path:
    """The Alice store (two facts, two turns), not indexed for search."""
    path = tmp_path / "alice.sqlite"
    alice_store(path).close()
    return path


@pytest.fixture
def indexed_db(alice_db: Path, home: Path) -> Path:
    """The Alice store with its embedded search index built."""
    with Memory.sqlite(alice_db, embedder=EMBED_MODEL, home=home, lm=None) as memory:
        memory.index()
    return alice_db
