"""One real round trip per service, used by `apexmem doctor` to prove each one works."""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass

import httpx
from neo4j import GraphDatabase

from apexmem_neo.errors import ApexMemError


@dataclass(frozen=True)
class RoundTrip:
    service: str
    ok: bool
    detail: str
    seconds: float


def _timed(service: str, action: str, probe: object) -> RoundTrip:
    began = time.monotonic()
    try:
        detail = probe() if callable(probe) else ""
        ok = True
    except Exception as exc:  # reported, not raised: doctor shows every service's outcome
        detail, ok = f"{action} failed: {type(exc).__name__}: {exc}", False
    return RoundTrip(service, ok, str(detail), time.monotonic() - began)


def neo4j_round_trip(uri: str) -> RoundTrip:
    """Write a node, read it back, delete it."""

    def probe() -> str:
        marker = uuid.uuid4().hex
        with GraphDatabase.driver(uri, auth=None) as driver:
            driver.execute_query("CREATE (:ApexmemDoctor {marker: $m})", m=marker)
            records, _, _ = driver.execute_query(
                "MATCH (n:ApexmemDoctor {marker: $m}) RETURN n.marker AS m", m=marker
            )
            driver.execute_query("MATCH (n:ApexmemDoctor {marker: $m}) DELETE n", m=marker)
        if [r["m"] for r in records] != [marker]:
            raise RuntimeError(f"read back {records!r}")
        return "node written and read back"

    return _timed("neo4j", "write/read", probe)


def elasticsearch_round_trip(url: str) -> RoundTrip:
    """Index a document, find it with a match query, delete the index."""

    def probe() -> str:
        try:  # the client comes with the [es] extra, loaded only when Elasticsearch is probed
            from elasticsearch import Elasticsearch
        except ImportError as exc:
            raise ApexMemError(
                "the Elasticsearch client needs the [es] extra: pip install 'apexmem-neo[es]'"
            ) from exc
        index = f"apexmem-doctor-{uuid.uuid4().hex[:8]}"
        with Elasticsearch(url, request_timeout=30) as client:
            client.index(index=index, id="1", document={"text": "append only memory"}, refresh=True)
            hits = client.search(index=index, query={"match": {"text": "memory"}})["hits"]["hits"]
            client.indices.delete(index=index)
        if [h["_id"] for h in hits] != ["1"]:
            raise RuntimeError(f"search returned {hits!r}")
        return "document indexed and found"

    return _timed("es", "index/search", probe)


def llm_round_trip(api_base: str, model: str) -> RoundTrip:
    """One short chat completion through the OpenAI-compatible API."""

    def probe() -> str:
        body = {
            "model": model,
            "messages": [{"role": "user", "content": "Reply with the single word: ready"}],
            "max_tokens": 8,
            "temperature": 0,
        }
        response = httpx.post(f"{api_base.rstrip('/')}/chat/completions", json=body, timeout=120)
        response.raise_for_status()
        data = response.json()
        text = data["choices"][0]["message"]["content"].strip()
        tokens = data.get("usage", {}).get("completion_tokens", "?")
        return f"completion {text!r} ({tokens} tokens)"

    return _timed("llm", "completion", probe)
