"""`apexmem mcp` as a subprocess, driven by the official SDK's client over stdio and over
streamable HTTP (needs only SQLite and the packaged all-MiniLM-L6-v2 embedder; no LM).

The server runs as ``python -m apexmem_neo.cli.mcp`` so these tests do not depend on the
CLI's root app. Start-up time (spawn to initialized) is printed, not asserted: speed targets
are checked by benchmarks.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import anyio
import pytest
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.types import CallToolResult
from mcp_types.version import LATEST_HANDSHAKE_VERSION

from apexmem_neo import Memory
from apexmem_neo.tools.result import ERROR_HEADING
from tests.unit.agent.alice import alice_store

TOOLS = {"SchemaViewer", "EntityLookup", "GraphQuery", "Search", "Timeline", "Ask", "Ingest",
         "IngestStatus", "Forget", "Scopes", "Sessions", "Turns", "Entities", "Facts"}  # fmt: skip
EMBEDDER = "all-MiniLM-L6-v2"
PIANO = [
    {"speaker": "Alice", "text": "I started learning piano.", "anchor": "2024-04-02"},
    {"speaker": "Bob", "text": "Nice!", "anchor": "2024-04-02T10:01:00"},
]
COUNT = "SELECT COUNT(*) AS n FROM turns"
WAIT_S = 300.0  # the server's first search loads the embedding model


def _env(home: Path) -> dict[str, str]:
    return {
        "APEXMEM_HOME": str(home),
        "APEXMEM_EMBED_MODEL": EMBEDDER,
        "HF_HUB_OFFLINE": "1",
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    }


def _server_args(db: Path, *more: str) -> list[str]:
    return ["-m", "apexmem_neo.cli.mcp", "--db", str(db), "--no-llm", "--scope", "alice", *more]


@pytest.fixture(scope="module")
def indexed_alice(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The Alice case in a SQLite store, indexed for search with the packaged embedder."""
    folder = tmp_path_factory.mktemp("alice")
    db = folder / "m.sqlite"
    alice_store(db, scope="alice").close()  # the scope the server serves
    with Memory.sqlite(db, embedder=EMBEDDER, lm=None, home=folder / "home") as memory:
        assert memory.index() == 6
    return db


@pytest.fixture
def db(indexed_alice: Path, tmp_path: Path) -> Path:
    """A copy of the indexed Alice store (and its search index) for one test."""
    for file in indexed_alice.parent.glob(f"{indexed_alice.name.split('.')[0]}.*"):
        shutil.copy(file, tmp_path / file.name)
    return tmp_path / indexed_alice.name


def _text(result: CallToolResult) -> str:
    return "\n".join(getattr(c, "text", "") for c in result.content)


async def _finished(session: ClientSession, job_id: str) -> str:
    with anyio.fail_after(WAIT_S):
        while True:
            status = _text(await session.call_tool("IngestStatus", {"job_id": job_id}))
            if status.split("\n")[0].endswith(("done", "failed")):
                return status
            await anyio.sleep(0.1)


async def _scenario(session: ClientSession) -> dict[str, CallToolResult | str]:
    """The tour both transports take: list, read, ingest, poll, search, refuse, ask."""
    out: dict[str, CallToolResult | str] = {}
    out["tools"] = ",".join(sorted(t.name for t in (await session.list_tools()).tools))
    out["lookup"] = await session.call_tool("EntityLookup", {"query": "Alice", "k": 1})
    out["count_before"] = await session.call_tool("GraphQuery", {"query": COUNT})
    queued = await session.call_tool("Ingest", {"turns": PIANO, "extract": False})
    out["queued"] = queued
    out["status"] = await _finished(session, _text(queued).split("`")[1])
    out["count_after"] = await session.call_tool("GraphQuery", {"query": COUNT})
    sql = "SELECT speaker, text FROM turns WHERE text LIKE '%piano%'"
    out["piano_row"] = await session.call_tool("GraphQuery", {"query": sql})
    out["search_old"] = await session.call_tool("Search", {"query": "Sakura Sushi"})
    out["search_new"] = await session.call_tool("Search", {"query": "learning piano"})
    out["schema"] = await session.call_tool("SchemaViewer", {})
    out["refused"] = await session.call_tool("GraphQuery", {"query": "DELETE FROM turns"})
    timeline = {"entity": "Nobody", "property": "lives_in"}
    out["timeline"] = await session.call_tool("Timeline", timeline)
    out["nobody"] = await session.call_tool("EntityLookup", {"query": "Nobody"})
    out["ask"] = await session.call_tool("Ask", {"question": "Where does Alice eat?"})
    return out


