"""Root of the `apexmem` CLI."""

from __future__ import annotations

import os

# LiteLLM fetches a model cost map from the network at import unless told not to.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import typer

from apexmem_neo.cli.ask import ask
from apexmem_neo.cli.demo import demo
from apexmem_neo.cli.doctor import doctor
from apexmem_neo.cli.ingest import ingest
from apexmem_neo.cli.query import entity, history, query, schema
from apexmem_neo.cli.search_index import index
from apexmem_neo.cli.services import services_app
from apexmem_neo.mcp_server import mcp_command

app = typer.Typer(
    name="apexmem",
    help="Append-only temporal memory for LLM agents (APEX-MEM on Neo4j and SQLite).",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)
app.add_typer(services_app, name="services")
app.command("doctor")(doctor)
app.command("demo")(demo)
app.command("ingest")(ingest)
app.command("index")(index)
app.command("ask")(ask)
app.command("query")(query)
app.command("schema")(schema)
app.command("entity")(entity)
app.command("history")(history)
app.command("mcp")(mcp_command)


def main() -> None:
    app()
