"""The MCP Turns tool's metadata argument, in process, on SQLite (no service, no LLM)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mcp import Client

from tests.unit.mcp.test_mcp_listing import call
from tests.unit.mcp.test_mcp_server import run, served

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
