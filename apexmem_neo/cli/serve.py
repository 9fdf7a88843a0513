"""`apexmem serve`: the Memory API over HTTP (FastAPI + uvicorn, the [server] extra), and
`apexmem keys create|list|revoke`: the API keys it accepts.

These are the edge: they read the settings, find the server's state file (keys and jobs,
beside the memory store) and build the app. The keys commands open only that file, never the
memory, so they load no model and need no service.
"""

from __future__ import annotations

import hashlib
import ipaddress
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from apexmem_neo.cli.common import (
    DbOpt,
    JsonOpt,
    StoreName,
    StoreOpt,
    fail,
    load_settings,
    print_json,
    user_errors,
    using_memory,
)

if TYPE_CHECKING:
    from apexmem_neo.server.state import ServerState

DEFAULT_MAX_BODY = 4 * 1024 * 1024
IndexNameOpt = Annotated[
    str | None,
    typer.Option("--index-name", help="Search index namespace (default APEXMEM_INDEX_NAME)."),
]
StateOpt = Annotated[
    Path | None,
    typer.Option(
        "--state",
        envvar="APEXMEM_SERVER_STATE",
        help="The server's keys-and-jobs file (default: beside the store, "
        "<store>.server.sqlite).",
    ),
]
HostOpt = Annotated[str, typer.Option("--host", help="Address to listen on.")]
PortOpt = Annotated[int, typer.Option("--port", help="Port to listen on.")]
NoAuthOpt = Annotated[
    bool,
    typer.Option("--no-auth", help="Accept requests without a key (loopback hosts only)."),
]
NoLlmOpt = Annotated[
    bool,
    typer.Option("--no-llm", help="No language model: ask is refused, adds need extract=false."),
]
MaxBodyOpt = Annotated[
    int,
    typer.Option(
        "--max-body-bytes",
        envvar="APEXMEM_MAX_BODY_BYTES",
        min=1,
        help="Largest request body accepted; a larger one is refused with 413.",
    ),
]
ScopesOpt = Annotated[
    list[str] | None, typer.Option("--scope", help="A scope the key opens (repeat for more).")
]

keys_app = typer.Typer(help="API keys of `apexmem serve`: create, list, revoke.")


def state_file(store: StoreName | None, db: Path | None, state: Path | None) -> Path:
    """Where the server's state lives: ``--state``, else beside the SQLite store (or the
    Neo4j checkpoint file), else under APEXMEM_HOME/data for the Neo4j database."""
    from apexmem_neo.server.state import state_path

    if state is not None:
        return state
    settings = load_settings()
    if db is not None:
        return state_path(db)
    if (store or settings.store) == "sqlite":
        return state_path(settings.sqlite_path)
    where = f"{settings.neo4j_uri}|{settings.neo4j_database or ''}"
    digest = hashlib.sha256(where.encode()).hexdigest()[:12]
    return settings.data_dir / f"neo4j-{digest}.server.sqlite"


def is_loopback(host: str) -> bool:
    """Whether ``host`` is reachable only from this machine."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def serve(
    host: HostOpt = "127.0.0.1",
    port: PortOpt = 8000,
    store: StoreOpt = None,
    db: DbOpt = None,
    index_name: IndexNameOpt = None,
    state: StateOpt = None,
    no_auth: NoAuthOpt = False,
    no_llm: NoLlmOpt = False,
    max_body_bytes: MaxBodyOpt = DEFAULT_MAX_BODY,
) -> None:
    """Serve the Memory API over HTTP under /v1 (schema at /v1/openapi.json, page at
    /v1/docs). Every route needs `Authorization: Bearer KEY` (make one with `apexmem keys
    create`) whose scopes hold the route's scope. A browser opens the timeline page at /ui
    (its login form takes the key once)."""
    if no_auth and not is_loopback(host):
        fail(f"--no-auth is refused on {host}: serve it on 127.0.0.1, or use API keys")
    try:
        import uvicorn

        from apexmem_neo.server.app import create_app
        from apexmem_neo.server.state import ServerState
    except ModuleNotFoundError as exc:
        if (exc.name or "").split(".")[0] not in ("fastapi", "uvicorn", "starlette"):
            raise
        fail("the REST server needs the [server] extra: pip install 'apexmem-neo[server]'")
    path = state_file(store, db, state)
    with using_memory(store, db, index_name, create=True) as memory:
        if no_llm:
            memory.lm = None  # the settings always name a model; --no-llm means none
        with user_errors():
            app = create_app(memory, ServerState(path), auth=not no_auth,
                             max_body_bytes=max_body_bytes)  # fmt: skip
        uvicorn.run(app, host=host, port=port, log_level="info")


def _state(store: StoreName | None, db: Path | None, state: Path | None) -> ServerState:
    from apexmem_neo.server.state import ServerState

    with user_errors():
        return ServerState(state_file(store, db, state)).create()


@keys_app.command("create")
def create_key(
    scope: ScopesOpt = None,
    admin: Annotated[bool, typer.Option("--admin", help="May manage keys (/v1/keys).")] = False,
    store: StoreOpt = None,
    db: DbOpt = None,
    state: StateOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Make a key for the given scopes and print it, once: only its hash is kept."""
    from apexmem_neo.server.keys import KeyStore

    with user_errors():
        made = KeyStore(_state(store, db, state)).create(scope or [], admin=admin)
    if as_json:
        print_json(made.model_dump())
        return
    typer.echo(made.key)
    shown = ", ".join(made.scopes) or "none"
    typer.echo(f"key id {made.key_id}; scopes: {shown}{'; admin' if admin else ''} "
               "(the key is shown only now)", err=True)  # fmt: skip


@keys_app.command("list")
def list_keys(
    store: StoreOpt = None, db: DbOpt = None, state: StateOpt = None, as_json: JsonOpt = False
) -> None:
    """Every key: id, scopes, admin, created and revoked times (never the key itself)."""
    from apexmem_neo.server.keys import KeyStore

    keys = KeyStore(_state(store, db, state)).list()
    if as_json:
        print_json([k.model_dump() for k in keys])
        return
    for key in keys:
        revoked = f" revoked {key.revoked_at}" if key.revoked_at else ""
        admin = " admin" if key.admin else ""
        typer.echo(f"{key.key_id}  {','.join(key.scopes) or '-'}{admin}  {key.created_at}{revoked}")


@keys_app.command("revoke")
def revoke_key(
    key_id: Annotated[str, typer.Argument(help="The key id (`apexmem keys list`).")],
    store: StoreOpt = None,
    db: DbOpt = None,
    state: StateOpt = None,
) -> None:
    """Revoke a key: every server on this state file refuses it from the next request."""
    from apexmem_neo.server.keys import KeyStore

    revoked = KeyStore(_state(store, db, state)).revoke(key_id)
    if revoked is None:
        fail(f"no API key {key_id!r} (see `apexmem keys list`)")
    typer.echo(f"revoked {key_id} at {revoked.revoked_at}")


if __name__ == "__main__":
    typer.run(serve)
