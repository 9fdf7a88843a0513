"""`apexmem ask QUESTION`: answer a question from memory (fast path, then ReAct if needed)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Literal

import typer
from rich.markup import escape
from rich.table import Table

from apexmem_neo.agent import ALL_TOOL_NAMES, TOOL_NAMES, AgentConfig
from apexmem_neo.agent.agent import is_non_answer
from apexmem_neo.agent.models import AgentResult, Mode, TraceStep
from apexmem_neo.cli.common import (
    DEFAULT_SCOPE,
    JsonOpt,
    MemoryChoice,
    ScopeOpt,
    console,
    fail,
    print_json,
    user_errors,
)
from apexmem_neo.ontology.types import normalize_time


def print_result(result: AgentResult) -> None:
    console.print(f"[bold]answer:[/] {escape(result.answer or '(none)')}", highlight=False)
    for item in result.evidence:
        console.print(f"  [dim]{escape(item.turn_id)}[/] {escape(item.text)}", highlight=False)
    if result.time_hints:
        console.print(f"time words: {'; '.join(result.time_hints)}", highlight=False, markup=False)
    console.print(
        f"mode {result.mode} | LLM calls {result.llm_calls} | tool calls {result.tool_calls} "
        f"| tokens {result.tokens.get('total_tokens', 0)} | {result.seconds:.1f} s",
        highlight=False,
    )
    if result.error:
        console.print(f"[red]error:[/] {escape(result.error)}", highlight=False)


def _step_row(step: TraceStep) -> tuple[str, ...]:
    args = json.dumps(step.args, ensure_ascii=False) if step.args else ""
    note = f"[red]{escape(step.error[:90])}[/]" if step.error else escape(step.thought[:90])
    return (
        str(step.step),
        step.phase,
        step.tool or "-",
        escape(args[:70]),
        str(step.output_chars),
        f"{step.seconds:.1f}",
        str(step.tokens.get("total_tokens", 0)),
        note,
    )


def print_trace(result: AgentResult) -> None:
    """One row per LLM step: phase, tool and arguments, output size, time, tokens, thought."""
    table = Table("#", "phase", "tool", "args", "out chars", "s", "tokens", "thought / error")
    for step in result.trace:
        table.add_row(*_step_row(step))
    console.print(table)


def agent_config(
    base: AgentConfig,
    mode: Mode | None,
    tools: str,
    max_tool_calls: int,
    max_iters: int | None,
) -> AgentConfig:
    """The memory's agent settings with the command's choices over them."""
    names = tuple(t.strip() for t in tools.split(",") if t.strip())
    unknown = [n for n in names if n not in ALL_TOOL_NAMES]
    if unknown:
        fail(f"unknown tool(s) {', '.join(unknown)}; choose from {', '.join(ALL_TOOL_NAMES)}")
    with user_errors():
        return AgentConfig.model_validate(
            {
                **base.model_dump(),
                "mode": mode or base.mode,
                "tools": names,
                "max_tool_calls": max_tool_calls,
                "max_iters": max_iters or base.max_iters,
            }
        )


@MemoryChoice.options()
def ask(
    question: Annotated[str, typer.Argument(help="The question to answer from memory.")],
    date: Annotated[
        str | None,
        typer.Option("--date", help="The question's date (ISO; default now), for time words."),
    ] = None,
    scope: ScopeOpt = DEFAULT_SCOPE,
    choice: MemoryChoice = MemoryChoice.SETTINGS,
    lang: Annotated[
        Literal["cypher", "sql"] | None,
        typer.Option("--lang", help="GraphQuery language (default: the store's own)."),
    ] = None,
    trace: Annotated[
        Path | None, typer.Option("--trace", help="Write the full result and trace as JSON.")
    ] = None,
    show_trace: Annotated[
        bool, typer.Option("--show-trace", help="Print each LLM step and tool call.")
    ] = False,
    mode: Annotated[
        Literal["fast", "react", "auto", "query"] | None,
        typer.Option(
            "--mode",
            help="fast, react, auto or query (the model writes graph "
            "queries; default: the agent's, auto).",
        ),
    ] = None,
    tools: Annotated[
        str,
        typer.Option(help="Comma-separated tool names for the ReAct loop (Timeline: optional)."),
    ] = ",".join(TOOL_NAMES),
    max_tool_calls: Annotated[int, typer.Option(help="Tool-call budget of the loop.")] = 40,
    max_iters: Annotated[
        int | None,
        typer.Option(help="Loop steps (default: fewer for a model served locally)."),
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Answer a question from the memory with the agent."""
    if date is not None:
        try:
            date = normalize_time(date)
        except ValueError as exc:
            fail(f"--date {date!r}: {exc}")
    with choice.open(create=False) as memory:
        config = agent_config(memory.agent_config, mode, tools, max_tool_calls, max_iters)
        if "Search" in config.tools:
            choice.warn_if_unindexed(memory)
        result = memory.ask(question, scope=scope, at=date, config=config, language=lang)
    failed = bool(result.error) and is_non_answer(result.answer)
    if as_json and not failed:
        print_json(result.model_dump(mode="json"))
    elif not as_json:
        print_result(result)
        if show_trace:
            print_trace(result)
    if trace is not None:
        trace.parent.mkdir(parents=True, exist_ok=True)
        trace.write_text(json.dumps(result.model_dump(), indent=2), encoding="utf-8")
        if not as_json:
            console.print(f"trace written to {trace}", highlight=False, markup=False)
    if failed:
        fail(f"no answer: {result.error}", kind="AnswerError")
