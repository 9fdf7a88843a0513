"""The MCP listing tools (Scopes, Sessions, Turns, Entities, Facts) in process, on SQLite."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mcp import Client

from tests.unit.agent.alice import ALICE, alice_batch
from tests.unit.mcp.test_mcp_server import run, served, text


def call(client: Client, name: str, **args: Any) -> Any:
    async def go() -> Any:
        result = await client.call_tool(name, args)
        return result.is_error, text(result)

    return go()


def test_listings_page_and_stay_in_their_scope(tmp_path: Path) -> None:
    with served(tmp_path) as (memory, server, _jobs):
        memory.store.write(alice_batch(scope="alice"))

        async def scenario(client: Client) -> list[Any]:
            return [
                await call(client, "Scopes"),
                await call(client, "Turns", limit=1),
                await call(client, "Entities"),
                await call(client, "Sessions"),
                await call(client, "Facts", entity="Alice", property="favorite restaurant"),
                await call(client, "Turns", scope="bob"),
            ]

        answers = run(server, scenario)
    assert all(not is_error for is_error, _ in answers)
    scopes, turns, entities, sessions, facts, empty = (json.loads(a) for _, a in answers)
    assert scopes == {"scopes": ["alice"]}
    assert len(turns["items"]) == 1 and turns["next"] is not None
    assert [e["entity_id"] for e in entities["items"]] == [ALICE]
    assert len(sessions["items"]) == 1
    assert [f["value"] for f in facts["items"]] == ["Italian Garden", "Sakura Sushi"]
    assert empty["items"] == [] and empty["hint"] == "scope 'bob' holds nothing; scopes: alice"


def test_the_next_cursor_reads_on_and_a_bad_one_is_an_error(tmp_path: Path) -> None:
    with served(tmp_path) as (memory, server, _jobs):
        memory.store.write(alice_batch(scope="alice"))

        async def scenario(client: Client) -> list[Any]:
            first = json.loads((await call(client, "Turns", limit=1))[1])
            return [
                first,
                await call(client, "Turns", after=first["next"]),
                await call(client, "Turns", after="junk"),
                await call(client, "Turns", session="nope"),
            ]

        first, second, junk, nope = run(server, scenario)
    rest = json.loads(second[1])
    assert len(rest["items"]) == 1 and rest["next"] is None
    assert rest["items"][0]["turn_id"] != first["items"][0]["turn_id"]
    assert junk[0] and "page cursor 'junk' is not valid" in junk[1]
    assert nope[0] and "no session 'nope' in scope 'alice'" in nope[1]
