"""The MCP server over stdio, driven by the SDK's own client (needs only SQLite)."""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from tests.unit.agent.alice import alice_store

TOOLS = {"SchemaViewer", "EntityLookup", "GraphQuery", "Search", "Ingest"}


def _text(result: object) -> str:
    content = getattr(result, "content", [])
    return "\n".join(getattr(c, "text", "") for c in content)


async def _session(db: Path) -> dict[str, str]:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "apexmem_neo.mcp_server", "--db", str(db), "--no-llm"],
        env={"APEXMEM_HOME": str(db.parent / "home")},
    )
    out: dict[str, str] = {}
    async with Client(params) as client:
        listed = await client.list_tools()
        out["tools"] = ",".join(sorted(t.name for t in listed.tools))
        lookup = await client.call_tool("EntityLookup", {"query": "Alice", "k": 1})
        out["lookup"] = _text(lookup)
        sql = "SELECT COUNT(*) AS n FROM turns"
        out["count_before"] = _text(await client.call_tool("GraphQuery", {"query": sql}))
        turns = [
            {"speaker": "Alice", "text": "I started learning piano.", "anchor": "2024-04-02"},
            {"speaker": "Bob", "text": "Nice!", "anchor": "2024-04-02T10:01:00"},
        ]
        ingest = await client.call_tool("Ingest", {"turns": turns, "extract": False})
        out["ingest"] = _text(ingest)
        out["count_after"] = _text(await client.call_tool("GraphQuery", {"query": sql}))
        out["schema"] = _text(await client.call_tool("SchemaViewer", {}))
        bad = await client.call_tool("GraphQuery", {"query": "DELETE FROM turns"})
        out["bad"] = _text(bad)
    return out


@pytest.mark.timeout(120)
def test_stdio_server_serves_the_tools(tmp_path: Path) -> None:
    db = tmp_path / "alice.sqlite"
    alice_store(db).close()
    out = anyio.run(_session, db)
    assert set(out["tools"].split(",")) == TOOLS - {"Search"}  # no search index configured
    assert "Sakura Sushi" in out["lookup"] and "last_anchor" in out["lookup"]
    assert "| 2 |" in out["count_before"]
    assert out["ingest"].startswith("Stored 2 turn(s) without extraction")
    assert "| 4 |" in out["count_after"]
    assert out["schema"].startswith("# Memory schema (SQLite")
    assert out["bad"].startswith("## Error:")


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


async def _http_session(url: str) -> str:
    for _ in range(100):  # wait for the server to listen
        try:
            async with Client(url) as client:
                return _text(await client.call_tool("EntityLookup", {"query": "Alice"}))
        except Exception:
            await anyio.sleep(0.2)
    raise AssertionError(f"no MCP server at {url}")


@pytest.mark.timeout(120)
def test_streamable_http_server(tmp_path: Path) -> None:
    import os
    import subprocess

    db = tmp_path / "alice.sqlite"
    alice_store(db).close()
    port = _free_port()
    cmd = [sys.executable, "-m", "apexmem_neo.mcp_server", "--db", str(db), "--no-llm",
           "--http", "--port", str(port)]  # fmt: skip
    env = {**os.environ, "APEXMEM_HOME": str(tmp_path / "home")}
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        text = anyio.run(_http_session, f"http://127.0.0.1:{port}/mcp")
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    assert "Sakura Sushi" in text


async def _search_session(db: Path) -> dict[str, str]:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "apexmem_neo.mcp_server", "--db", str(db), "--no-llm"],
        env={"APEXMEM_HOME": str(db.parent / "home"), "HF_HUB_OFFLINE": "1"},
    )
    out: dict[str, str] = {}
    async with Client(params) as client:
        out["tools"] = ",".join(sorted(t.name for t in (await client.list_tools()).tools))
        out["search"] = _text(await client.call_tool("Search", {"query": "Sakura Sushi"}))
        turns = [{"speaker": "Alice", "text": "I started learning piano.", "anchor": "2024-04-02"}]
        out["ingest"] = _text(await client.call_tool("Ingest", {"turns": turns, "extract": False}))
        out["piano"] = _text(await client.call_tool("Search", {"query": "learning piano"}))
    return out


@pytest.mark.timeout(1800)  # loads the embedding model twice (test and server)
def test_stdio_server_searches_the_index_and_refreshes_it(tmp_path: Path) -> None:
    from apexmem_neo.cli.search_index import build_index
    from apexmem_neo.settings import Settings

    db = tmp_path / "alice.sqlite"
    alice_store(db).close()
    settings = Settings(APEXMEM_HOME=tmp_path / "home")
    assert build_index("sqlite", db, settings) == 6
    out = anyio.run(_search_session, db)
    assert set(out["tools"].split(",")) == TOOLS
    assert "alice_turn_2" in out["search"] and "## Turns" in out["search"]
    assert "Search index refreshed (7 documents)" in out["ingest"], out["ingest"]
    turns = out["piano"].split("## Turns")[1]
    assert "I started learning piano." in turns.split("\n- ")[1], out["piano"]
