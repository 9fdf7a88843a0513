"""The MCP server in process: the SDK's ``Client`` over ``build_server`` on a SQLite memory with
the hashing embedder and no LM (no service needed)."""

from __future__ import annotations

import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult

from apexmem_neo import Memory
from apexmem_neo.agent.models import AgentResult, EvidenceItem, TraceStep
from apexmem_neo.errors import ToolError
from apexmem_neo.mcp_server import IngestJobs, build_server
from apexmem_neo.memory.results import AddResult
from apexmem_neo.testing import HashingEmbedder
from apexmem_neo.tools.result import ERROR_HEADING, ToolResult
from tests.unit.agent.alice import alice_batch

TOOLS = {"SchemaViewer", "EntityLookup", "GraphQuery", "Search", "Timeline", "Ask", "Ingest",
         "IngestStatus", "Forget", "Scopes", "Sessions", "Turns", "Entities", "Facts"}  # fmt: skip
PIANO = [
    {"speaker": "Alice", "text": "I started learning piano.", "anchor": "2024-04-02T10:00:00"},
    {"speaker": "Bob", "text": "Nice! Which teacher?"},
]
WAIT_S = 10.0


@contextmanager
def served(
    tmp_path: Path, extract: bool = False, **options: Any
) -> Iterator[tuple[Memory, MCPServer, IngestJobs]]:
    options.setdefault("embedder", HashingEmbedder())
    options.setdefault("lm", None)
    memory = Memory.sqlite(tmp_path / "m.sqlite", home=tmp_path / "home", **options)
    jobs = IngestJobs(memory)
    try:
        yield memory, build_server(memory, "alice", extract=extract, jobs=jobs), jobs
    finally:
        jobs.close()
        memory.close()


def run(server: MCPServer, scenario: Callable[[Client], Awaitable[Any]]) -> Any:
    async def main() -> Any:
        async with Client(server) as client:
            return await scenario(client)

    return anyio.run(main)


def text(result: CallToolResult) -> str:
    return "\n".join(getattr(c, "text", "") for c in result.content)


async def finished(client: Client, job_id: str, **args: Any) -> str:
    """IngestStatus polled until the job is done or failed."""
    with anyio.fail_after(WAIT_S):
        while True:
            status = text(await client.call_tool("IngestStatus", {"job_id": job_id, **args}))
            if status.split("\n")[0].endswith(("done", "failed")):
                return status
            await anyio.sleep(0.02)


def job_id(queued: CallToolResult) -> str:
    return text(queued).split("`")[1]


def test_the_tools_are_listed_each_with_a_scope(tmp_path: Path) -> None:
    with served(tmp_path) as (_, server, _jobs):
        tools = run(server, lambda c: c.list_tools()).tools
    assert {t.name for t in tools} == TOOLS
    for tool in (t for t in tools if t.name != "Scopes"):
        scope = tool.input_schema["properties"]["scope"]
        assert scope["default"] == "alice" and "scope" not in tool.input_schema.get("required", [])
    ingest = next(t for t in tools if t.name == "Ingest")
    assert ingest.annotations is not None and ingest.annotations.read_only_hint is False
    assert ingest.input_schema["properties"]["extract"]["default"] is False
    forget = next(t for t in tools if t.name == "Forget")
    assert forget.annotations is not None and forget.annotations.destructive_hint is True


def test_no_search_index_means_no_search_tool(tmp_path: Path) -> None:
    with served(tmp_path, search=None) as (_, server, _jobs):
        names = {t.name for t in run(server, lambda c: c.list_tools()).tools}
    assert names == TOOLS - {"Search"}


def test_ingest_queues_a_job_that_search_and_graph_query_then_see(tmp_path: Path) -> None:
    async def scenario(client: Client) -> dict[str, str]:
        queued = await client.call_tool("Ingest", {"turns": PIANO})
        out = {"queued": text(queued), "status": await finished(client, job_id(queued))}
        out["search"] = text(await client.call_tool("Search", {"query": "learning piano"}))
        sql = "SELECT speaker, text, anchor_datetime FROM turns ORDER BY seq"
        out["rows"] = text(await client.call_tool("GraphQuery", {"query": sql}))
        return out

    with served(tmp_path) as (_, server, _jobs):
        out = run(server, scenario)
    assert out["queued"].startswith("# Ingest job `") and "queued" in out["queued"].split("\n")[0]
    assert out["status"].split("\n")[0].endswith(": done"), out["status"]
    assert "2 turn(s) in scope `alice` (2 stored)" in out["status"]
    assert "search document(s) indexed" in out["status"]
    turns = out["search"].split("## Turns")[1]
    assert "I started learning piano." in turns.split("\n- ")[1], out["search"]
    assert "| Bob | Nice! Which teacher? | 2024-04-02T10:00:00 |" in out["rows"]


