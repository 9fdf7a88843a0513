"""Fixtures of the REST server tests: a SQLite memory holding Alice's case in scope "alice"
and Bob's in scope "bob" (written straight to the store, with the hashing embedder and no LM:
no service, no model), the app over it in a TestClient, and a key per scope plus an admin
key."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from apexmem_neo import Memory
from apexmem_neo.server.app import create_app
from apexmem_neo.server.keys import KeyStore
from apexmem_neo.server.state import SqliteServerState
from apexmem_neo.testing import HashingEmbedder
from tests.unit.agent.alice import alice_batch

MAX_BODY = 64 * 1024


@dataclass
class Served:
    app: FastAPI
    client: TestClient
    memory: Memory
    keys: KeyStore
    alice: str
    bob: str
    admin: str

    def call(self, method: str, url: str, key: str | None, **options: Any) -> Any:
        headers = {"Authorization": f"Bearer {key}"} if key is not None else {}
        return self.client.request(method, url, headers=headers, **options)


def open_memory(tmp_path: Path) -> Memory:
    memory = Memory.sqlite(
        tmp_path / "m.sqlite", home=tmp_path / "home", embedder=HashingEmbedder(), lm=None
    )
    memory.store.write(alice_batch(scope="alice"))
    memory.store.write(alice_batch(prefix="bob_", name="Bob", scope="bob"))
    memory.index()
    return memory


@pytest.fixture
def memory(tmp_path: Path) -> Iterator[Memory]:
    opened = open_memory(tmp_path)
    yield opened
    opened.close()


@pytest.fixture
def served(memory: Memory, tmp_path: Path) -> Iterator[Served]:
    state = SqliteServerState(tmp_path / "m.server.sqlite")
    app = create_app(memory, state, max_body_bytes=MAX_BODY)
    keys = KeyStore(state)
    alice = keys.create(["alice"]).key
    bob = keys.create(["bob"]).key
    admin = keys.create([], admin=True).key
    with TestClient(app, raise_server_exceptions=False) as client:
        yield Served(app, client, memory, keys, alice, bob, admin)
