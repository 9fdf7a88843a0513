"""`apexmem mcp`: serve the memory over MCP, on stdio (default) or streamable HTTP.

The entry point is the only place the server's memory is built from settings. On stdio,
stdout carries the protocol alone: whatever opening the memory prints goes to stderr.
"""

from __future__ import annotations

import contextlib
import sys
from typing import Annotated

import typer

from apexmem_neo.cli.common import (
    DEFAULT_SCOPE,
    MemoryChoice,
    ScopeOpt,
    fail,
    user_errors,
)

HttpOpt = Annotated[bool, typer.Option("--http", help="Streamable HTTP instead of stdio.")]
HostOpt = Annotated[str, typer.Option("--host", help="HTTP host.")]
PortOpt = Annotated[int, typer.Option("--port", help="HTTP port (the endpoint is /mcp).")]
NoLlmOpt = Annotated[
    bool,
    typer.Option("--no-llm", help="No language model: Ask is refused, Ingest stores plain turns."),
]


@MemoryChoice.options()
def mcp_command(
    http: HttpOpt = False,
    host: HostOpt = "127.0.0.1",
    port: PortOpt = 8765,
    choice: MemoryChoice = MemoryChoice.SETTINGS,
    scope: ScopeOpt = DEFAULT_SCOPE,
    no_llm: NoLlmOpt = False,
) -> None:
    """Serve the memory over MCP (stdio by default, or streamable HTTP with --http): the read
    tools, Ask, and Ingest (queued, one job at a time) with IngestStatus."""
    try:
        from apexmem_neo.mcp_server import IngestJobs, build_server
    except ModuleNotFoundError as exc:
        if (exc.name or "").split(".")[0] != "mcp":
            raise
        fail("the MCP server needs the [mcp] extra: pip install 'apexmem-neo[mcp]'")

    from apexmem_neo.memory.messages import check_scope

    with user_errors():
        check_scope(scope)  # before the memory is opened (and its file made)
    with contextlib.ExitStack() as stack:
        with contextlib.redirect_stdout(sys.stderr):
            memory = stack.enter_context(choice.open(create=True))
        if no_llm:
            memory.lm = None  # the settings always name a model; --no-llm means none
        jobs = IngestJobs(memory)
        stack.callback(jobs.close)  # before the memory closes: the running job finishes
        server = build_server(memory, scope, extract=not no_llm, jobs=jobs)
        if http:
            server.run("streamable-http", host=host, port=port)
        else:
            server.run("stdio")


if __name__ == "__main__":
    typer.run(mcp_command)
