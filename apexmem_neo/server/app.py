"""``create_app``: the Memory API over HTTP, as a FastAPI app (``apexmem serve`` runs it with
uvicorn). Routes are versioned under ``/v1``; the OpenAPI schema is ``/v1/openapi.json`` and
its browsable page ``/v1/docs``, the only routes that need no key.

The app takes built objects (a ``Memory``, the server state store, the settings the CLI
read); it reads no setting itself. Its lifespan starts the job runner, which takes up the jobs
of this server and of any server sharing the state store that stopped or died, and stops it
when the server stops: the batch being stored finishes, and the rest of its job waits in the
state store for the next server.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, Final

from fastapi import FastAPI

from apexmem_neo import __version__
from apexmem_neo.memory.core import Memory
from apexmem_neo.server.auth import Auth
from apexmem_neo.server.errors import ErrorResponse, install_error_handlers
from apexmem_neo.server.jobs import LEASE_S, JobRunner
from apexmem_neo.server.keys import KeyStore
from apexmem_neo.server.limits import BodyLimit
from apexmem_neo.server.routes_read import add_read_routes
from apexmem_neo.server.routes_write import add_key_routes, add_write_routes
from apexmem_neo.server.state import ServerStateStore
from apexmem_neo.server.ui import add_ui_routes

MAX_BODY_BYTES: Final = 4 * 1024 * 1024
"""The default request body limit (a batch of messages at the longest turn length fits)."""
PUBLIC_PATHS: Final = frozenset({"/v1/openapi.json", "/v1/docs"})
"""Routes that answer without a key: the schema and its page, which hold no memory data."""
ERRORS: Final = {
    code: {"model": ErrorResponse, "description": what}
    for code, what in [(400, "bad input"), (401, "no or bad API key"),
                       (403, "scope not held by the key"), (404, "not found"),
                       (413, "body too large"), (503, "a service the memory needs is down")]
}  # fmt: skip


def create_app(
    memory: Memory,
    state: ServerStateStore,
    *,
    auth: bool = True,
    max_body_bytes: int = MAX_BODY_BYTES,
    jobs: JobRunner | None = None,
    job_lease_s: float = LEASE_S,
) -> FastAPI:
    """The REST app over ``memory``, its keys and jobs in ``state`` (created if missing);
    ``auth`` False (``--no-auth``) lets every caller in as an admin of every scope, and
    ``job_lease_s`` is how long a job stays held by a server that stopped renewing it."""
    state.create()
    keys = KeyStore(state)
    runner = jobs or JobRunner(memory, state, lease_s=job_lease_s)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        runner.start()
        yield
        runner.close()

    app = FastAPI(
        title="apexmem-neo",
        version=__version__,
        description="Append-only temporal memory for LLM agents: the Memory API over HTTP.",
        openapi_url="/v1/openapi.json",
        docs_url="/v1/docs",
        redoc_url=None,
        swagger_ui_oauth2_redirect_url=None,
        lifespan=lifespan,
        responses=ERRORS,  # type: ignore[arg-type]
    )
    app.state.auth = Auth(keys, required=auth)
    app.state.jobs = runner
    install_error_handlers(app)
    add_read_routes(app, memory)
    add_write_routes(app, memory, runner)
    add_key_routes(app, keys)
    add_ui_routes(app, memory)
    app.add_middleware(BodyLimit, max_bytes=max_body_bytes)
    _document_400_not_422(app)
    return app


def _document_400_not_422(app: FastAPI) -> None:
    """Drop FastAPI's 422 from the schema: invalid input answers 400 ``bad_input`` here."""
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            for operations in build()["paths"].values():
                for operation in operations.values():
                    operation.get("responses", {}).pop("422", None)
        return app.openapi_schema or build()

    app.openapi = openapi  # type: ignore[method-assign]