def test_turns_of_two_sessions_are_stored_in_two_sessions(tmp_path: Path) -> None:
    turns = [{**PIANO[0], "session": "s1"}, {**PIANO[1], "session": "s2"}]

    async def scenario(client: Client) -> str:
        queued = await client.call_tool("Ingest", {"turns": turns, "scope": "bob"})
        await finished(client, job_id(queued), scope="bob")
        sql = "SELECT COUNT(DISTINCT session_id) AS n FROM turns"
        return text(await client.call_tool("GraphQuery", {"query": sql, "scope": "bob"}))

    with served(tmp_path) as (_, server, _jobs):
        assert "| 2 |" in run(server, scenario)


def test_failures_come_back_as_is_error_with_the_reason(tmp_path: Path) -> None:
    calls: dict[str, tuple[str, dict[str, Any]]] = {
        "refused": ("GraphQuery", {"query": "DELETE FROM turns"}),
        "ask": ("Ask", {"question": "Where does Alice live?"}),
        "extract": ("Ingest", {"turns": PIANO, "extract": True}),
        "anchor": ("Ingest", {"turns": [{"speaker": "A", "text": "x", "anchor": "soon"}]}),
        "empty": ("Ingest", {"turns": []}),
        "scope": ("Search", {"query": "piano", "scope": "no spaces allowed"}),
        "job": ("IngestStatus", {"job_id": "nope"}),
        "empty_lookup": ("EntityLookup", {"query": "  "}),
    }

    async def scenario(client: Client) -> dict[str, CallToolResult]:
        return {key: await client.call_tool(name, args) for key, (name, args) in calls.items()}

    with served(tmp_path) as (_, server, _jobs):
        out = run(server, scenario)
    assert all(r.is_error for r in out.values()), {k: text(r) for k, r in out.items()}
    assert f"{ERROR_HEADING} Not a SELECT" in text(out["refused"])
    assert "no language model is configured" in text(out["ask"])
    assert "extract=false" in text(out["extract"])
    assert "timestamp 'soon'" in text(out["anchor"])
    assert "no turns to ingest" in text(out["empty"])
    assert "not a valid scope name" in text(out["scope"])
    assert "no ingest job 'nope'" in text(out["job"])


def test_a_job_is_seen_only_from_its_scope(tmp_path: Path) -> None:
    async def scenario(client: Client) -> tuple[CallToolResult, str]:
        queued = await client.call_tool("Ingest", {"turns": PIANO, "scope": "bob"})
        await finished(client, job_id(queued), scope="bob")
        return await client.call_tool("IngestStatus", {"job_id": job_id(queued)}), job_id(queued)

    with served(tmp_path) as (_, server, _jobs):
        result, jid = run(server, scenario)
    assert result.is_error and f"no ingest job '{jid}' in scope 'alice'" in text(result)


def test_an_unknown_entity_is_an_answer_not_an_error(tmp_path: Path) -> None:
    async def scenario(client: Client) -> list[CallToolResult]:
        return [
            await client.call_tool("EntityLookup", {"query": "Nobody"}),
            await client.call_tool("Timeline", {"entity": "Nobody", "property": "lives_in"}),
        ]

    with served(tmp_path) as (_, server, _jobs):
        lookup, timeline = run(server, scenario)
    assert not lookup.is_error and "No entity matches 'Nobody'" in text(lookup)
    assert not timeline.is_error and "No entity matches 'Nobody'" in text(timeline)


def test_read_tools_answer_over_a_stored_graph(tmp_path: Path) -> None:
    async def scenario(client: Client) -> list[str]:
        args = {"entity": "Alice", "property": "favourite_restaurant", "as_of": "2024-02-01"}
        return [
            text(await client.call_tool("Timeline", args)),
            text(await client.call_tool("EntityLookup", {"query": "Alice", "k": 1})),
            text(await client.call_tool("SchemaViewer", {"include_guide": True})),
        ]

    with served(tmp_path) as (memory, server, _jobs):
        memory.store.write(alice_batch(scope="alice"))  # the server's default scope
        timeline, lookup, schema = run(server, scenario)
    assert "Value on 2024-02-01: Italian Garden" in timeline
    assert "Sakura Sushi" in lookup
    assert schema.startswith("# Memory schema (SQLite")


