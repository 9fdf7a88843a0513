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
from typing import Annotated, Final

import typer
from pydantic import BaseModel

from apexmem_neo.agent import AgentConfig
from apexmem_neo.agent.models import AgentResult, Mode
from apexmem_neo.cli.ask import open_agent, print_result, print_trace
from apexmem_neo.cli.common import console, fail, load_settings
from apexmem_neo.cli.ingest import run_ingest
from apexmem_neo.cli.search_index import build_index
from apexmem_neo.construction.loaders import load_turns
from apexmem_neo.construction.pipeline import PipelineConfig
from apexmem_neo.samples import ALICE, sample_path
from apexmem_neo.settings import Settings


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
        console.print(f"[dim]{turn.anchor}[/] {turn.speaker}: {turn.text}", highlight=False)


def run_demo(
    settings: Settings,
    db: Path | None = None,
    mode: Mode | None = None,
    show_trace: bool = True,
) -> list[AgentResult]:
    """Ingest the sample, index it, answer the three questions; returns the results."""
    path = db or demo_db(settings)
    path.parent.mkdir(parents=True, exist_ok=True)
    _show_conversation()
    console.rule("[bold]Ingest (one LLM extraction per turn; resumable)")
    turns = load_turns(sample_path(ALICE), "jsonl")
    run_ingest(turns, f"apexmem_neo/samples/{ALICE}", "sqlite", path, settings, PipelineConfig())
    count = build_index("sqlite", path, settings)
    console.print(f"search index: {count} documents beside {path}")
    config = AgentConfig() if mode is None else AgentConfig(mode=mode)
    results: list[AgentResult] = []
    with open_agent("sqlite", path, settings, config) as agent:
        for q in QUESTIONS:
            console.rule(f"[bold]{q.kind}[/]: {q.question} (asked on {q.date})")
            result = agent.ask(q.question, q.date)
            print_result(result)
            if show_trace:
                print_trace(result)
            results.append(result)
    console.print(
        f"\nmemory in {path}; try: apexmem history Alice favourite_restaurant --db {path}",
        highlight=False,
    )
    return results


def demo(
    db: Annotated[
        Path | None, typer.Option("--db", help="SQLite file (default APEXMEM_HOME/demo/).")
    ] = None,
    mode: Annotated[
        str, typer.Option("--mode", help="Agent mode: fast | react | auto (default: auto).")
    ] = "",
    trace: Annotated[bool, typer.Option("--trace/--no-trace", help="Print tool traces.")] = True,
) -> None:
    """Ingest a short sample conversation and answer three temporal questions about it."""
    if mode not in ("", "fast", "react", "auto"):
        fail(f"--mode must be fast, react or auto, not {mode!r}")
    chosen: Mode | None = mode or None  # type: ignore[assignment]
    results = run_demo(load_settings(), db, chosen, trace)
    failed = [r for r in results if r.error]
    if failed:
        fail(f"{len(failed)} question(s) failed; see the errors above")
