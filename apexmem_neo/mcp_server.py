"""The memory as an MCP server: ``build_server(memory, scope)`` returns an SDK ``MCPServer``.

Tools: the agent's read tools (SchemaViewer, EntityLookup, GraphQuery, Search, Timeline), Ask,
Ingest with IngestStatus, Forget, and the listings (Scopes; Sessions, Turns, Entities and Facts,
``apexmem_neo.mcp_listing``). Each but Scopes takes an optional ``scope`` (default: the
server's). Tools
are sync functions, which the SDK runs on worker threads (``anyio.to_thread``), so a slow query
or answer never blocks another client. Ingest queues a job for one background thread
(``IngestJobs``) and returns its id at once. A failure, including a read tool's result with an
``error``, comes back as an ``isError`` result. Building the server loads no model: the embedder
loads on the first search, the LM on the first Ask or extraction.
"""

from __future__ import annotations

import functools
import logging
import queue
import threading
import uuid
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Any, Literal, ParamSpec

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import BaseModel, Field

from apexmem_neo.agent.models import ALL_TOOL_NAMES, AgentResult, Mode, TraceStep
from apexmem_neo.agent.toolset import build_tools
from apexmem_neo.errors import ApexMemError
from apexmem_neo.mcp_listing import add_listing_tools
from apexmem_neo.memory.messages import DEFAULT_SESSION, check_scope, read_messages
from apexmem_neo.memory.results import AddResult
from apexmem_neo.ontology.metadata import MetadataValue
from apexmem_neo.query.backend import Language
from apexmem_neo.search import SearchResults

if TYPE_CHECKING:
    from apexmem_neo.memory.core import Memory

logger = logging.getLogger(__name__)
P = ParamSpec("P")

INSTRUCTIONS = (
    "Long-term temporal memory (APEX-MEM). Facts are never overwritten: each has a validity "
    "interval [t_from, t_to]. Start with SchemaViewer(include_guide=true) or EntityLookup; Ask "
    "answers a question with the memory's own agent. Ingest is asynchronous: it returns a job "
    "id to poll with IngestStatus. Every tool takes an optional scope (whose memory)."
)
NO_LM = (
    "no language model is configured for this server (started with --no-llm?): {what}. "
    "The read tools (Search, EntityLookup, GraphQuery, Timeline) need none."
)
MAX_LINES = 50
"""Turns, facts and trace steps shown at most in one tool answer."""
KEEP_JOBS = 1000
"""Finished ingest jobs remembered for IngestStatus (the oldest are forgotten first)."""

ScopeArg = Annotated[
    str, Field(description="Whose memory: a user or agent id (default: the server's scope).")
]
SessionArg = Annotated[
    str | None,
    Field(description="Session name for turns that name none (default: 'default')."),
]


class IngestTurn(BaseModel):
    """One turn to remember."""

    speaker: str = Field(min_length=1, description="Who said it, e.g. 'Alice'.")
    text: str = Field(description="What was said.")
    anchor: str | None = Field(
        default=None,
        description="When it was said, ISO 8601 (e.g. 2024-03-20T10:00:00); "
        "default: the previous turn's time, else now.",
    )
    session: str | None = Field(
        default=None, description="The conversation session it belongs to (default: the call's)."
    )
    metadata: dict[str, MetadataValue] | None = Field(
        default=None,
        description="Optional labels kept with the turn (string keys, JSON scalar values), "
        'e.g. {"source": "email"}; Turns and Search filter on them.',
    )


# ---- building the server ----


def build_server(
    memory: Memory,
    scope: str = "default",
    extract: bool = True,
    jobs: IngestJobs | None = None,
) -> MCPServer:
    """An MCP server over ``memory``; ``scope`` is the tools' default scope and ``extract``
    Ingest's default. Pass ``jobs`` to close its worker when the server stops."""
    check_scope(scope)
    server = MCPServer(name="apexmem", instructions=INSTRUCTIONS)
    _add_read_tools(server, memory, scope)
    _add_ask(server, memory, scope)
    _add_ingest(server, memory, jobs or IngestJobs(memory), scope, extract)
    _add_forget(server, memory, scope)
    add_listing_tools(server, memory, scope, _add)
    return server


