"""`apexmem demo`: the main job end to end on the embedded default.

Ingests the packaged Alice conversation (``apexmem_neo/samples/alice.jsonl``: favourite
restaurant Italian Garden then Sakura Sushi, a job change, a move) into its own SQLite file
under APEXMEM_HOME/demo, indexes it for Search, then answers a current-state, an as-of and a
when-did-it-change question, printing each answer, its evidence and the agent's trace.
Reruns are cheap: ingest skips turns already done (checkpoints) and re-indexing reuses the
embedding cache.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Final, Literal

import typer
from pydantic import BaseModel
from rich.markup import escape

from apexmem_neo.agent.models import AgentResult, Mode
from apexmem_neo.cli.ask import print_result, print_trace
from apexmem_neo.cli.common import console, fail, load_settings, print_plain, user_errors
from apexmem_neo.cli.ingest import IngestOptions, run_ingest
from apexmem_neo.cli.progress import index_feed, progress_bar
from apexmem_neo.construction.loaders import load_turns
from apexmem_neo.memory import Memory
from apexmem_neo.samples import ALICE, sample_path
from apexmem_neo.settings import Settings

DEMO_SCOPE: Final = "alice-demo"
"""The sample's conversation id: the scope its turns are stored and asked in."""


class DemoQuestion(BaseModel):
    kind: str
    question: str
    date: str


QUESTIONS: Final[tuple[DemoQuestion, ...]] = (
    DemoQuestion(kind="current state", question="What is Alice's favourite restaurant now?",
                 date="2024-07-01"),
    DemoQuestion(kind="as of a date",
                 question="What was Alice's favourite restaurant on 2024-02-01?",
                 date="2024-07-01"),
    DemoQuestion(kind="when did it change",
                 question="When did Alice's favourite restaurant change?", date="2024-07-01"),
)  # fmt: skip


def demo_db(settings: Settings) -> Path:
    return settings.apexmem_home / "demo" / "alice.sqlite"


def _show_conversation() -> None:
    console.rule("[bold]The conversation (apexmem_neo/samples/alice.jsonl)")
    for turn in load_turns(sample_path(ALICE), "jsonl"):
        line = f"[dim]{turn.anchor}[/] {escape(turn.speaker)}: {escape(turn.text)}"
        console.print(line, highlight=False)


def _build(memory: Memory, settings: Settings) -> None:
    """Ingest the sample (skipping turns already done) and index the graph for Search."""
    console.rule("[bold]Ingest (one LLM extraction per turn; resumable)")
    path = sample_path(ALICE)
    total = len(load_turns(path, "jsonl"))
    run_ingest(memory, path, settings.apexmem_home / "runs", total, IngestOptions(fmt="jsonl"))
    with progress_bar() as bar:
        count = memory.index(progress=index_feed(bar))
    where = memory.search_location
    console.print(f"search index: {count} documents in {where}", markup=False, soft_wrap=True)


def run_demo(
    settings: Settings,
    db: Path | None = None,
    mode: Mode | None = None,
    show_trace: bool = True,
) -> list[AgentResult]:
    """Ingest the sample, index it, answer the three questions; returns the results."""
    path = db or demo_db(settings)
    _show_conversation()
    results: list[AgentResult] = []
    with Memory.from_settings(settings, store="sqlite", db=path) as memory:
        _build(memory, settings)
        for q in QUESTIONS:
            console.rule(f"[bold]{q.kind}[/]: {q.question} (asked on {q.date})")
            result = memory.ask(q.question, scope=DEMO_SCOPE, at=q.date, mode=mode)
            print_result(result)
            if show_trace:
                print_trace(result)
            results.append(result)
    print_plain(
        f"\nmemory in {path}; try: apexmem history Alice favourite_restaurant "
        f"--db {path} --scope {DEMO_SCOPE}"
    )
    return results


def demo(
    db: Annotated[
        Path | None, typer.Option("--db", help="SQLite file (default APEXMEM_HOME/demo/).")
    ] = None,
    mode: Annotated[
        Literal["fast", "react", "auto", "query"] | None,
        typer.Option("--mode", help="Agent mode: fast, react, auto or query (default: auto)."),
    ] = None,
    trace: Annotated[bool, typer.Option("--trace/--no-trace", help="Print tool traces.")] = True,
) -> None:
    """Ingest a short sample conversation and answer three temporal questions about it."""
    settings = load_settings()
    with user_errors():
        results = run_demo(settings, db, mode, trace)
    failed = [r for r in results if r.error]
    if failed:
        fail(f"{len(failed)} question(s) failed; see the errors above")
