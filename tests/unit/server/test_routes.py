"""Each route answers what its ``Memory`` method answers, as JSON, over the route's scope."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from apexmem_neo.agent.models import AgentResult, EvidenceItem
from tests.unit.server.conftest import Served

A = "/v1/scopes/alice"
PROP = {"entity": "alice", "property": "favorite restaurant"}


def wait_job(served: Served, job_id: str, key: str) -> dict[str, Any]:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        job: dict[str, Any] = served.call("GET", f"/v1/jobs/{job_id}", key).json()
        if job["state"] in ("done", "failed"):
            return job
        time.sleep(0.05)
    raise AssertionError(f"job {job_id} did not finish")


def test_temporal_reads(served: Served) -> None:
    history = served.call("GET", f"{A}/history", served.alice, params=PROP).json()
    assert [f["value"] for f in history["facts"]] == ["Italian Garden", "Sakura Sushi"]
    assert history["property"] == "favourite_restaurant"
    then = served.call("GET", f"{A}/as_of", served.alice, params={**PROP, "at": "2024-02-01"})
    assert then.json()["fact"]["value"] == "Italian Garden"
    now = served.call("GET", f"{A}/current", served.alice, params=PROP).json()
    assert now["fact"]["value"] == "Sakura Sushi"
    before = served.call("GET", f"{A}/as_of", served.alice, params={**PROP, "at": "2020-01-01"})
    assert before.json() == {"fact": None}
    entity = served.call("GET", f"{A}/entity", served.alice, params={"name": "Alicee"}).json()
    assert entity["entity_id"] == "alice_ent"


def test_listings_page_with_cursors(served: Served) -> None:
    first = served.call("GET", f"{A}/turns", served.alice, params={"limit": 1}).json()
    assert len(first["items"]) == 1 and first["next"]
    second = served.call(
        "GET", f"{A}/turns", served.alice, params={"limit": 1, "after": first["next"]}
    ).json()
    assert [t["turn_id"] for t in first["items"] + second["items"]] == [
        "alice_turn_1",
        "alice_turn_2",
    ]
    for kind in ("sessions", "entities", "facts"):
        page = served.call("GET", f"{A}/{kind}", served.alice).json()
        assert page["items"] and page["scope"] == "alice"
    facts = served.call("GET", f"{A}/facts", served.alice, params=PROP).json()
    assert len(facts["items"]) == 2
    assert served.call("GET", "/v1/scopes", served.alice).json() == {"scopes": ["alice"]}


def test_search_and_query(served: Served) -> None:
    found = served.call("GET", f"{A}/search", served.alice, params={"q": "sushi"}).json()
    assert any("Sakura" in hit["text"] for hit in found["turns"])
    body = {"query": "SELECT value_json FROM facts ORDER BY t_from", "limit": 5}
    rows = served.call("POST", f"{A}/query", served.alice, json=body).json()
    assert rows["columns"] == ["value_json"]
    assert [json.loads(r[0]) for r in rows["rows"]] == ["Italian Garden", "Sakura Sushi"]


def test_add_messages_runs_a_job_that_reads_then_see(served: Served) -> None:
    body = {
        "messages": [
            {"name": "Alice", "content": "I started learning piano.",
             "timestamp": "2024-04-02T10:00:00"},
            {"name": "Bob", "content": "Which teacher?", "session": "lessons"},
        ],
        "session": "chat",
        "extract": False,
    }  # fmt: skip
    queued = served.call("POST", f"{A}/messages", served.alice, json=body)
    assert queued.status_code == 202, queued.text
    accepted = queued.json()
    assert accepted["turns"] == 2 and accepted["status_url"].endswith(accepted["job_id"])
    job = wait_job(served, accepted["job_id"], served.alice)
    assert job["state"] == "done", job
    assert [t["status"] for t in job["summary"]["turns"]] == ["stored", "stored"]
    turns = served.call("GET", f"{A}/turns", served.alice, params={"session": "lessons"}).json()
    assert [t["text"] for t in turns["items"]] == ["Which teacher?"]


def test_forget_a_session(served: Served) -> None:
    body = {"messages": [{"name": "Alice", "content": "Secret."}], "session": "tmp",
            "extract": False}  # fmt: skip
    job_id = served.call("POST", f"{A}/messages", served.alice, json=body).json()["job_id"]
    assert wait_job(served, job_id, served.alice)["state"] == "done"
    erased = served.call("DELETE", f"{A}/sessions", served.alice, params={"session": "tmp"})
    assert erased.status_code == 200, erased.text
    assert erased.json()["erasure"]["counts"]["turns"] == 1
    left = served.call("GET", f"{A}/turns", served.alice).json()
    assert "Secret." not in [t["text"] for t in left["items"]]


def test_export_streams_json_lines(served: Served) -> None:
    with served.client.stream(
        "GET", f"{A}/export", headers={"Authorization": f"Bearer {served.alice}"}
    ) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("application/x-ndjson")
        lines = [json.loads(line) for line in response.iter_lines() if line]
    assert lines[0]["scope"] == "alice"
    assert "Italian Garden" in json.dumps(lines)
    assert "bob_" not in json.dumps(lines)  # every id of scope bob starts with it


def test_ask_answers_with_the_agent_result(served: Served, monkeypatch: pytest.MonkeyPatch) -> None:
    """The HTTP plumbing of ask, with the agent replaced (no LLM in unit tests)."""
    asked: dict[str, Any] = {}

    def ask(question: str, **kwargs: Any) -> AgentResult:
        asked.update(kwargs, question=question)
        return AgentResult(question=question, answer="Sakura Sushi",
                           evidence=[EvidenceItem(turn_id="alice_turn_2")])  # fmt: skip

    monkeypatch.setattr(served.memory, "ask", ask)
    body = {"question": "Favourite restaurant now?", "mode": "fast", "at": "2024-05-01"}
    answer = served.call("POST", f"{A}/ask", served.alice, json=body)
    assert answer.status_code == 200, answer.text
    assert answer.json()["answer"] == "Sakura Sushi"
    assert asked["scope"] == "alice" and asked["mode"] == "fast" and asked["at"] == "2024-05-01"


def test_openapi_schema_is_versioned_and_public(served: Served) -> None:
    schema = served.client.get("/v1/openapi.json").json()
    assert "/v1/scopes/{scope}/history" in schema["paths"]
    assert "/v1/jobs/{job_id}" in schema["paths"]


def test_the_schema_documents_the_errors_the_routes_answer(served: Served) -> None:
    schema = served.client.get("/v1/openapi.json").json()
    history = schema["paths"]["/v1/scopes/{scope}/history"]["get"]
    assert set(history["responses"]) == {"200", "400", "401", "403", "404", "413", "503"}
    assert history["security"] == [{"HTTPBearer": []}]


def test_a_scope_with_slashes_and_search_kinds(served: Served) -> None:
    key = served.keys.create(["team/alice", "alice"]).key
    body = {"messages": [{"name": "Al", "content": "We ship on Friday."}], "extract": False}
    queued = served.call("POST", "/v1/scopes/team/alice/messages", key, json=body).json()
    assert wait_job(served, queued["job_id"], key)["state"] == "done"
    for path in ("/v1/scopes/team/alice/turns", "/v1/scopes/team%2Falice/turns"):
        page = served.call("GET", path, key).json()
        assert page["scope"] == "team/alice" and len(page["items"]) == 1
    assert served.call("GET", "/v1/scopes", key).json() == {"scopes": ["alice", "team/alice"]}
    found = served.call(
        "GET", f"{A}/search", key, params={"q": "sushi restaurant", "kinds": ["turn"]}
    ).json()
    assert found["turns"] and not (found["entities"] or found["properties"] or found["events"])


def test_messages_carry_metadata_and_turns_and_search_filter_on_it(served: Served) -> None:
    body = {
        "messages": [
            {"name": "Alice", "content": "Booked a table at Sakura Sushi.",
             "timestamp": "2024-04-02T10:00:00", "metadata": {"channel": "web", "ticket": 4127}},
            {"name": "Alice", "content": "Booked a table by phone.",
             "metadata": {"channel": "app"}},
        ],
        "extract": False,
    }  # fmt: skip
    queued = served.call("POST", f"{A}/messages", served.alice, json=body).json()
    assert wait_job(served, queued["job_id"], served.alice)["state"] == "done"
    web = {"metadata": ["channel=web"]}
    turns = served.call("GET", f"{A}/turns", served.alice, params=web).json()
    assert [(t["text"], t["metadata"]) for t in turns["items"]] == [
        ("Booked a table at Sakura Sushi.", {"channel": "web", "ticket": 4127})
    ]
    ticket = {"q": "table booking", "metadata": ["ticket=4127"]}
    found = served.call("GET", f"{A}/search", served.alice, params=ticket).json()
    assert [hit["text"] for hit in found["turns"]] == ["Alice: Booked a table at Sakura Sushi."]
    bad = served.call("GET", f"{A}/turns", served.alice, params={"metadata": ["channel"]})
    assert bad.status_code == 400 and "key=value" in bad.text
    nested = {"messages": [{"content": "x", "metadata": {"tags": ["a"]}}], "extract": False}
    refused = served.call("POST", f"{A}/messages", served.alice, json=nested)
    assert refused.status_code in (400, 422) and "metadata" in refused.text