FORGET_DOC = """Erase from memory for good: a whole scope, one of its sessions (by name) or one
entity (by name or id), from the graph, the search index, the construction checkpoint and
the embedding cache. It cannot be undone; an audit record (ids, counts, time; no content)
stays. Use it when a user asks to be forgotten or to delete what they said.

Args:
    session: erase only this session (the name Ingest was given); omit for the whole scope.
    entity: erase only this entity and its facts (the turns that named it stay).
    scope: whose memory (default: the server's scope).
"""


def _add_forget(server: MCPServer, memory: Memory, default: str) -> None:
    def forget(
        session: str | None = None, entity: str | None = None, scope: ScopeArg = default
    ) -> str:
        result = memory.forget(scope=scope, session=session, entity=entity)
        counts = ", ".join(f"{n} {t}" for t, n in result.erasure.counts.items() if n)
        return (
            f"Erased ({result.erasure.kind}) in scope {scope!r}: {counts or 'nothing matched'}; "
            f"{result.documents} search documents; erasure id {result.erasure.erasure_id}."
        )

    _add(server, forget, "Forget", FORGET_DOC, read=False, destructive=True)


def _reported(fn: Callable[P, str]) -> Callable[P, str]:
    """``fn`` with every failure raised as the SDK's ``ToolError``: the client gets an isError
    result with the message, and unexpected failures leave a traceback on stderr."""

    @functools.wraps(fn)
    def call(*args: P.args, **kwargs: P.kwargs) -> str:
        try:
            return fn(*args, **kwargs)
        except ToolError:
            raise
        except Exception as exc:
            raise ToolError(_describe(exc)) from exc

    return call


def _describe(exc: Exception) -> str:
    if isinstance(exc, ApexMemError | ValueError | LookupError):
        return str(exc)
    logger.exception("unexpected failure in an MCP tool")
    return f"{type(exc).__name__}: {exc}"


def _add(
    server: MCPServer,
    fn: Callable[..., str],
    name: str,
    doc: str,
    read: bool,
    destructive: bool = False,
) -> None:
    hints = ToolAnnotations(read_only_hint=read, destructive_hint=destructive)
    server.add_tool(
        _reported(fn), name=name, description=doc, annotations=hints, structured_output=False
    )


class _DocsOnly:
    """A searcher that only lets the tools be built for their descriptions (searching with it
    is a bug): the real search index loads its embedder on first use, not at start-up."""

    def search(self, query: str, k: int = 10) -> SearchResults:
        raise RuntimeError("_DocsOnly is for reading tool descriptions, not for searching")


def _tool_docs(memory: Memory) -> dict[str, str]:
    tools = build_tools(memory.store, memory.backend, _DocsOnly(), ALL_TOOL_NAMES)
    if memory.search_index is None:
        tools.pop("Search", None)
    return {name: tool.__doc__ or name for name, tool in tools.items()}


def _run_read_tool(memory: Memory, name: str, scope: str, *args: Any) -> str:
    """The agent's tool ``name`` over ``scope`` as markdown; a result with an ``error`` raises
    MCP's ``ToolError`` with the error block the agent would read."""
    tool = memory.tools(scope=scope, names=[name]).get(name)
    if tool is None:
        raise ToolError(f"{name} is not available on this memory")
    result = tool(*args)
    if not result.ok:
        raise ToolError(result.render())
    return result.text


