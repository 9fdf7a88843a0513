"""The memory as an MCP server: SchemaViewer, EntityLookup, GraphQuery, Search and Ingest.

Built on the official ``mcp`` SDK (``MCPServer``), served over stdio (default) or streamable
HTTP: ``apexmem mcp [--http --port N]``. The read tools are the agent's own (markdown out,
never raising). Ingest takes a list of turns: with ``extract`` (default) they go through the
construction pipeline and the configured LM; without it they are stored as plain turns
(searchable and queryable, no facts). Tools run on the server's event-loop thread, the
thread that opened the store (SQLite connections are bound to their thread).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from pydantic import BaseModel, Field

from apexmem_neo.agent.toolset import build_tools
from apexmem_neo.cli.common import DbOpt, StoreOpt
from apexmem_neo.construction.loaders import TurnInput
from apexmem_neo.ontology import GraphBatch
from apexmem_neo.store.protocol import GraphStore
from apexmem_neo.tools.backend import QueryBackend
from apexmem_neo.tools.entity_lookup import Searcher

if TYPE_CHECKING:  # the SDK loads only when a server is built, not with every CLI command
    from mcp.server.mcpserver import MCPServer

INSTRUCTIONS = (
    "Long-term temporal memory (APEX-MEM). Facts are never overwritten: each has a validity "
    "interval [t_from, t_to]. Start with SchemaViewer(include_guide=true) or EntityLookup."
)


class IngestTurn(BaseModel):
    """One turn to remember."""

    speaker: str = Field(min_length=1)
    text: str
    anchor: str = Field(description="when it was said, ISO 8601 (e.g. 2024-03-20T10:00:00)")
    listener: str | None = None
    conversation_id: str = "mcp"
    session: int = Field(default=0, ge=0)
    seq: int | None = Field(default=None, ge=0, description="order in the session")


Ingestor = Callable[[list[TurnInput]], str]


def turn_inputs(turns: list[IngestTurn]) -> list[TurnInput]:
    return [
        TurnInput(
            source_key=f"mcp:{t.conversation_id}:{t.session}:{t.seq if t.seq is not None else i}",
            conversation_id=t.conversation_id,
            session_seq=t.session,
            seq=t.seq if t.seq is not None else i,
            speaker=t.speaker,
            listener=t.listener,
            text=t.text,
            anchor=t.anchor,
        )
        for i, t in enumerate(turns)
    ]


def store_plain_turns(store: GraphStore, items: list[TurnInput]) -> str:
    sessions = {i.session_id: i.session() for i in items}
    store.write(GraphBatch(sessions=list(sessions.values()), turns=[i.turn() for i in items]))
    ids = ", ".join(f"`{i.turn().turn_id}`" for i in items)
    return f"Stored {len(items)} turn(s) without extraction: {ids}."


def build_server(
    store: GraphStore,
    backend: QueryBackend,
    searcher: Searcher | None = None,
    ingestor: Ingestor | None = None,
    reindex: Callable[[], int] | None = None,
) -> MCPServer:
    """An MCP server over ``store``; ``ingestor`` runs extraction (None: plain turns only);
    ``reindex`` (if given) refreshes the search index after each Ingest."""
    from mcp.server.mcpserver import MCPServer

    server = MCPServer(name="apexmem", instructions=INSTRUCTIONS)
    tools = build_tools(store, backend, searcher)
    _register_read_tools(server, tools, backend)

    async def ingest(turns: list[IngestTurn], extract: bool = True) -> str:
        try:
            items = turn_inputs(turns)
            if extract and ingestor is not None:
                said = ingestor(items)
            else:
                note = "" if not extract else " (no LM configured for extraction)"
                said = store_plain_turns(store, items) + note
            if reindex is not None:
                said += f" Search index refreshed ({reindex()} documents)."
            return said
        except Exception as exc:  # the client gets text, never a traceback
            return f"## Error: Ingest failed\n\n{type(exc).__name__}: {exc}"

    server.add_tool(
        ingest,
        name="Ingest",
        description="Remember a list of turns (speaker, text, anchor time). With extract=true "
        "an LLM extracts events and facts; with extract=false only the turns are stored.",
    )
    return server


def _register_read_tools(
    server: MCPServer, tools: dict[str, Callable[..., str]], backend: QueryBackend
) -> None:
    async def schema_viewer(include_examples: bool = False, include_guide: bool = False) -> str:
        return tools["SchemaViewer"](include_examples, include_guide)

    async def entity_lookup(query: str, k: int = 3) -> str:
        return tools["EntityLookup"](query, k)

    async def graph_query(
        query: str, language: str = backend.native_language, params: dict[str, Any] | None = None
    ) -> str:
        return tools["GraphQuery"](query, language, params)

    async def search(query: str) -> str:
        return tools["Search"](query)

    table: dict[str, Callable[..., Any]] = {
        "SchemaViewer": schema_viewer,
        "EntityLookup": entity_lookup,
        "GraphQuery": graph_query,
        "Search": search,
    }
    for name, fn in table.items():
        if name in tools:
            server.add_tool(fn, name=name, description=tools[name].__doc__ or name)


@contextmanager
def _pipeline_ingestor(store: GraphStore, path: Path, settings: Any) -> Iterator[Ingestor]:
    from apexmem_neo.construction.checkpoint import Checkpoint
    from apexmem_neo.construction.pipeline import ConstructionPipeline
    from apexmem_neo.llm import make_lm

    checkpoint = Checkpoint(path)
    checkpoint.open()
    lm = make_lm(settings.lm, settings.lm_api_base, settings.lm_api_key, max_tokens=800)
    pipeline = ConstructionPipeline(store, checkpoint, lm)

    def run(items: list[TurnInput]) -> str:
        stats = pipeline.ingest(items, source="mcp")
        return (
            f"Ingested {stats.turns_done} turn(s) ({stats.turns_failed} failed, "
            f"{stats.turns_skipped} already known): {stats.facts} facts, "
            f"{stats.llm_calls} LLM calls."
        )

    try:
        yield run
    finally:
        checkpoint.close()


def mcp_command(
    http: Annotated[bool, typer.Option("--http", help="Streamable HTTP instead of stdio.")] = False,
    host: Annotated[str, typer.Option(help="HTTP host.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="HTTP port.")] = 8765,
    store: StoreOpt = "sqlite",
    db: DbOpt = None,
    no_llm: Annotated[
        bool, typer.Option("--no-llm", help="Ingest stores plain turns only (no LM).")
    ] = False,
    index_name: Annotated[
        str, typer.Option("--index-name", help="Neo4j search namespace (as `apexmem index`).")
    ] = "apexmem",
) -> None:
    """Serve the memory over MCP (stdio by default, or streamable HTTP)."""
    from apexmem_neo.agent.memory_index import index_graph
    from apexmem_neo.cli.common import load_settings
    from apexmem_neo.cli.query import open_memory, sqlite_path
    from apexmem_neo.cli.search_index import open_search, warn_missing

    settings = load_settings()
    with (
        open_memory(store, db, settings) as (graph, backend),
        open_search(store, db, settings, index_name) as searcher,
    ):
        if searcher is None:  # stderr: stdout carries the stdio protocol
            warn_missing(store, db, settings, index_name)
        checkpoint = sqlite_path(db, settings) if store == "sqlite" else (
            settings.apexmem_home / "checkpoints" / "mcp-neo4j.db"
        )  # fmt: skip
        reindex = None if searcher is None else (lambda: index_graph(searcher, backend))
        with _maybe_ingestor(graph, checkpoint, settings, no_llm) as ingestor:
            server = build_server(graph, backend, searcher, ingestor, reindex)
            if http:
                server.run("streamable-http", host=host, port=port)
            else:
                server.run("stdio")


@contextmanager
def _maybe_ingestor(
    store: GraphStore, path: Path, settings: Any, disabled: bool
) -> Iterator[Ingestor | None]:
    if disabled:
        yield None
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    with _pipeline_ingestor(store, path, settings) as run:
        yield run


if __name__ == "__main__":
    typer.run(mcp_command)
