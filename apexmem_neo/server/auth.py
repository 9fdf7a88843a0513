"""Who is calling: every route (but the OpenAPI schema and its docs page) needs
``Authorization: Bearer KEY``, and a key opens only its own scopes (``Caller``).

Without a key, or with one that is unknown, malformed or revoked, a route answers 401; a
scope the key does not hold answers 403 and the key routes without an admin key 403. A
server started with ``--no-auth`` (loopback only) treats every caller as an admin of every
scope.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Path, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from apexmem_neo.memory.messages import check_scope
from apexmem_neo.server.errors import ApiError
from apexmem_neo.server.keys import KeyStore


@dataclass(frozen=True)
class Caller:
    """The key a request came with: its scopes (None: every scope) and whether it is admin."""

    scopes: frozenset[str] | None
    admin: bool
    key_id: str | None = None

    def may_read(self, scope: str) -> bool:
        return self.scopes is None or scope in self.scopes


OPEN_CALLER = Caller(scopes=None, admin=True)
"""The caller of a server started with --no-auth."""


@dataclass(frozen=True)
class Auth:
    """How the app checks keys: against ``keys``, or not at all (``required`` False)."""

    keys: KeyStore
    required: bool = True

    def caller(self, credentials: HTTPAuthorizationCredentials | None) -> Caller:
        """The caller the bearer ``credentials`` name; 401 without a live key."""
        if not self.required:
            return OPEN_CALLER
        if credentials is None:
            raise ApiError(401, "unauthorized", "no API key: send Authorization: Bearer KEY")
        key = self.keys.authenticate(credentials.credentials)
        if key is None:
            raise ApiError(401, "unauthorized", "the API key is unknown or revoked")
        return Caller(scopes=frozenset(key.scopes), admin=key.admin, key_id=key.key_id)


BEARER = HTTPBearer(auto_error=False, description="An API key: `apexmem keys create`.")


def caller(
    request: Request,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(BEARER)],
) -> Caller:
    """The dependency every route but the schema takes: the app's ``Auth`` reads the key
    (declared as HTTP bearer, so the OpenAPI schema names it)."""
    auth: Auth = request.app.state.auth
    return auth.caller(credentials)


CallerDep = Annotated[Caller, Depends(caller)]


def scope_of(scope: Annotated[str, Path(description="Whose memory.")], who: CallerDep) -> str:
    """The route's scope when the caller's key holds it (403 otherwise), checked as a name."""
    if not who.may_read(scope):
        raise ApiError(403, "forbidden", f"this API key does not hold scope {scope!r}")
    return check_scope(scope)


ScopeDep = Annotated[str, Depends(scope_of)]


def admin_of(who: CallerDep) -> Caller:
    """The caller when its key is an admin key (403 otherwise)."""
    if not who.admin:
        raise ApiError(403, "forbidden", "managing keys needs an admin key")
    return who


AdminDep = Annotated[Caller, Depends(admin_of)]
