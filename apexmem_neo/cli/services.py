"""`apexmem services up|down|status [neo4j|es|llm|llm-small]`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from apexmem_neo.cli.common import console, fail, load_settings, remember_json
from apexmem_neo.errors import ServiceError
from apexmem_neo.services.base import ServiceState
from apexmem_neo.services.registry import ALL_SERVICE_NAMES, SERVICE_NAMES, build_service

services_app = typer.Typer(help="Start, stop and inspect the local Neo4j, Elasticsearch and LLM.")

NamesArg = Annotated[
    list[str] | None,
    typer.Argument(
        help="Services to act on: neo4j, es, llm, llm-small (default: the first three)."
    ),
]
StartedFile = Annotated[
    Path | None,
    typer.Option(
        "--started-file",
        help="up: append the names of services this call started; "
        "down: stop only the services listed in it.",
    ),
]


def _names(names: list[str] | None) -> list[str]:
    chosen = names or list(SERVICE_NAMES)
    unknown = [n for n in chosen if n not in ALL_SERVICE_NAMES]
    if unknown:
        fail(f"unknown service {', '.join(unknown)}; choose from {', '.join(ALL_SERVICE_NAMES)}")
    return chosen


@services_app.command("up")
def up(names: NamesArg = None, started_file: StartedFile = None) -> None:
    """Start services (building them on first use); reuse healthy ones. Waits for health."""
    settings = load_settings()
    for name in _names(names):
        console.print(f"[bold]{name}[/]: starting (first run builds and downloads; see logs)")
        try:
            result = build_service(name, settings).up()
        except ServiceError as exc:
            fail(str(exc))
        verb = "started" if result.started else f"already {result.state.value}"
        pid = f" pid {result.pid}" if result.pid else ""
        console.print(f"[green]{name}[/]: {verb} at {result.address}{pid} ({result.seconds:.1f} s)")
        if result.started and started_file is not None:
            with started_file.open("a") as handle:
                handle.write(name + "\n")


@services_app.command("down")
def down(names: NamesArg = None, started_file: StartedFile = None) -> None:
    """Stop services that apexmem started (never a server it did not start)."""
    settings = load_settings()
    chosen = _names(names)
    if started_file is not None:
        listed = started_file.read_text().split() if started_file.exists() else []
        chosen = [n for n in chosen if n in listed]
    for name in chosen:
        stopped = build_service(name, settings).down()
        console.print(f"{name}: {'stopped' if stopped else 'was not running (not ours)'}")


@services_app.command("status")
def status(
    names: NamesArg = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Machine-readable output.", callback=remember_json)
    ] = False,
) -> None:
    """Show each service's state, address and PID; exit 1 if any port is blocked."""
    settings = load_settings()
    rows = [build_service(name, settings).status() for name in _names(names)]
    if as_json:
        payload = [
            {
                "name": r.name,
                "state": r.state.value,
                "address": r.address,
                "pid": r.pid,
                "detail": r.detail,
            }
            for r in rows
        ]
        console.print_json(json.dumps(payload))
    else:
        table = Table("service", "state", "address", "pid", "detail")
        for r in rows:
            table.add_row(r.name, r.state.value, r.address, str(r.pid or ""), r.detail)
        console.print(table)
    if any(r.state is ServiceState.BLOCKED for r in rows):
        raise typer.Exit(1)
