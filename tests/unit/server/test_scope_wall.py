"""A key opens only its own scopes: every route of the app, called with Bob's key on Alice's
scope (or Alice's job), is refused, and no answer holds any of Alice's data.

The routes come from ``app.routes``, so a route added later is called too; one this test does
not know how to call fails it until it is added here.
"""

from __future__ import annotations

from typing import Any

from starlette.routing import Route

from apexmem_neo.server.app import PUBLIC_PATHS
from apexmem_neo.server.ui import UI_PATHS
from tests.unit.server.conftest import Served
from tests.unit.server.test_routes import wait_job

ALICE_DATA = ("Italian Garden", "Sakura", "alice_turn", "alice_ent", "alice_fact", "alice_ses")
QUERY = {"entity": "alice", "property": "favourite_restaurant", "at": "2024-02-01",
         "q": "restaurant", "name": "Alice", "session": "default"}  # fmt: skip
BODIES: dict[tuple[str, str], dict[str, Any]] = {
    ("POST", "/v1/scopes/{scope:path}/messages"): {
        "messages": [{"name": "Bob", "content": "I write into Alice's memory."}],
        "extract": False,
    },
    ("POST", "/v1/scopes/{scope:path}/ask"): {"question": "What is Alice's favourite?"},
    ("POST", "/v1/scopes/{scope:path}/query"): {"query": "SELECT * FROM facts"},
    ("POST", "/v1/keys"): {"scopes": ["alice"]},
}


def every_route(served: Served) -> list[tuple[str, str]]:
    """(method, path) of every route the app serves (HEAD is GET's twin)."""
    routes = [r for r in served.app.routes if isinstance(r, Route)]
    assert len(routes) == len(served.app.routes), "a route of another kind: test it here"
    return [(m, r.path) for r in routes for m in sorted(r.methods or ()) if m != "HEAD"]


def expected(method: str, path: str) -> int:
    """What Bob's key gets: 403 on Alice's scope and on the admin routes, 404 for her job."""
    if path.startswith("/v1/scopes/{scope:path}") or path.startswith("/v1/keys"):
        return 403
    if path == "/v1/jobs/{job_id}":
        return 404
    raise AssertionError(f"the scope wall test does not know {method} {path}: add it")


def url(path: str, job_id: str, key_id: str) -> str:
    return (
        path.replace("{scope:path}", "alice")
        .replace("{job_id}", job_id)
        .replace("{key_id}", key_id)
    )


def test_every_route_refuses_another_scopes_key(served: Served) -> None:
    job = served.call("POST", "/v1/scopes/alice/messages", served.alice,
                      json=BODIES[("POST", "/v1/scopes/{scope:path}/messages")]).json()  # fmt: skip
    wait_job(served, job["job_id"], served.alice)
    alice_key_id = served.keys.list()[0].key_id
    called = 0
    for method, path in every_route(served):
        if path in PUBLIC_PATHS or path in UI_PATHS:  # the page: tests/unit/server/test_ui.py
            continue
        if path == "/v1/scopes":
            listed = served.call(method, path, served.bob)
            assert listed.json() == {"scopes": ["bob"]}
            called += 1
            continue
        answer = served.call(
            method, url(path, job["job_id"], alice_key_id), served.bob,
            params=QUERY, json=BODIES.get((method, path)),
        )  # fmt: skip
        assert answer.status_code == expected(method, path), (method, path, answer.text)
        assert set(answer.json()) == {"error"}
        assert not [d for d in ALICE_DATA if d in answer.text], (method, path, answer.text)
        called += 1
    skipped = PUBLIC_PATHS | UI_PATHS
    assert called == len([r for r in every_route(served) if r[1] not in skipped]) > 15
    assert served.keys.list()[0].revoked_at is None  # Bob could not revoke Alice's key
    alice_turns = served.call("GET", "/v1/scopes/alice/turns", served.alice).json()["items"]
    assert "I write into Alice's memory." in [t["text"] for t in alice_turns]  # hers, once
    assert len(alice_turns) == 3


def test_the_public_routes_hold_no_memory_data(served: Served) -> None:
    for path in PUBLIC_PATHS:
        answer = served.client.get(path)
        assert answer.status_code == 200
        assert not [d for d in ALICE_DATA if d in answer.text]
