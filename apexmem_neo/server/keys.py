"""API keys bound to scopes: a key opens the routes of its scopes, and an admin key also
manages keys (``/v1/keys``, ``apexmem keys``).

A key is ``amk_<key id>_<secret>``: the id names it in listings and revocations, the secret
(32 random bytes) is shown once, when it is made. Only the SHA-256 of the whole key is stored;
a hash of 256 random bits needs no salt or slow hash, since there is nothing to guess from.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import sqlite3
from datetime import UTC, datetime
from typing import Final

from pydantic import BaseModel

from apexmem_neo.errors import InvalidInputError
from apexmem_neo.memory.messages import check_scope
from apexmem_neo.server.state import ServerState

PREFIX: Final = "amk_"


class ApiKey(BaseModel):
    """A key as listed: never its secret."""

    key_id: str
    scopes: list[str]
    admin: bool
    created_at: str
    revoked_at: str | None = None


class NewKey(ApiKey):
    """A key just made, with the one copy of its secret."""

    key: str


def utc_now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _hash(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def _key_id(key: str) -> str | None:
    """The id a presented key names, or None when it is not shaped like a key."""
    if not key.startswith(PREFIX):
        return None
    key_id, _, secret = key[len(PREFIX) :].partition("_")
    return key_id if key_id and secret else None


class KeyStore:
    """The keys table of a ``ServerState`` file."""

    def __init__(self, state: ServerState) -> None:
        self._state = state

    def create(self, scopes: list[str], admin: bool = False) -> NewKey:
        """A new key for ``scopes`` (and key management if ``admin``); a key must grant
        something, so one with no scope must be an admin key."""
        chosen = sorted({check_scope(s) for s in scopes})
        if not chosen and not admin:
            raise InvalidInputError("a key needs at least one scope (or admin)")
        key_id = secrets.token_hex(6)
        key = f"{PREFIX}{key_id}_{secrets.token_urlsafe(32)}"
        made = NewKey(key_id=key_id, scopes=chosen, admin=admin, created_at=utc_now(), key=key)
        with self._state.connect() as db:
            db.execute(
                "INSERT INTO api_keys (key_id, key_hash, scopes, admin, created_at) "
                "VALUES (?, ?, ?, ?, ?)",
                (key_id, _hash(key), json.dumps(chosen), int(admin), made.created_at),
            )
        return made

    def list(self) -> list[ApiKey]:
        """Every key, revoked ones included, in the order they were made."""
        with self._state.connect() as db:
            rows = db.execute("SELECT * FROM api_keys ORDER BY rowid").fetchall()
        return [_key(row) for row in rows]

    def revoke(self, key_id: str) -> ApiKey | None:
        """Revoke ``key_id`` (at once, for every server on this file); None if no such key.
        Revoking a revoked key keeps its first revocation time."""
        with self._state.connect() as db:
            db.execute(
                "UPDATE api_keys SET revoked_at = ? WHERE key_id = ? AND revoked_at IS NULL",
                (utc_now(), key_id),
            )
            row = db.execute("SELECT * FROM api_keys WHERE key_id = ?", (key_id,)).fetchone()
        return None if row is None else _key(row)

    def authenticate(self, key: str) -> ApiKey | None:
        """The live key ``key`` is, or None (unknown, malformed, wrong secret or revoked)."""
        key_id = _key_id(key)
        if key_id is None:
            return None
        with self._state.connect() as db:
            row = db.execute("SELECT * FROM api_keys WHERE key_id = ?", (key_id,)).fetchone()
        if row is None or row["revoked_at"] is not None:
            return None
        if not hmac.compare_digest(row["key_hash"], _hash(key)):
            return None
        return _key(row)


def _key(row: sqlite3.Row) -> ApiKey:
    return ApiKey(
        key_id=row["key_id"],
        scopes=json.loads(row["scopes"]),
        admin=bool(row["admin"]),
        created_at=row["created_at"],
        revoked_at=row["revoked_at"],
    )
