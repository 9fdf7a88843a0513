"""API keys bound to scopes: a key opens the routes of its scopes, and an admin key also
manages keys (``/v1/keys``, ``apexmem keys``).

A key is ``amk_<key id>_<secret>``: the id names it in listings and revocations, the secret
(32 random bytes) is shown once, when it is made. Only the SHA-256 of the whole key is stored;
a hash of 256 random bits needs no salt or slow hash, since there is nothing to guess from.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from typing import Final

from apexmem_neo.errors import InvalidInputError
from apexmem_neo.memory.messages import check_scope
from apexmem_neo.server.records import ApiKey, StoredKey, utc_now
from apexmem_neo.server.state import ServerStateStore

PREFIX: Final = "amk_"


class NewKey(ApiKey):
    """A key just made, with the one copy of its secret."""

    key: str


def _hash(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def _key_id(key: str) -> str | None:
    """The id a presented key names, or None when it is not shaped like a key."""
    if not key.startswith(PREFIX):
        return None
    key_id, _, secret = key[len(PREFIX) :].partition("_")
    return key_id if key_id and secret else None


def _listed(key: StoredKey) -> ApiKey:
    return ApiKey.model_validate(key.model_dump(exclude={"key_hash"}))


class KeyStore:
    """The keys of a ``ServerStateStore``: made, listed, revoked and checked here, stored
    there (as hashes)."""

    def __init__(self, state: ServerStateStore) -> None:
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
        stored = StoredKey(**made.model_dump(exclude={"key"}), key_hash=_hash(key))
        self._state.add_key(stored)
        return made

    def list(self) -> list[ApiKey]:
        """Every key, revoked ones included, in the order they were made."""
        return [_listed(key) for key in self._state.list_keys()]

    def revoke(self, key_id: str) -> ApiKey | None:
        """Revoke ``key_id`` (at once, for every server on this state store); None if no
        such key. Revoking a revoked key keeps its first revocation time."""
        revoked = self._state.revoke_key(key_id, utc_now())
        return None if revoked is None else _listed(revoked)

    def authenticate(self, key: str) -> ApiKey | None:
        """The live key ``key`` is, or None (unknown, malformed, wrong secret or revoked)."""
        key_id = _key_id(key)
        if key_id is None:
            return None
        stored = self._state.get_key(key_id)
        if stored is None or stored.revoked_at is not None:
            return None
        if not hmac.compare_digest(stored.key_hash, _hash(key)):
            return None
        return _listed(stored)


def copy_keys(source: ServerStateStore, target: ServerStateStore) -> int:
    """Copy into ``target`` the keys of ``source`` it lacks (a state file of an earlier
    version, whose keys now live in Neo4j); returns how many."""
    copied = 0
    for key in source.list_keys():
        if target.get_key(key.key_id) is None:
            target.add_key(key)
            copied += 1
    return copied
