"""The agent's configuration and result types (pydantic data, no I/O)."""

from __future__ import annotations

from typing import Any, Literal, cast, get_args

from pydantic import BaseModel, Field

from apexmem_neo.errors import UnknownModeError as UnknownModeError

Mode = Literal["fast", "react", "auto", "query"]
MODES: tuple[str, ...] = get_args(Mode)
ContextOrder = Literal["entities", "turns"]
ContextStyle = Literal["transcript", "entities"]
TOOL_NAMES: tuple[str, ...] = ("SchemaViewer", "EntityLookup", "GraphQuery", "Search")
"""The paper's four tools: the default set."""
OPTIONAL_TOOL_NAMES: tuple[str, ...] = ("Timeline",)
"""Beyond the paper, for ablations: Timeline(entity, property, as_of)."""
ALL_TOOL_NAMES: tuple[str, ...] = TOOL_NAMES + OPTIONAL_TOOL_NAMES


# A small local model answered no better with more loop steps, and more slowly: it never
# finishes by itself, so extra steps only add tokens (the CHANGELOG has the measurement).
# Hosted models do use more steps well.
LOCAL_MAX_ITERS = 4
HOSTED_MAX_ITERS = 12
_LOCAL_HOSTS = ("127.0.0.1", "localhost", "0.0.0.0", "[::1]")


def check_mode(mode: object) -> Mode:
    """``mode`` itself if it is one of ``MODES``, else ``UnknownModeError`` listing them."""
    if mode not in MODES:
        raise UnknownModeError(f"unknown mode {mode!r}: use one of {', '.join(MODES)}")
    return cast(Mode, mode)


def max_iters_for(api_base: str | None) -> int:
    """The loop's step budget for a model: small for one served on this machine (the local
    llama-server), larger for a hosted one (no api_base, or a remote one)."""
    host = (api_base or "").split("://")[-1].split("/")[0].rsplit(":", 1)[0]
    return LOCAL_MAX_ITERS if host in _LOCAL_HOSTS else HOSTED_MAX_ITERS


class AgentConfig(BaseModel):
    """Budgets and choices of one agent; defaults suit a small local model."""

    mode: Mode = "auto"
    tools: tuple[str, ...] = TOOL_NAMES
    max_tool_calls: int = Field(default=40, ge=1, le=200)
    max_iters: int = Field(default=LOCAL_MAX_ITERS, ge=1, le=200)
    prefetch_entities: int = Field(default=2, ge=0, le=10)
    prefetch_turns: int = Field(default=10, ge=0, le=20)
    context_style: ContextStyle = "transcript"
    """``transcript``: computed lines, then the top turns as transcript lines each with the
    facts extracted from it; ``entities``: the top entities' timelines and the turns."""
    context_order: ContextOrder = "entities"
    """With the ``entities`` style, which part comes first: the entities with their facts, or
    the search-ranked turns (each keeps its share of the budget either way)."""
    max_facts: int = Field(default=12, ge=1, le=200)
    max_context_chars: int = Field(default=6000, ge=200)
    max_observation_chars: int = Field(default=4000, ge=200)
    answer_program: str | None = None
    """Path of a compiled answer program (DSPy JSON, from ``apexmem optimize``) whose
    demonstrations the fast path uses; None: the signature alone."""
    react_program: str | None = None
    """Path of a compiled ReAct program (DSPy JSON of the loop's ``ToolProgram``, or of a
    ``dspy.ReAct`` over this agent's tools) whose demonstrations the loop's steps use; None:
    the signatures alone."""
    query_program: str | None = None
    """Path of a compiled query-mode program (DSPy JSON of ``QueryProgram``) whose
    demonstrations its query-writing step uses; None: the signatures alone."""
    query_language: Literal["sql", "cypher"] | None = None
    """The language the query mode writes in; None: the query backend's native one."""
    context_preamble: str = ""
    """Text put before the prefetched context (e.g. a compact schema for a benchmark)."""


class EvidenceItem(BaseModel):
    """A turn the answer rests on, with its words quoted."""

    turn_id: str
    text: str = ""


StepPhase = Literal["fast", "react", "query", "extract"]


class TraceStep(BaseModel):
    """One LLM step: the thought, the tool it chose and what the call cost."""

    step: int
    phase: StepPhase
    thought: str = ""
    tool: str | None = None
    args: dict[str, Any] = {}
    output_chars: int = 0
    seconds: float = 0.0
    tokens: dict[str, int] = {}
    error: str | None = None


class AgentResult(BaseModel):
    """What ``MemoryAgent.ask`` returns."""

    question: str
    question_date: str | None = None
    time_hints: list[str] = []
    answer: str = ""
    evidence: list[EvidenceItem] = []
    mode: Literal["fast", "react", "query"] = "fast"
    enough_context: bool | None = None
    trace: list[TraceStep] = []
    tool_calls: int = 0
    llm_calls: int = 0
    tokens: dict[str, int] = {}
    seconds: float = 0.0
    error: str | None = None
