"""Helpers shared by CLI command groups: the console, settings, and error exits."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, NoReturn

import typer
from rich.console import Console

from apexmem_neo.settings import Settings

# The store options every command that opens the memory takes (ask, query, schema, mcp...).
StoreOpt = Annotated[str, typer.Option("--store", help="sqlite (default) or neo4j.")]
DbOpt = Annotated[
    Path | None,
    typer.Option("--db", help="SQLite file (default APEXMEM_HOME/data/apexmem.sqlite)."),
]

console = Console()
err_console = Console(stderr=True)


def load_settings() -> Settings:
    return Settings()


def fail(message: str, code: int = 1) -> NoReturn:
    """Print a one-line error in red and exit non-zero."""
    err_console.print(f"[bold red]error:[/] {message}", highlight=False, soft_wrap=True)
    raise typer.Exit(code)
