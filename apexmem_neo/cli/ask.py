"""`apexmem ask QUESTION`: answer a question from memory (fast path, then ReAct if needed)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from apexmem_neo.agent import TOOL_NAMES, AgentConfig, MemoryAgent, build_tools
from apexmem_neo.agent.models import AgentResult, Mode
from apexmem_neo.cli.common import console, fail, load_settings
from apexmem_neo.cli.query import DbOpt, StoreOpt, open_memory
from apexmem_neo.llm import make_lm
from apexmem_neo.tools.backend import Language


def _print(result: AgentResult) -> None:
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
    mode: Annotated[str, typer.Option("--mode", help="fast | react | auto.")] = "auto",
    tools: Annotated[
        str, typer.Option(help="Comma-separated tool names for the ReAct loop.")
    ] = ",".join(TOOL_NAMES),
    max_tool_calls: Annotated[int, typer.Option(help="Tool-call budget of the loop.")] = 40,
    max_iters: Annotated[int, typer.Option(help="Loop steps (keep small for local models).")] = 6,
) -> None:
    """Answer a question from the memory graph with the agent."""
    if mode not in ("fast", "react", "auto") or lang not in ("", "cypher", "sql"):
        fail(f"--mode must be fast|react|auto and --lang cypher|sql (got {mode}, {lang})")
    settings = load_settings()
    names = tuple(t.strip() for t in tools.split(",") if t.strip())
    chosen: Mode = mode  # type: ignore[assignment]
    language: Language | None = lang or None  # type: ignore[assignment]
    config = AgentConfig(
        mode=chosen, tools=names, max_tool_calls=max_tool_calls, max_iters=max_iters
    )
    lm = make_lm(settings.lm, settings.lm_api_base, settings.lm_api_key, max_tokens=512)
    with open_memory(store, db, settings) as (graph, backend):
        toolset = build_tools(graph, backend, None, names, language=language)
        result = MemoryAgent(lm, graph, toolset, backend, None, config).ask(question, date)
    _print(result)
    if trace is not None:
        trace.parent.mkdir(parents=True, exist_ok=True)
        trace.write_text(json.dumps(result.model_dump(), indent=2), encoding="utf-8")
        console.print(f"trace written to {trace}")
