"""Root of the `apexmem` CLI: one command group per module, each a thin caller of ``Memory``."""

from __future__ import annotations

from typing import Annotated

import typer

from apexmem_neo import __version__
from apexmem_neo.cli.ask import ask
from apexmem_neo.cli.common import ApexMemGroup
from apexmem_neo.cli.config import config
from apexmem_neo.cli.demo import demo
from apexmem_neo.cli.doctor import doctor
from apexmem_neo.cli.forget import forget
from apexmem_neo.cli.ingest import ingest
from apexmem_neo.cli.listing import entities, facts, scopes, sessions, turns
from apexmem_neo.cli.mcp import mcp_command
from apexmem_neo.cli.optimize import optimize
from apexmem_neo.cli.query import entity, history, query, schema, stats
from apexmem_neo.cli.search import search
from apexmem_neo.cli.search_index import index
from apexmem_neo.cli.serve import keys_app, serve
from apexmem_neo.cli.services import services_app
from apexmem_neo.cli.transfer import export, import_

app = typer.Typer(
    name="apexmem",
    help="Append-only temporal memory for LLM agents (APEX-MEM on Neo4j and SQLite).",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    cls=ApexMemGroup,
)


def _version(shown: bool) -> None:
    if shown:
        typer.echo(f"apexmem-neo {__version__}")
        raise typer.Exit()


@app.callback()
def root(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Print the version."),
    ] = False,
) -> None:
    """Append-only temporal memory for LLM agents (APEX-MEM on Neo4j and SQLite)."""


app.add_typer(services_app, name="services")
app.command("doctor")(doctor)
app.command("config")(config)
app.command("demo")(demo)
app.command("ingest")(ingest)
app.command("index")(index)
app.command("search")(search)
app.command("ask")(ask)
app.command("query")(query)
app.command("schema")(schema)
app.command("entity")(entity)
app.command("history")(history)
app.command("stats")(stats)
app.command("scopes")(scopes)
app.command("sessions")(sessions)
app.command("turns")(turns)
app.command("entities")(entities)
app.command("facts")(facts)
app.command("export")(export)
app.command("import")(import_)
app.command("forget")(forget)
app.command("optimize")(optimize)
app.command("mcp")(mcp_command)
app.command("serve")(serve)
app.add_typer(keys_app, name="keys")


def main() -> None:
    app()
