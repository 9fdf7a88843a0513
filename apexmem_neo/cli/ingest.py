"""`apexmem ingest PATH`: build the memory graph from LOCOMO JSON or a JSONL turn stream.

Resumable: a checkpoint per turn lives in the SQLite store file (or, for Neo4j, in a sidecar
under APEXMEM_HOME/checkpoints); running the same command again continues where a killed
run stopped. The run's statistics (per-stage LLM calls, tokens, time) are saved in the
checkpoint and as JSON under APEXMEM_HOME/runs.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any, Literal

import typer
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskProgressColumn,
    TextColumn,
    TimeElapsedColumn,
)

from apexmem_neo.cli.common import console, fail, load_settings
from apexmem_neo.cli.search_index import DEFAULT_NAMESPACE, IndexNameOpt, build_index, where
from apexmem_neo.construction.checkpoint import Checkpoint
from apexmem_neo.construction.loaders import InputFormat, LoaderError, TurnInput, load_turns
from apexmem_neo.construction.pipeline import (
    ConstructionPipeline,
    PipelineConfig,
    RunStats,
    TurnReport,
)
from apexmem_neo.llm import make_lm
from apexmem_neo.settings import Settings
from apexmem_neo.store.protocol import GraphStore

StoreName = Literal["sqlite", "neo4j"]


@contextmanager
def open_store(
    store: StoreName, db: Path | None, settings: Settings
) -> Iterator[tuple[GraphStore, Checkpoint]]:
    """The chosen GraphStore (schema ready) and its checkpoint; both closed on exit."""
    if store == "sqlite":
        from apexmem_neo.store.sqlite import SQLiteGraphStore

        path = db or settings.data_dir / "apexmem.sqlite"
        path.parent.mkdir(parents=True, exist_ok=True)
        graph: Any = SQLiteGraphStore(path)
        checkpoint = Checkpoint(path)
        driver: Any = None
    else:
        from neo4j import GraphDatabase

        from apexmem_neo.store.neo4j import Neo4jGraphStore

        driver = GraphDatabase.driver(settings.neo4j_uri, auth=None)
        graph = Neo4jGraphStore(driver, uri=settings.neo4j_uri)
        digest = hashlib.sha256(settings.neo4j_uri.encode()).hexdigest()[:12]
        checkpoint = Checkpoint(db or settings.apexmem_home / "checkpoints" / f"neo4j-{digest}.db")
    try:
        graph.init_schema()
        checkpoint.open()
        yield graph, checkpoint
    finally:
        checkpoint.close()
        graph.close()
        if driver is not None:
            driver.close()


def _progress() -> Progress:
    return Progress(
        TextColumn("[bold]ingest"),
        BarColumn(),
        MofNCompleteColumn(),
        TaskProgressColumn(),
        TextColumn("{task.fields[rate]:.2f} turns/s"),
        TextColumn("LLM calls {task.fields[calls]}"),
        TextColumn("tokens {task.fields[tokens]}"),
        TextColumn("[red]errors {task.fields[errors]}"),
        TimeElapsedColumn(),
        console=console,
    )


def _summary(stats: RunStats, path: Path) -> None:
    per_turn = stats.calls_per_turn()
    console.print(
        f"turns: {stats.turns_done} done, {stats.turns_failed} failed, "
        f"{stats.turns_skipped} already done, {stats.turns_replayed} replayed | "
        f"facts {stats.facts} | LLM calls {stats.llm_calls} ({per_turn:.2f}/turn) | "
        f"tokens {stats.tokens} | {stats.wall_seconds:.1f} s "
        f"(store {stats.store_seconds:.2f} s)"
    )
    for stage, usage in stats.llm.items():
        console.print(f"  {stage}: {usage}")
    console.print(f"run saved to {path}")


def ingest(
    path: Annotated[Path, typer.Argument(help="LOCOMO .json or a .jsonl turn stream.")],
    fmt: Annotated[
        str, typer.Option("--format", help="auto | locomo | jsonl (see construction.loaders).")
    ] = "auto",
    store: Annotated[str, typer.Option(help="sqlite (default) or neo4j.")] = "sqlite",
    db: Annotated[
        Path | None,
        typer.Option(
            help="SQLite file (default APEXMEM_HOME/data/apexmem.sqlite); for neo4j "
            "the checkpoint file."
        ),
    ] = None,
    conversation: Annotated[
        list[str] | None, typer.Option(help="LOCOMO sample_id(s) to ingest (default: all).")
    ] = None,
    sessions: Annotated[int | None, typer.Option(help="Only the first N sessions.")] = None,
    limit: Annotated[int | None, typer.Option(help="Only the first N turns.")] = None,
    concurrency: Annotated[int, typer.Option(help="Parallel LLM extraction calls.")] = 1,
    max_attempts: Annotated[int, typer.Option(help="LLM attempts per call (1 + retries).")] = 3,
    retry_failed: Annotated[bool, typer.Option(help="Retry turns recorded as failed.")] = False,
    search_index: Annotated[
        bool, typer.Option("--index/--no-index", help="Refresh the search index afterwards.")
    ] = True,
    index_name: IndexNameOpt = DEFAULT_NAMESPACE,
) -> None:
    """Ingest conversations into the memory graph (incremental and resumable)."""
    if fmt not in ("auto", "locomo", "jsonl") or store not in ("sqlite", "neo4j"):
        fail(f"--format must be auto|locomo|jsonl and --store sqlite|neo4j (got {fmt}, {store})")
    settings = load_settings()
    chosen: InputFormat = fmt  # type: ignore[assignment]
    try:
        turns = load_turns(path, chosen, conversation, sessions)[:limit]
    except LoaderError as exc:
        fail(str(exc))
    config = PipelineConfig(
        concurrency=concurrency, max_attempts=max_attempts, retry_failed=retry_failed
    )
    store_name: StoreName = store  # type: ignore[assignment]
    run_ingest(turns, str(path), store_name, db, settings, config)
    if search_index:
        sqlite_db = db if store == "sqlite" else None
        count = build_index(store, sqlite_db, settings, index_name)
        console.print(
            f"search index: {count} documents in {where(store, sqlite_db, settings, index_name)}"
        )


def run_ingest(
    turns: list[TurnInput],
    source: str,
    store_name: StoreName,
    db: Path | None,
    settings: Settings,
    config: PipelineConfig,
) -> RunStats:
    """Ingest ``turns`` with a progress bar; print and save the run's statistics."""
    lm = make_lm(settings.lm, settings.lm_api_base, settings.lm_api_key)
    with open_store(store_name, db, settings) as (graph, checkpoint), _progress() as progress:
        task = progress.add_task("ingest", total=len(turns), rate=0.0, calls=0, tokens=0, errors=0)

        def on_turn(report: TurnReport, stats: RunStats) -> None:
            rate = stats.processed / stats.wall_seconds if stats.wall_seconds else 0.0
            progress.update(
                task,
                completed=stats.processed + stats.turns_skipped,
                rate=rate,
                calls=stats.llm_calls,
                tokens=stats.tokens,
                errors=stats.turns_failed,
            )

        pipeline = ConstructionPipeline(graph, checkpoint, lm, config, on_turn=on_turn)
        stats = pipeline.ingest(turns, source=source)
        progress.update(task, completed=len(turns))
    out = settings.apexmem_home / "runs" / f"{stats.run_id}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(stats.model_dump(), indent=2), encoding="utf-8")
    _summary(stats, out)
    return stats
