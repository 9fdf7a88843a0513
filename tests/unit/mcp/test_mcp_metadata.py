"""Metadata through MCP, in process, on SQLite (no service, no LLM): the Turns tool's
filter, and turns remembered with metadata by Ingest."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mcp import Client

from tests.unit.mcp.test_mcp_listing import call
from tests.unit.mcp.test_mcp_server import finished, job_id, run, served

CHAT: list[Any] = [
    {"role": "user", "content": "From the web", "metadata": {"channel": "web", "n": 1}},
    {"role": "user", "content": "From the app", "metadata": {"channel": "app", "n": True}},
]


def test_turns_filter_on_metadata(tmp_path: Path) -> None:
    with served(tmp_path) as (memory, server, _jobs):
        memory.add(CHAT, scope="alice", at="2024-05-01", extract=False)

        async def scenario(client: Client) -> list[Any]:
            return [
                await call(client, "Turns", metadata={"channel": "web"}),
                await call(client, "Turns", metadata={"n": True}),
                await call(client, "Turns", metadata={"n": [1]}),
            ]

        (ok_web, web), (ok_app, app), (bad, problem) = run(server, scenario)
    assert not ok_web and not ok_app and bad
    assert [t["text"] for t in json.loads(web)["items"]] == ["From the web"]
    assert [t["metadata"] for t in json.loads(app)["items"]] == [{"channel": "app", "n": True}]
    assert "metadata" in problem


def test_ingest_keeps_each_turns_metadata_and_refuses_a_bad_one(tmp_path: Path) -> None:
    turns = [
        {"speaker": "Alice", "text": "Sent by mail", "anchor": "2024-05-01T10:00:00",
         "metadata": {"source": "email"}},
        {"speaker": "Alice", "text": "Said in chat"},
    ]  # fmt: skip
    bad = [{"speaker": "Alice", "text": "x", "metadata": {"source": ["a", "b"]}}]

    async def scenario(client: Client) -> list[Any]:
        queued = await client.call_tool("Ingest", {"turns": turns, "extract": False})
        status = await finished(client, job_id(queued))
        found = await call(client, "Turns", metadata={"source": "email"})
        return [status, found, await call(client, "Ingest", turns=bad, extract=False)]

    with served(tmp_path) as (_memory, server, _jobs):
        status, (failed, found), (refused, problem) = run(server, scenario)
    assert status.split("\n")[0].endswith(": done"), status
    assert not failed and [t["text"] for t in json.loads(found)["items"]] == ["Sent by mail"]
    assert json.loads(found)["items"][0]["metadata"] == {"source": "email"}
    assert refused and "metadata" in problem