def _add_read_tools(server: MCPServer, memory: Memory, default: str) -> None:
    def schema_viewer(
        include_examples: bool = False, include_guide: bool = False, scope: ScopeArg = default
    ) -> str:
        return _run_read_tool(memory, "SchemaViewer", scope, include_examples, include_guide)

    def entity_lookup(query: str, k: int = 3, scope: ScopeArg = default) -> str:
        return _run_read_tool(memory, "EntityLookup", scope, query, k)

    def graph_query(
        query: str,
        language: Language | None = None,
        params: dict[str, Any] | None = None,
        scope: ScopeArg = default,
    ) -> str:
        chosen = language or memory.language
        return _run_read_tool(memory, "GraphQuery", scope, query, chosen, params)

    def search(query: str, scope: ScopeArg = default) -> str:
        return _run_read_tool(memory, "Search", scope, query)

    def timeline(
        entity: str, property: str, as_of: str | None = None, scope: ScopeArg = default
    ) -> str:
        return _run_read_tool(memory, "Timeline", scope, entity, property, as_of)

    table: dict[str, Callable[..., str]] = {
        "SchemaViewer": schema_viewer,
        "EntityLookup": entity_lookup,
        "GraphQuery": graph_query,
        "Search": search,
        "Timeline": timeline,
    }
    for name, doc in _tool_docs(memory).items():
        _add(server, table[name], name, doc, read=True)


# ---- Ask ----

ASK_DOC = """Answer a question from memory with the memory's own agent (it searches, looks up
entities and queries the graph with an LLM).

Args:
    question: the question, e.g. "Where does Alice live now?".
    date: the question's own date (ISO, e.g. 2024-07-01) that "now", "last week"... refer to;
        default: today.
    mode: "fast" (one prefetch and one answer), "react" (the tool loop), "auto" (fast, then
        react when the context is not enough) or "query" (the model writes graph queries and
        answers from their rows); default: the server's.

Returns the answer, the turns it rests on (quoted) and a short trace of the agent's steps.
"""


def _add_ask(server: MCPServer, memory: Memory, default: str) -> None:
    def ask(
        question: str, date: str | None = None, mode: Mode | None = None, scope: ScopeArg = default
    ) -> str:
        if memory.lm is None:
            raise ToolError(NO_LM.format(what="Ask needs one to answer"))
        result = memory.ask(question, scope=scope, at=date, mode=mode)
        if result.error and not result.answer:
            raise ToolError(f"the agent gave no answer: {result.error}\n\n{render_trace(result)}")
        return render_answer(result)

    _add(server, ask, "Ask", ASK_DOC, read=True)


def render_answer(result: AgentResult) -> str:
    """The answer, the evidence turns quoted, and the trace summary, as markdown."""
    lines = ["## Answer", "", result.answer or "(no answer)", "", "## Evidence", ""]
    quoted = [f'- `{e.turn_id}`: "{e.text}"' if e.text else f"- `{e.turn_id}`"
              for e in result.evidence]  # fmt: skip
    lines += quoted or ["_(none)_"]
    if result.error:
        lines += ["", f"Note: {result.error}"]
    return "\n".join([*lines, "", render_trace(result)])


def render_trace(result: AgentResult) -> str:
    """One summary line, then one line per LLM step (tool, arguments, output size)."""
    tokens = result.tokens.get("total_tokens", 0)
    lines = [
        "## Trace",
        "",
        f"mode {result.mode} · {result.llm_calls} LLM call(s) · {result.tool_calls} tool "
        f"call(s) · {tokens} tokens · {result.seconds:.1f} s",
    ]
    lines += [_step_line(step) for step in result.trace[:MAX_LINES]]
    return "\n".join(lines)


def _step_line(step: TraceStep) -> str:
    """``1. react (2.1 s): EntityLookup(query='Alice') -> 420 chars``, or the step's thought."""
    args = ", ".join(f"{k}={v!r}" for k, v in step.args.items())
    did = f"{step.tool}({_cut(args, 100)}) -> {step.output_chars} chars" if step.tool else ""
    said = did or _cut(step.thought, 120)
    note = f" error: {_cut(step.error, 160)}" if step.error else ""
    head = f"{step.step}. {step.phase} ({step.seconds:.1f} s)"
    return f"{head}: {said}{note}" if said else head + note


