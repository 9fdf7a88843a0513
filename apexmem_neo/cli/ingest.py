"""`apexmem ingest PATH`: build the memory from a conversation JSON file or a JSONL turn stream.

Resumable: a checkpoint per turn lives in the SQLite store file (or, for Neo4j, in a sidecar
under APEXMEM_HOME/checkpoints); running the same command again continues where a killed
run stopped. The run's statistics (per-stage LLM calls, tokens, time) are saved in the
checkpoint and as JSON under APEXMEM_HOME/runs. The search index follows the new turns.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer
from rich.progress import Progress, TaskID

from apexmem_neo.cli.common import (
    MemoryChoice,
    console,
    fail,
    load_settings,
    print_plain,
    user_errors,
    warn,
)
from apexmem_neo.cli.progress import index_feed, progress_bar
from apexmem_neo.construction.loaders import InputFormat, load_turns
from apexmem_neo.construction.pipeline import PipelineConfig, RunStats, TurnReport
from apexmem_neo.memory import AddResult, Memory
from apexmem_neo.memory.core import TurnCallback
from apexmem_neo.memory.messages import scope_turns


@dataclass(frozen=True)
class IngestOptions:
    """What to take from the file and how (the keyword arguments of ``Memory.ingest_file``)."""

    fmt: InputFormat = "auto"
    scope: str | None = None
    conversations: list[str] | None = None
    sessions: int | None = None
    limit: int | None = None
    extract: bool = True
    index: bool = True
    config: PipelineConfig | None = None


def _turn_feed(bar: Progress, task: TaskID) -> TurnCallback:
    """An ``on_turn`` callback moving the ingest bar: turns, rate, LLM calls, tokens, errors."""

    def on_turn(report: TurnReport, stats: RunStats) -> None:
        rate = stats.processed / stats.wall_seconds if stats.wall_seconds else 0.0
        detail = (
            f"{rate:.2f} turns/s | LLM calls {stats.llm_calls} | tokens {stats.tokens} | "
            f"[red]errors {stats.turns_failed}[/]"
        )
        bar.update(task, completed=stats.processed + stats.turns_skipped, detail=detail)

    return on_turn


def _summary(stats: RunStats, path: Path) -> None:
    per_turn = stats.calls_per_turn()
    console.print(
        f"turns: {stats.turns_done} done, {stats.turns_failed} failed, "
        f"{stats.turns_skipped} already done, {stats.turns_replayed} replayed | "
        f"facts {stats.facts} | LLM calls {stats.llm_calls} ({per_turn:.2f}/turn) | "
        f"tokens {stats.tokens} | {stats.wall_seconds:.1f} s "
        f"(store {stats.store_seconds:.2f} s)",
        highlight=False,
        markup=False,
    )
    for stage, usage in stats.llm.items():
        console.print(f"  {stage}: {usage}", highlight=False, markup=False)
    print_plain(f"run saved to {path}")


def save_run(stats: RunStats, runs_dir: Path) -> Path:
    """The run's statistics as ``RUNS_DIR/<run_id>.json``."""
    out = runs_dir / f"{stats.run_id}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(stats.model_dump(), indent=2), encoding="utf-8")
    return out


def run_ingest(
    memory: Memory, path: Path, runs_dir: Path, total: int, opts: IngestOptions
) -> AddResult:
    """``memory.ingest_file(path, ...)`` behind progress bars (``total`` turns, then the search
    index); prints a summary and saves the run's statistics under ``runs_dir``."""
    with progress_bar() as bar:
        task = bar.add_task("ingest", total=total, detail="")
        result = memory.ingest_file(
            path, scope=opts.scope, fmt=opts.fmt, conversations=opts.conversations,
            sessions=opts.sessions, limit=opts.limit, extract=opts.extract, config=opts.config,
            on_turn=_turn_feed(bar, task) if opts.extract else None,
            on_index=index_feed(bar) if opts.index else None, index=opts.index,
        )  # fmt: skip
        bar.update(task, completed=total)
    if result.run is not None:
        _summary(result.run, save_run(result.run, runs_dir))
    else:
        console.print(f"turns: {len(result.turns)} stored without extraction", highlight=False)
    if opts.index:
        where = memory.search_location or "(no search index)"
        print_plain(f"search index: {result.indexed} documents written to {where}")
    return result


@MemoryChoice.options()
def ingest(
    path: Annotated[Path, typer.Argument(help="A conversation .json or a .jsonl turn stream.")],
    fmt: Annotated[
        InputFormat,
        typer.Option("--format", help="Input format (see construction.loaders)."),
    ] = "auto",
    scope: Annotated[
        str | None,
        typer.Option(
            "--scope",
            help="Whose memory the file is (it must hold one conversation); default: each "
            "conversation is its own scope.",
        ),
    ] = None,
    choice: MemoryChoice = MemoryChoice.SETTINGS,
    conversation: Annotated[
        list[str] | None, typer.Option(help="Conversation id(s) to ingest (default: all).")
    ] = None,
    sessions: Annotated[int | None, typer.Option(help="Only the first N sessions.")] = None,
    limit: Annotated[int | None, typer.Option(help="Only the first N turns.")] = None,
    extract: Annotated[
        bool,
        typer.Option(
            "--extract/--no-extract",
            help="Extract events and facts with the LM; without, store plain turns (no LLM).",
        ),
    ] = True,
    concurrency: Annotated[int, typer.Option(help="Parallel LLM extraction calls.")] = 1,
    max_attempts: Annotated[int, typer.Option(help="LLM attempts per call (1 + retries).")] = 3,
    retry_failed: Annotated[bool, typer.Option(help="Retry turns recorded as failed.")] = False,
    search_index: Annotated[
        bool,
        typer.Option(
            "--index/--no-index",
            help="Index the new turns for search (without: run `apexmem index` afterwards).",
        ),
    ] = True,
) -> None:
    """Ingest conversations into the memory (incremental and resumable)."""
    with user_errors():  # a bad file, scope or turn fails before any store is created
        loaded = load_turns(path, fmt, conversation, sessions)[:limit]
        turns, renamed = scope_turns(loaded, scope, path, load_settings().max_turn_chars)
        config = PipelineConfig(
            concurrency=concurrency, max_attempts=max_attempts, retry_failed=retry_failed
        )
    for name, derived in renamed.items():
        warn(f"conversation {name!r} is stored as scope {derived!r} (not a valid scope name)")
    opts = IngestOptions(
        fmt=fmt, scope=scope, conversations=conversation, sessions=sessions, limit=limit,
        extract=extract, index=search_index, config=config,
    )  # fmt: skip
    runs_dir = load_settings().apexmem_home / "runs"
    with choice.open(create=True) as memory:
        result = run_ingest(memory, path, runs_dir, len(turns), opts)
    fail_on_failed_turns(result)


def fail_on_failed_turns(result: AddResult) -> None:
    """Exit non-zero when a turn failed extraction, naming how many, the first error and the
    fix (the failed turns are stored; a run with ``--retry-failed`` extracts them again)."""
    failed = [t for t in result.turns if t.status == "failed"]
    if failed:
        first = " ".join((failed[0].error or "no error recorded").split())[:200]
        fail(
            f"{len(failed)} of {len(result.turns)} turns failed extraction (first: {first}); "
            "run the same command with --retry-failed to extract them again",
            kind="IngestError",
        )
