"""`apexmem serve`: the Memory API over HTTP (FastAPI + uvicorn, the [server] extra), and
`apexmem keys create|list|revoke`: the API keys it accepts.

These are the edge: they read the settings, open the server's state store (keys and jobs:
a SQLite file beside a SQLite memory, or the memory's own Neo4j database, which every server
on it shares) and build the app. The keys commands open only the state store, never the
memory, so they load no model.
"""

from __future__ import annotations

import hashlib
import ipaddress
from collections.abc import Iterator
from contextlib import contextmanager
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
    from apexmem_neo.server.state import ServerStateStore
    from apexmem_neo.settings import Settings

DEFAULT_MAX_BODY = 4 * 1024 * 1024
DEFAULT_JOB_LEASE_S = 30.0
IndexNameOpt = Annotated[
    str | None,
    typer.Option("--index-name", help="Search index namespace (default APEXMEM_INDEX_NAME)."),
]
StateOpt = Annotated[
    Path | None,
    typer.Option(
        "--state",
        envvar="APEXMEM_SERVER_STATE",
        help="A SQLite file for the server's keys and jobs (default: beside a SQLite store, "
        "<store>.server.sqlite; with Neo4j, the database itself, shared by every server on it).",
    ),
]
JobLeaseOpt = Annotated[
    float,
    typer.Option(
        "--job-lease",
        envvar="APEXMEM_JOB_LEASE_S",
        min=1.0,
        help="Seconds an ingest job stays held by a server that stopped renewing it; then "
        "another server sharing the state takes it up.",
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


def state_file(store: StoreName | None, db: Path | None, state: Path | None) -> Path | None:
    """The SQLite file of the server's state: ``--state``, else beside the SQLite store;
    None for a Neo4j memory, whose state lives in its database."""
    from apexmem_neo.server.state import state_path

    if state is not None:
        return state
    settings = load_settings()
    if (store or settings.store) != "sqlite":
        return None
    return state_path(db if db is not None else settings.sqlite_path)


def earlier_state_file(db: Path | None, settings: Settings) -> Path:
    """Where earlier versions kept a Neo4j memory's server state: beside the checkpoint file
    (``--db``), else under APEXMEM_HOME/data."""
    from apexmem_neo.server.state import state_path

    if db is not None:
        return state_path(db)
    where = f"{settings.neo4j_uri}|{settings.neo4j_database or ''}"
    digest = hashlib.sha256(where.encode()).hexdigest()[:12]
    return settings.data_dir / f"neo4j-{digest}.server.sqlite"


@contextmanager
def open_state(
    store: StoreName | None, db: Path | None, state: Path | None, index_name: str | None = None
) -> Iterator[ServerStateStore]:
    """The server's state store, created if missing: the SQLite file ``state_file`` names,
    else the Neo4j database (jobs of the search namespace ``index_name``), into which the
    keys of an earlier version's file are copied."""
    from apexmem_neo.server.state import SqliteServerState

    file = state_file(store, db, state)
    if file is not None:
        with user_errors():
            sqlite = SqliteServerState(file).create()
        yield sqlite
        return
    from apexmem_neo.server.state_neo4j import Neo4jServerState
    from apexmem_neo.store.neo4j.connect import open_driver

    settings = load_settings()
    with user_errors():
        driver = open_driver(settings.neo4j_uri, settings.neo4j_auth())
    try:
        with user_errors():
            namespace = index_name or settings.index_name
            neo4j = Neo4jServerState(
                driver, settings.neo4j_database, namespace=namespace, uri=settings.neo4j_uri
            ).create()
            _copy_earlier_keys(earlier_state_file(db, settings), neo4j)
        yield neo4j
    finally:
        driver.close()


def _copy_earlier_keys(file: Path, target: ServerStateStore) -> None:
    """Keys an earlier version kept in ``file`` go on working: copied into ``target``."""
    from apexmem_neo.server.keys import copy_keys
    from apexmem_neo.server.state import SqliteServerState

    if not file.is_file():
        return
    copied = copy_keys(SqliteServerState(file).create(), target)
    if copied:
        typer.echo(f"copied {copied} API key(s) from {file} into Neo4j", err=True)


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
    job_lease: JobLeaseOpt = DEFAULT_JOB_LEASE_S,
) -> None:
    """Serve the Memory API over HTTP under /v1 (schema at /v1/openapi.json, page at
    /v1/docs). Every route needs `Authorization: Bearer KEY` (make one with `apexmem keys
    create`) whose scopes hold the route's scope. A browser opens the timeline page at /ui
    (its login form takes the key once). On Neo4j, any number of servers serve one memory:
    they share its keys and ingest jobs, and finish each other's jobs."""
    if no_auth and not is_loopback(host):
        fail(f"--no-auth is refused on {host}: serve it on 127.0.0.1, or use API keys")
    try:
        import uvicorn

        from apexmem_neo.server.app import create_app
    except ModuleNotFoundError as exc:
        if (exc.name or "").split(".")[0] not in ("fastapi", "uvicorn", "starlette"):
            raise
        fail("the REST server needs the [server] extra: pip install 'apexmem-neo[server]'")
    with (
        open_state(store, db, state, index_name) as server_state,
        using_memory(store, db, index_name, create=True) as memory,
    ):
        if no_llm:
            memory.lm = None  # the settings always name a model; --no-llm means none
        with user_errors():
            app = create_app(memory, server_state, auth=not no_auth,
                             max_body_bytes=max_body_bytes, job_lease_s=job_lease)  # fmt: skip
        uvicorn.run(app, host=host, port=port, log_level="info")


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

    with open_state(store, db, state) as server_state, user_errors():
        made = KeyStore(server_state).create(scope or [], admin=admin)
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

    with open_state(store, db, state) as server_state, user_errors():
        keys = KeyStore(server_state).list()
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
    """Revoke a key: every server sharing this state refuses it from the next request."""
    from apexmem_neo.server.keys import KeyStore

    with open_state(store, db, state) as server_state, user_errors():
        revoked = KeyStore(server_state).revoke(key_id)
    if revoked is None:
        fail(f"no API key {key_id!r} (see `apexmem keys list`)")
    typer.echo(f"revoked {key_id} at {revoked.revoked_at}")


if __name__ == "__main__":
    typer.run(serve)
