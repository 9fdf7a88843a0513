"""Failures answer ``{"error": {"code", "message"}}`` with one line and the HTTP status of
their kind: 400 bad input, 404 unknown, 413 too large, 503 a service down, 500 a bug."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from apexmem_neo.errors import (
    LanguageModelUnreachableError,
    NoSearchIndexError,
    ServiceUnavailableError,
)
from tests.unit.server.conftest import MAX_BODY, Served

A = "/v1/scopes/alice"
PROP = {"entity": "alice", "property": "favourite_restaurant"}


def error(answer: Any, status: int, code: str) -> str:
    assert answer.status_code == status, answer.text
    body = answer.json()
    assert set(body) == {"error"} and body["error"]["code"] == code, body
    message: str = body["error"]["message"]
    assert message and "\n" not in message
    return message


def test_bad_input_is_400(served: Served) -> None:
    key = served.alice
    cursor = served.call("GET", f"{A}/turns", key, params={"after": "bm90IGEgY3Vyc29y"})
    assert "cursor" in error(cursor, 400, "bad_input")
    error(served.call("GET", f"{A}/turns", key, params={"limit": 0}), 400, "bad_input")
    error(served.call("GET", f"{A}/history", key, params={"entity": "x"}), 400, "bad_input")
    error(served.call("POST", f"{A}/messages", key, json={"messages": []}), 400, "bad_input")
    nul = {"messages": [{"name": "A", "content": "a\x00b"}], "extract": False}
    assert "NUL" in error(served.call("POST", f"{A}/messages", key, json=nul), 400, "bad_input")
    broken = served.client.post(
        f"{A}/query", content=b"{not json", headers={"Authorization": f"Bearer {key}"}
    )
    error(broken, 400, "bad_input")
    write = served.call("POST", f"{A}/query", key, json={"query": "DELETE FROM facts"})
    error(write, 400, "query_refused")
    mode = served.call("POST", f"{A}/ask", key, json={"question": "q", "mode": "slow"})
    error(mode, 400, "bad_input")


def test_unknown_things_are_404(served: Served) -> None:
    key = served.alice
    nobody = served.call("GET", f"{A}/entity", key, params={"name": "Zebulon"})
    assert "Zebulon" in error(nobody, 404, "unknown_entity")
    lost = served.call("GET", f"{A}/history", key, params={**PROP, "entity": "Zebulon"})
    error(lost, 404, "unknown_entity")
    session = served.call("GET", f"{A}/turns", key, params={"session": "nope"})
    error(session, 404, "unknown_session")
    forget = served.call("DELETE", f"{A}/sessions", key, params={"session": "nope"})
    error(forget, 404, "nothing_to_forget")
    error(served.call("GET", "/v1/jobs/nope", key), 404, "unknown_job")
    error(served.call("GET", "/v1/nowhere", key), 404, "not_found")


def test_a_body_over_the_limit_is_413(served: Served) -> None:
    big = {"messages": [{"name": "A", "content": "x" * MAX_BODY}], "extract": False}
    error(served.call("POST", f"{A}/messages", served.alice, json=big), 413, "too_large")

    def chunks() -> Iterator[bytes]:  # no Content-Length: the body is counted as it comes
        yield b'{"messages": [{"name": "A", "content": "'
        for _ in range(MAX_BODY // 1024 + 1):
            yield b"x" * 1024
        yield b'"}], "extract": false}'

    chunked = served.client.post(
        f"{A}/messages", content=chunks(), headers={"Authorization": f"Bearer {served.alice}"}
    )
    error(chunked, 413, "too_large")
    assert len(served.call("GET", f"{A}/turns", served.alice).json()["items"]) == 2


def test_a_missing_language_model_or_service_is_503(
    served: Served, monkeypatch: pytest.MonkeyPatch
) -> None:
    ask = served.call("POST", f"{A}/ask", served.alice, json={"question": "Where?"})
    error(ask, 503, "no_language_model")
    add = {"messages": [{"name": "A", "content": "hi"}]}  # extract defaults to true
    assert "extract" in error(
        served.call("POST", f"{A}/messages", served.alice, json=add), 503, "no_language_model"
    )

    def down(*args: Any, **kwargs: Any) -> Any:
        raise ServiceUnavailableError("neo4j", "bolt://127.0.0.1:7687", "connection refused")

    monkeypatch.setattr(served.memory, "history", down)
    answer = served.call("GET", f"{A}/history", served.alice, params=PROP)
    assert "neo4j is not reachable" in error(answer, 503, "service_unavailable")

    def no_llm(*args: Any, **kwargs: Any) -> Any:
        raise LanguageModelUnreachableError("m", "http://127.0.0.1:1", "refused", "start it")

    monkeypatch.setattr(served.memory, "ask", no_llm)
    error(served.call("POST", f"{A}/ask", served.alice, json={"question": "q"}), 503,
          "service_unavailable")  # fmt: skip

    def no_index(*args: Any, **kwargs: Any) -> Any:
        raise NoSearchIndexError("this memory has no search index")

    monkeypatch.setattr(served.memory, "search", no_index)
    found = served.call("GET", f"{A}/search", served.alice, params={"q": "x"})
    error(found, 503, "no_search_index")


def test_a_bug_is_500_without_its_message(served: Served, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("secret internals")

    monkeypatch.setattr(served.memory, "entities", broken)
    answer = served.call("GET", f"{A}/entities", served.alice)
    assert "secret" not in error(answer, 500, "internal")