def _cut(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


# ---- Ingest and IngestStatus ----

JobState = Literal["queued", "running", "done", "failed"]
Batch = tuple[str | None, list[dict[str, Any]]]
"""A session name (None: the default) and its chat messages, as ``Memory.add`` takes them."""


@dataclass
class IngestJob:
    """One Ingest call: its turns by session, and how far it got."""

    job_id: str
    scope: str
    batches: list[Batch]
    extract: bool
    state: JobState = "queued"
    results: list[AddResult] = field(default_factory=list)
    error: str | None = None

    @property
    def turns(self) -> int:
        return sum(len(messages) for _, messages in self.batches)


class IngestJobs:
    """Ingest jobs run in order, one at a time, by one background thread (started by the first
    job): an Ingest call returns at once, and reads never wait for it. ``Memory.add`` takes
    the memory's write lock and indexes what it added, so search follows every job."""

    def __init__(self, memory: Memory, keep: int = KEEP_JOBS) -> None:
        self._memory = memory
        self._keep = keep
        self._jobs: dict[str, IngestJob] = {}
        self._queue: queue.Queue[IngestJob | None] = queue.Queue()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._closed = False

    def submit(self, scope: str, batches: list[Batch], extract: bool) -> IngestJob:
        job = IngestJob(uuid.uuid4().hex[:16], scope, batches, extract)
        with self._lock:
            if self._closed:
                raise ApexMemError("the server is stopping and takes no more ingest jobs")
            self._jobs[job.job_id] = job
            self._forget_finished()
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._work, name="apexmem-ingest", daemon=True
                )
                self._thread.start()
        self._queue.put(job)
        return job

    def get(self, job_id: str) -> IngestJob | None:
        with self._lock:
            return self._jobs.get(job_id)

    def ahead(self, job: IngestJob) -> int:
        """How many jobs run before ``job`` (the running one included)."""
        with self._lock:
            order = list(self._jobs.values())
        earlier = order[: order.index(job)] if job in order else []
        return sum(j.state in ("queued", "running") for j in earlier)

    def close(self) -> None:
        """Take no more jobs, fail the queued ones and wait for the running one to finish
        (so the memory is not closed under a write)."""
        with self._lock:
            self._closed = True
            thread = self._thread
            for job in self._jobs.values():
                if job.state == "queued":
                    job.state, job.error = "failed", "the server stopped before the job ran"
        self._queue.put(None)
        if thread is not None:
            thread.join()

    def _forget_finished(self) -> None:
        finished = [i for i, j in self._jobs.items() if j.state in ("done", "failed")]
        for job_id in finished[: max(0, len(self._jobs) - self._keep)]:
            del self._jobs[job_id]

    def _work(self) -> None:
        while (job := self._queue.get()) is not None:
            with self._lock:
                if job.state != "queued":  # failed by close() while it waited
                    continue
                job.state = "running"
            self._run(job)

    def _run(self, job: IngestJob) -> None:
        try:
            for session, messages in job.batches:
                added = self._memory.add(
                    messages, scope=job.scope, session=session, extract=job.extract
                )
                job.results.append(added)
        except Exception as exc:  # the job fails; the server and the next jobs go on
            with self._lock:
                job.state, job.error = "failed", _describe(exc)
            return
        with self._lock:
            job.state = "done"


INGEST_DOC = """Remember turns of a conversation, in the background: returns a job id at once;
poll IngestStatus(job_id) until it is done or failed.

Args:
    turns: the turns in order, each {{"speaker", "text", "anchor" (ISO time), "session",
        "metadata" (optional labels: string keys, JSON scalar values)}}.
    session: the session of turns that name none (default "default"); each Ingest appends
        after the turns the session already holds.
    extract: true: an LLM extracts events and typed facts from each turn; false: the turns
        are stored as they are (searchable and queryable at once, no LLM call). Default: {default}.

Jobs run one at a time, in order; reads go on meanwhile. The search index follows each job.
"""

STATUS_DOC = """The state of an Ingest job: queued, running, done (with what was stored: the
turns, the facts extracted, LLM calls and search documents indexed) or failed (with why).

Args:
    job_id: the id Ingest returned.
"""


