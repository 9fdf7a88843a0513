"""`apexmem ask QUESTION`: answer a question from memory (fast path, then ReAct if needed)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from apexmem_neo.agent import ALL_TOOL_NAMES, TOOL_NAMES, AgentConfig, MemoryAgent, build_tools
from apexmem_neo.agent.models import AgentResult, Mode, TraceStep, max_iters_for
from apexmem_neo.cli.common import DbOpt, StoreOpt, console, fail, load_settings
from apexmem_neo.cli.query import open_memory
from apexmem_neo.cli.search_index import DEFAULT_NAMESPACE, IndexNameOpt, open_search, warn_missing
from apexmem_neo.errors import ApexMemError
from apexmem_neo.llm import make_lm
from apexmem_neo.settings import Settings
from apexmem_neo.tools.backend import Language


def print_result(result: AgentResult) -> None:
    console.print(f"[bold]answer:[/] {result.answer or '(none)'}", highlight=False)
    for item in result.evidence:
        console.print(f"  [dim]{item.turn_id}[/] {item.text}", highlight=False)
    if result.time_hints:
        console.print(f"time words: {'; '.join(result.time_hints)}", highlight=False)
    console.print(
        f"mode {result.mode} | LLM calls {result.llm_calls} | tool calls {result.tool_calls} "
        f"| tokens {result.tokens.get('total_tokens', 0)} | {result.seconds:.1f} s",
        highlight=False,
    )
    if result.error:
        console.print(f"[red]error:[/] {result.error}", highlight=False)


def _step_row(step: TraceStep) -> tuple[str, ...]:
    args = json.dumps(step.args, ensure_ascii=False) if step.args else ""
    note = f"[red]{step.error}[/]" if step.error else step.thought
    return (
        str(step.step),
        step.phase,
        step.tool or "-",
        args[:70],
        str(step.output_chars),
        f"{step.seconds:.1f}",
        str(step.tokens.get("total_tokens", 0)),
        note[:90],
    )


def print_trace(result: AgentResult) -> None:
    """One row per LLM step: phase, tool and arguments, output size, time, tokens, thought."""
    table = Table("#", "phase", "tool", "args", "out chars", "s", "tokens", "thought / error")
    for step in result.trace:
        table.add_row(*_step_row(step))
    console.print(table)


@contextmanager
def open_agent(
    store: str,
    db: Path | None,
    settings: Settings,
    config: AgentConfig,
    language: Language | None = None,
    index_name: str = DEFAULT_NAMESPACE,
) -> Iterator[MemoryAgent]:
    """The agent over the store and its search index (warning when there is none)."""
    lm = make_lm(settings.lm, settings.lm_api_base, settings.lm_api_key, max_tokens=512)
    with (
        open_memory(store, db, settings) as (graph, backend),
        open_search(store, db, settings, index_name) as searcher,
    ):
        if searcher is None and "Search" in config.tools:
            warn_missing(store, db, settings, index_name)
        toolset = build_tools(graph, backend, searcher, config.tools, language=language)
        yield MemoryAgent(lm, graph, toolset, backend, searcher, config)


def run_agent(
    question: str,
    date: str | None,
    store: str,
    db: Path | None,
    settings: Settings,
    config: AgentConfig,
    language: Language | None = None,
    index_name: str = DEFAULT_NAMESPACE,
) -> AgentResult:
    """Open the memory and its search index, and answer ``question`` with the agent."""
    with open_agent(store, db, settings, config, language, index_name) as agent:
        return agent.ask(question, date)


def ask(
    question: Annotated[str, typer.Argument(help="The question to answer from memory.")],
    date: Annotated[
        str | None, typer.Option("--date", help="The question's date (ISO), for time words.")
    ] = None,
    store: StoreOpt = "sqlite",
    db: DbOpt = None,
    lang: Annotated[str, typer.Option("--lang", help="GraphQuery language: cypher | sql.")] = "",
    trace: Annotated[
        Path | None, typer.Option("--trace", help="Write the full result and trace as JSON.")
    ] = None,
    show_trace: Annotated[
        bool, typer.Option("--show-trace", help="Print each LLM step and tool call.")
    ] = False,
    mode: Annotated[
        str, typer.Option("--mode", help="fast | react | auto (default: the agent's default).")
    ] = AgentConfig().mode,
    tools: Annotated[
        str,
        typer.Option(help="Comma-separated tool names for the ReAct loop (Timeline: optional)."),
    ] = ",".join(TOOL_NAMES),
    max_tool_calls: Annotated[int, typer.Option(help="Tool-call budget of the loop.")] = 40,
    max_iters: Annotated[
        int | None,
        typer.Option(help="Loop steps (default: 4 for a model served locally, 12 otherwise)."),
    ] = None,
    index_name: IndexNameOpt = DEFAULT_NAMESPACE,
) -> None:
    """Answer a question from the memory graph with the agent."""
    if mode not in ("fast", "react", "auto") or lang not in ("", "cypher", "sql"):
        fail(f"--mode must be fast|react|auto and --lang cypher|sql (got {mode}, {lang})")
    if store not in ("sqlite", "neo4j"):
        fail(f"--store must be sqlite or neo4j, not {store!r}")
    names = tuple(t.strip() for t in tools.split(",") if t.strip())
    unknown = [n for n in names if n not in ALL_TOOL_NAMES]
    if unknown:
        fail(f"unknown tool(s) {unknown}; choose from {list(ALL_TOOL_NAMES)}")
    chosen: Mode = mode  # type: ignore[assignment]
    language: Language | None = lang or None  # type: ignore[assignment]
    settings = load_settings()
    config = AgentConfig(
        mode=chosen,
        tools=names,
        max_tool_calls=max_tool_calls,
        max_iters=max_iters or max_iters_for(settings.lm_api_base),
    )
    try:
        result = run_agent(question, date, store, db, settings, config, language, index_name)
    except ApexMemError as exc:  # a service down, a bad setting: one line, no traceback
        fail(str(exc))
    print_result(result)
    if show_trace:
        print_trace(result)
    if trace is not None:
        trace.parent.mkdir(parents=True, exist_ok=True)
        trace.write_text(json.dumps(result.model_dump(), indent=2), encoding="utf-8")
        console.print(f"trace written to {trace}")
