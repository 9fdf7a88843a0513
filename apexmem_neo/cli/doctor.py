"""`apexmem doctor`: start what is needed, then prove each service with a real round trip."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.table import Table

from apexmem_neo.cli.common import console, fail, load_settings
from apexmem_neo.errors import ServiceError
from apexmem_neo.services.registry import SERVICE_NAMES, build_service
from apexmem_neo.services.roundtrip import (
    RoundTrip,
    elasticsearch_round_trip,
    llm_round_trip,
    neo4j_round_trip,
)
from apexmem_neo.settings import Settings


def _round_trip(name: str, settings: Settings) -> RoundTrip:
    if name == "neo4j":
        return neo4j_round_trip(settings.neo4j_uri)
    if name == "es":
        return elasticsearch_round_trip(settings.elasticsearch_url)
    model = settings.lm.split("/", 1)[-1]
    return llm_round_trip(settings.lm_api_base, model)


def doctor(
    stop_after: Annotated[
        bool, typer.Option("--stop-after", help="Stop the services this run started.")
    ] = False,
) -> None:
    """Start Neo4j, Elasticsearch and the local LLM, then show version and a timed round trip."""
    settings = load_settings()
    table = Table("service", "version", "start", "round trip", "time")
    started: list[str] = []
    failures = 0
    try:
        for name in SERVICE_NAMES:
            service = build_service(name, settings)
            try:
                up = service.up()
            except ServiceError as exc:
                failures += 1
                table.add_row(name, "-", "[red]failed[/]", str(exc), "-")
                continue
            if up.started:
                started.append(name)
            trip = _round_trip(name, settings)
            failures += 0 if trip.ok else 1
            mark = "[green]ok[/]" if trip.ok else "[red]FAILED[/]"
            start = f"{'started' if up.started else 'reused'} {up.seconds:.1f} s"
            table.add_row(
                name,
                service.version(),
                start,
                f"{mark} {trip.detail}",
                f"{trip.seconds * 1000:.0f} ms",
            )
        console.print(table)
    finally:
        if stop_after:
            for name in started:
                build_service(name, settings).down()
    if failures:
        fail(
            f"{failures} service(s) failed; see the table above and the logs in "
            f"{settings.log_dir}"
        )