def _add_ingest(
    server: MCPServer, memory: Memory, jobs: IngestJobs, default: str, extract_default: bool
) -> None:
    def ingest(
        turns: list[IngestTurn],
        session: SessionArg = None,
        extract: bool = extract_default,
        scope: ScopeArg = default,
    ) -> str:
        if extract and memory.lm is None:
            raise ToolError(NO_LM.format(what="pass extract=false to store the turns as they are"))
        job = jobs.submit(scope, _batches(turns, session, scope, memory.max_turn_chars), extract)
        return (
            f"# Ingest job `{job.job_id}`: queued\n\n{job.turns} turn(s) for scope `{scope}`"
            f"{' with extraction' if extract else ', stored without extraction'}. "
            f'Poll IngestStatus(job_id="{job.job_id}") until it is done or failed.'
        )

    def ingest_status(job_id: str, scope: ScopeArg = default) -> str:
        job = jobs.get(job_id)
        if job is None or job.scope != scope:
            raise ToolError(
                f"no ingest job {job_id!r} in scope {scope!r} (jobs are remembered only "
                "while this server runs)"
            )
        return render_job(job, jobs.ahead(job) if job.state == "queued" else 0)

    doc = INGEST_DOC.format(default=str(extract_default).lower())
    _add(server, ingest, "Ingest", doc, read=False)
    _add(server, ingest_status, "IngestStatus", STATUS_DOC, read=True)


def _batches(
    turns: Sequence[IngestTurn], session: str | None, scope: str, max_chars: int
) -> list[Batch]:
    """The turns as chat messages grouped by session (consecutive turns of one session form
    one batch), checked now (texts, anchors, at most ``max_chars`` characters each) so a
    malformed turn fails the call, not the job."""
    check_scope(scope)
    if not turns:
        raise ToolError("no turns to ingest: give at least one {speaker, text, anchor}")
    batches: list[Batch] = []
    for turn in turns:
        name = turn.session or session
        message = {"role": "user", "name": turn.speaker, "content": turn.text,
                   "timestamp": turn.anchor, "metadata": turn.metadata}  # fmt: skip
        if batches and batches[-1][0] == name:
            batches[-1][1].append(message)
        else:
            batches.append((name, [message]))
    for name, messages in batches:
        read_messages(messages, None, max_chars, name or DEFAULT_SESSION)
    return batches


def render_job(job: IngestJob, ahead: int = 0) -> str:
    """IngestStatus's markdown: the state, then what was stored or why it failed."""
    head = f"# Ingest job `{job.job_id}`: {job.state}\n\n"
    if job.state == "queued":
        return head + f"{job.turns} turn(s) for scope `{job.scope}`; {ahead} job(s) before it."
    if job.state == "running":
        return head + f"{job.turns} turn(s) for scope `{job.scope}`, being stored."
    body = render_added(job.results, job.scope) if job.results else ""
    if job.state == "done":
        return head + body
    stored = f"\n\nStored before it failed:\n\n{body}" if body else ""
    return head + f"Error: {job.error}{stored}"


def render_added(results: Sequence[AddResult], scope: str) -> str:
    """What ``Memory.add`` stored: counts, then each turn and each fact extracted."""
    turns = [t for r in results for t in r.turns]
    facts = [f for r in results for f in r.facts]
    states = ", ".join(f"{n} {state}" for state, n in Counter(t.status for t in turns).items())
    summary = (
        f"{len(turns)} turn(s) in scope `{scope}` ({states}) · {len(facts)} fact(s) · "
        f"{sum(r.llm_calls for r in results)} LLM call(s) · {sum(r.tokens for r in results)} "
        f"tokens · {sum(r.indexed for r in results)} search document(s) indexed · "
        f"{sum(r.seconds for r in results):.2f} s"
    )
    lines = [summary, "", "## Turns", ""]
    for t in turns[:MAX_LINES]:
        error = f" ({t.error})" if t.error else ""
        lines.append(f"- `{t.turn_id}` {t.status}{error}: {t.speaker}: {_cut(t.text, 160)}")
    lines += _more(turns)
    if facts:
        lines += ["", "## Facts", ""]
        for f in facts[:MAX_LINES]:
            until = f", until {f.t_to}" if f.t_to else ""
            lines.append(f"- {f.entity} · {f.property} = {f.value!r} (from {f.t_from}{until})")
        lines += _more(facts)
    return "\n".join(lines)


def _more(items: Sequence[object]) -> list[str]:
    return [f"- … and {len(items) - MAX_LINES} more"] if len(items) > MAX_LINES else []
