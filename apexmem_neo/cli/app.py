"""Root of the `apexmem` CLI."""

from __future__ import annotations

import os

# LiteLLM fetches a model cost map from the network at import unless told not to.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import typer

from apexmem_neo.cli.doctor import doctor
from apexmem_neo.cli.ingest import ingest
from apexmem_neo.cli.services import services_app

app = typer.Typer(
    name="apexmem",
    help="Append-only temporal memory for LLM agents (APEX-MEM on Neo4j and SQLite).",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)
app.add_typer(services_app, name="services")
app.command("doctor")(doctor)
app.command("ingest")(ingest)


def main() -> None:
    app()