def _check_tour(out: dict[str, CallToolResult | str]) -> None:
    results = {k: v for k, v in out.items() if isinstance(v, CallToolResult)}
    texts = {k: _text(v) for k, v in results.items()}
    errors = {k for k, v in results.items() if v.is_error}
    assert errors == {"refused", "ask"}, {k: texts[k] for k in errors}
    assert set(str(out["tools"]).split(",")) == TOOLS
    assert "Sakura Sushi" in texts["lookup"] and "last_anchor" in texts["lookup"]
    assert "| 2 |" in texts["count_before"] and "| 4 |" in texts["count_after"]
    assert texts["queued"].startswith("# Ingest job `")
    status = str(out["status"])
    assert status.split("\n")[0].endswith(": done") and "(2 stored)" in status, status
    assert "· 2 search document(s) indexed" in status, status  # the index follows the job
    assert "| Alice | I started learning piano. |" in texts["piano_row"]
    assert "alice_turn_2" in texts["search_old"] and "## Turns" in texts["search_old"]
    first_turn = texts["search_new"].split("## Turns")[1].split("\n- ")[1]
    assert "I started learning piano." in first_turn, texts["search_new"]
    assert texts["schema"].startswith("# Memory schema (SQLite")
    assert f"{ERROR_HEADING} Not a SELECT" in texts["refused"]
    # a name of no entity is an answer naming the known ones, never Alice's facts
    for name in ("timeline", "nobody"):
        assert texts[name].startswith("No entity matches 'Nobody'; nearest known names: Alice")
        assert "Sakura Sushi" not in texts[name]
    assert "no language model is configured" in texts["ask"]


async def _stdio_tour(db: Path) -> dict[str, CallToolResult | str]:
    params = StdioServerParameters(
        command=sys.executable, args=_server_args(db), env=_env(db.parent / "home")
    )
    t0 = time.perf_counter()
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        print(f"\nstdio server: spawn to initialized in {time.perf_counter() - t0:.2f} s")
        return await _scenario(session)


@pytest.mark.timeout(900)
def test_stdio_server_serves_the_tools(db: Path) -> None:
    _check_tour(anyio.run(_stdio_tour, db))


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@pytest.fixture
def http_url(db: Path, tmp_path: Path) -> Iterator[str]:
    """`apexmem mcp --http` on a free port, listening; stopped (SIGTERM) after the test."""
    port = _free_port()
    env = {**os.environ, **_env(tmp_path / "home")}
    log = (tmp_path / "server.log").open("wb")
    cmd = [sys.executable, *_server_args(db, "--http", "--port", str(port))]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        _wait_listening(port, proc, tmp_path / "server.log")
        print(f"\nHTTP server: spawn to listening in {time.perf_counter() - t0:.2f} s")
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        log.close()


def _wait_listening(port: int, proc: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"the server exited: {log.read_text(errors='replace')}")
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise AssertionError(f"no MCP server on port {port}")


async def _http_tour(url: str) -> dict[str, CallToolResult | str]:
    async with streamable_http_client(url) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        return await _scenario(session)


@pytest.mark.timeout(900)
def test_streamable_http_server_serves_the_tools(http_url: str) -> None:
    _check_tour(anyio.run(_http_tour, http_url))


def _request(method: str, params: dict[str, Any], rid: int | None = None) -> bytes:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params}
    if rid is not None:
        message["id"] = rid
    return (json.dumps(message) + "\n").encode()


def _read_until(stdout: IO[bytes], rid: int) -> list[bytes]:
    """Lines from stdout up to the response ``rid``; a line that is not JSON fails the test."""
    lines: list[bytes] = []
    while True:
        line = stdout.readline()
        if not line:
            raise AssertionError(f"stdout closed before response {rid}: {lines}")
        lines.append(line)
        if json.loads(line).get("id") == rid:
            return lines


@pytest.mark.timeout(900)
def test_stdout_carries_nothing_but_the_protocol(db: Path) -> None:
    """Raw JSON-RPC over the pipes through a call that loads the embedding model: every line
    on stdout is a JSON-RPC message."""
    env = {**os.environ, **_env(db.parent / "home")}
    hello = {"protocolVersion": LATEST_HANDSHAKE_VERSION, "capabilities": {},
             "clientInfo": {"name": "test", "version": "0"}}  # fmt: skip
    proc = subprocess.Popen(
        [sys.executable, *_server_args(db)], env=env, stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    assert proc.stdin is not None and proc.stdout is not None
    try:
        proc.stdin.write(_request("initialize", hello, 1))
        proc.stdin.flush()
        lines = _read_until(proc.stdout, 1)
        proc.stdin.write(_request("notifications/initialized", {}))
        call = {"name": "Search", "arguments": {"query": "Sakura Sushi"}}
        proc.stdin.write(_request("tools/call", call, 2))
        proc.stdin.flush()
        lines += _read_until(proc.stdout, 2)
    finally:
        proc.stdin.close()
        rest = proc.stdout.read().splitlines()
        proc.wait(timeout=30)
    messages = [json.loads(line) for line in [*lines, *rest] if line.strip()]
    assert all(m.get("jsonrpc") == "2.0" for m in messages), messages
    answer = next(m for m in messages if m.get("id") == 2)
    assert not answer["result"].get("isError") and "alice_turn_2" in json.dumps(answer)