def test_read_tools_resolve_names_as_every_read_does(tmp_path: Path) -> None:
    """Another spelling of the property finds it; a name of no entity is an answer listing
    the scope's names (not a crash, not an error result), never another entity's facts."""

    async def scenario(client: Client) -> list[CallToolResult]:
        asked = {"entity": "alice", "property": "favorite restaurant", "as_of": "2024-02-01"}
        return [
            await client.call_tool("Timeline", asked),
            await client.call_tool("Timeline", {"entity": "Bob", "property": "lives_in"}),
            await client.call_tool("EntityLookup", {"query": "Zorro the Magnificent"}),
        ]

    with served(tmp_path) as (memory, server, _jobs):
        memory.store.write(alice_batch(scope="alice"))
        timeline, bob, zorro = run(server, scenario)
    assert "# Alice · favourite_restaurant" in text(timeline)
    assert "Value on 2024-02-01: Italian Garden" in text(timeline)
    for result in (bob, zorro):
        assert not result.is_error and "nearest known names: Alice." in text(result)
        assert "Sakura Sushi" not in text(result)


def test_tools_run_off_the_event_loop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A call blocked in its tool leaves the server free to answer another call (which
    releases it): on the event loop, the first call would stall the second."""
    released = threading.Event()

    def slow(query: str, *args: Any) -> ToolResult:
        if released.wait(WAIT_S):
            return ToolResult("released")
        return ToolResult.failure(ToolError("Never released", "the second call did not run"))

    def release(query: str) -> ToolResult:
        released.set()
        return ToolResult("released the slow call")

    tools = {"GraphQuery": slow, "Search": release}

    async def scenario(client: Client) -> list[str]:
        out: list[str] = []

        async def call(name: str) -> None:
            out.append(text(await client.call_tool(name, {"query": "x"})))

        async with anyio.create_task_group() as tg:
            tg.start_soon(call, "GraphQuery")
            await anyio.sleep(0.1)
            tg.start_soon(call, "Search")
        return out

    with served(tmp_path) as (memory, server, _jobs):
        monkeypatch.setattr(memory, "tools", lambda scope, names: tools)
        assert run(server, scenario) == ["released the slow call", "released"]


def test_ingest_returns_at_once_and_reads_go_on_while_jobs_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    go = threading.Event()

    async def scenario(client: Client) -> dict[str, str]:
        first = await client.call_tool("Ingest", {"turns": PIANO[:1]})
        second = await client.call_tool("Ingest", {"turns": PIANO[1:]})
        out = {"first": await status_once(client, job_id(first))}
        out["second"] = await status_once(client, job_id(second))
        sql = "SELECT COUNT(*) AS n FROM turns"
        out["read"] = text(await client.call_tool("GraphQuery", {"query": sql}))
        go.set()
        out["first_done"] = await finished(client, job_id(first))
        out["second_done"] = await finished(client, job_id(second))
        return out

    with served(tmp_path) as (memory, server, _jobs):
        add = memory.add

        def held_add(*args: Any, **kwargs: Any) -> AddResult:
            assert go.wait(WAIT_S), "the test never let the job go on"
            return add(*args, **kwargs)

        monkeypatch.setattr(memory, "add", held_add)
        out = run(server, scenario)
    assert out["second"].startswith("# Ingest job") and ": queued" in out["second"]
    assert "1 job(s) before it" in out["second"]
    assert out["first"].split("\n")[0].endswith(("queued", "running"))
    assert "| 0 |" in out["read"]
    assert out["first_done"].split("\n")[0].endswith("done")
    assert out["second_done"].split("\n")[0].endswith("done")


async def status_once(client: Client, jid: str) -> str:
    return text(await client.call_tool("IngestStatus", {"job_id": jid}))


def test_close_fails_the_queued_jobs_and_waits_for_the_running_one(tmp_path: Path) -> None:
    started, go = threading.Event(), threading.Event()

    class SlowMemory:
        def add(self, messages: Any, **kwargs: Any) -> AddResult:
            started.set()
            go.wait(WAIT_S)
            return AddResult(scope=kwargs["scope"])

    jobs = IngestJobs(SlowMemory())  # type: ignore[arg-type]
    batch: list[tuple[str | None, list[dict[str, Any]]]] = [(None, [{"content": "x"}])]
    running = jobs.submit("alice", batch, extract=False)
    waiting = jobs.submit("alice", batch, extract=False)
    assert started.wait(WAIT_S)
    assert jobs.ahead(waiting) == 1
    closer = threading.Thread(target=jobs.close)
    closer.start()
    closer.join(0.2)
    assert closer.is_alive(), "close() returned while a job was still running"
    go.set()
    closer.join(WAIT_S)
    assert running.state == "done" and waiting.state == "failed"
    assert waiting.error == "the server stopped before the job ran"


def test_finished_jobs_beyond_the_limit_are_forgotten(tmp_path: Path) -> None:
    class QuickMemory:
        def add(self, messages: Any, **kwargs: Any) -> AddResult:
            return AddResult(scope=kwargs["scope"])

    jobs = IngestJobs(QuickMemory(), keep=2)  # type: ignore[arg-type]
    batch: list[tuple[str | None, list[dict[str, Any]]]] = [(None, [{"content": "x"}])]
    first = jobs.submit("alice", batch, extract=False)
    for _ in range(200):
        if first.state == "done":
            break
        time.sleep(0.01)
    later = [jobs.submit("alice", batch, extract=False) for _ in range(2)]
    jobs.close()
    assert jobs.get(first.job_id) is None
    assert all(jobs.get(j.job_id) is j for j in later)


def test_ask_answers_with_the_evidence_quoted_and_a_trace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: dict[str, Any] = {}

    def ask(question: str, **kwargs: Any) -> AgentResult:
        asked.update(kwargs, question=question)
        return AgentResult(
            question=question, answer="Sakura Sushi", mode="react", llm_calls=2, tool_calls=1,
            evidence=[EvidenceItem(turn_id="alice_turn_2", text="my new favourite: Sakura")],
            trace=[TraceStep(step=1, phase="react", tool="EntityLookup",
                             args={"query": "Alice"}, output_chars=420)],
        )  # fmt: skip

    with served(tmp_path) as (memory, server, _jobs):
        monkeypatch.setattr(memory, "lm", object())
        monkeypatch.setattr(memory, "ask", ask)
        args = {"question": "Favourite restaurant?", "date": "2024-04-01", "mode": "react"}
        result = run(server, lambda c: c.call_tool("Ask", args))
    answer = text(result)
    assert not result.is_error
    assert asked == {"question": "Favourite restaurant?", "scope": "alice", "at": "2024-04-01",
                     "mode": "react"}  # fmt: skip
    assert answer.startswith("## Answer\n\nSakura Sushi")
    assert '- `alice_turn_2`: "my new favourite: Sakura"' in answer
    assert "mode react · 2 LLM call(s) · 1 tool call(s)" in answer
    assert "1. react (0.0 s): EntityLookup(query='Alice') -> 420 chars" in answer


def test_an_agent_without_an_answer_is_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    failed = AgentResult(question="q", error="LM timed out")
    with served(tmp_path) as (memory, server, _jobs):
        monkeypatch.setattr(memory, "lm", object())
        monkeypatch.setattr(memory, "ask", lambda question, **kwargs: failed)
        result = run(server, lambda c: c.call_tool("Ask", {"question": "q"}))
    assert result.is_error and "the agent gave no answer: LM timed out" in text(result)


def test_an_unexpected_failure_is_an_error_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(scope: str, names: Any) -> Any:
        raise RuntimeError("disk on fire")

    with served(tmp_path) as (memory, server, _jobs):
        monkeypatch.setattr(memory, "tools", broken)
        result = run(server, lambda c: c.call_tool("SchemaViewer", {}))
    assert result.is_error and "RuntimeError: disk on fire" in text(result)


def test_forget_erases_a_session_that_ingest_stored(tmp_path: Path) -> None:
    async def scenario(client: Client) -> dict[str, str]:
        turns = [{**turn, "session": "lessons"} for turn in PIANO]
        queued = await client.call_tool("Ingest", {"turns": turns})
        await finished(client, job_id(queued))
        out = {"before": text(await client.call_tool("Search", {"query": "learning piano"}))}
        out["forget"] = text(await client.call_tool("Forget", {"session": "lessons"}))
        out["after"] = text(await client.call_tool("Search", {"query": "learning piano"}))
        sql = "SELECT count(*) AS n FROM turns"
        out["rows"] = text(await client.call_tool("GraphQuery", {"query": sql}))
        return out

    with served(tmp_path) as (_, server, _jobs):
        out = run(server, scenario)
    said = "I started learning piano."
    assert said in out["before"] and said not in out["after"]
    assert "Erased (sessions)" in out["forget"] and "2 turns" in out["forget"]
    assert "| 0 |" in out["rows"]
