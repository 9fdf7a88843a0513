"""Load on `apexmem serve`: N concurrent clients over HTTP against a SQLite and a Neo4j memory.

Each client runs a fixed mix of requests: add one message without extraction (an ingest
job), hybrid search, and the temporal reads (as_of, history, current) on facts seeded into
the scope beforehand. Per store and client count: p50 and p99 latency per kind of request,
throughput and errors (any answer that is not 2xx, or a transport error). At the end every
job must be done, and every message added must be stored exactly once: no turn lost or
duplicated.

The server is a real process (uvicorn), started with `--no-llm --no-auth` on loopback and
the packaged MiniLM embedder, and warmed by one untimed pass through the mix; the Neo4j run
uses its own scope and search namespace on the running server and deletes them afterwards.

    .venv/bin/python -m benchmarks.server.load [--clients 1 8 32] [--stores sqlite neo4j]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx

from benchmarks.graph.generate import Spec, generate
from benchmarks.memory import head_commit
from benchmarks.search import common

PUBLISHED = Path(__file__).resolve().parents[1] / "published" / "server_load.json"
KINDS = ("add", "search", "as_of", "history", "current")
MIX = ("add", "search", "as_of", "add", "history", "current", "as_of", "search")
"""One client's requests cycle through this mix: a quarter adds, a quarter searches, half
temporal reads."""
WORDS = ("Lisbon", "piano", "ramen", "teacher", "weekend", "garden", "train", "book")
START_S = 240.0
JOBS_S = 600.0
SEED_FACTS = 5000


@contextmanager
def served(env: dict[str, str], log: Path) -> Iterator[str]:
    """`apexmem serve --no-llm --no-auth` on a free loopback port; its base URL. Killed at
    the end."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    command = [sys.executable, "-m", "apexmem_neo.cli.serve", "--port", str(port),
               "--no-llm", "--no-auth"]  # fmt: skip
    with log.open("w") as sink:
        process = subprocess.Popen(command, env=env, stdout=sink, stderr=sink)
        base = f"http://127.0.0.1:{port}"
        try:
            _wait_up(base, process, log)
            yield base
        finally:
            process.kill()
            process.wait(30)


def _wait_up(base: str, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + START_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited: {log.read_text()[-2000:]}")
        try:
            if httpx.get(f"{base}/v1/openapi.json", timeout=5).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.3)
    raise RuntimeError(f"the server did not start in {START_S:.0f} s: {log.read_text()[-2000:]}")


def seed(store: str, scope: str, work: Path, neo4j_uri: str, index: str) -> list[tuple[str, str]]:
    """Write generated facts into ``scope`` (no LLM); the (entity, property) pairs they hold."""
    from apexmem_neo import Memory

    options: dict[str, Any] = {"lm": None, "search": None, "home": work}
    memory = (
        Memory.sqlite(work / "load.sqlite", **options)
        if store == "sqlite"
        else Memory.neo4j(neo4j_uri, index_name=index, **options)
    )
    pairs: set[tuple[str, str]] = set()
    names: dict[str, str] = {}
    with memory:
        for batch in generate(Spec(n_facts=SEED_FACTS, n_entities=100, n_properties=20,
                                   batch_facts=SEED_FACTS, scope=scope)):  # fmt: skip
            names.update({e.entity_id: e.name for e in batch.entities})
            pairs.update((names[f.entity_id], f.property) for f in batch.facts)
            memory.store.write(batch)
    return sorted(pairs)


class Client:
    """One simulated client: its own connection, its own session, a fixed request mix."""

    def __init__(
        self, http: httpx.AsyncClient, scope: str, number: int, pairs: list[tuple[str, str]]
    ) -> None:
        self.http, self.scope, self.number = http, scope, number
        self.pairs = pairs
        self.rng = random.Random(number)
        self.added: list[str] = []
        self.jobs: list[str] = []

    async def run(self, requests: int, level: int, timings: list[tuple[str, float, bool]]) -> None:
        for i in range(requests):
            kind = MIX[(i + self.number) % len(MIX)]
            started = time.perf_counter()
            try:
                answer = await self._request(kind, level, i)
                ok = answer.is_success
            except httpx.HTTPError:
                ok = False
            timings.append((kind, time.perf_counter() - started, ok))

    async def _request(self, kind: str, level: int, i: int) -> httpx.Response:
        base = f"/v1/scopes/{self.scope}"
        if kind == "add":
            text = f"client {self.number} at level {level} says message {i} about {self._word()}"
            body = {"messages": [{"name": f"user{self.number}", "content": text}],
                    "session": f"load-{self.number}", "extract": False}  # fmt: skip
            answer = await self.http.post(f"{base}/messages", json=body)
            if answer.is_success:
                self.added.append(text)
                self.jobs.append(answer.json()["job_id"])
            return answer
        if kind == "search":
            return await self.http.get(f"{base}/search", params={"q": self._word(), "k": 5})
        entity, prop = self.rng.choice(self.pairs)
        params = {"entity": entity, "property": prop}
        if kind == "as_of":
            params["at"] = f"{self.rng.randint(2015, 2024)}-06-01"
        return await self.http.get(f"{base}/{kind}", params=params)

    def _word(self) -> str:
        return self.rng.choice(WORDS)


async def run_level(
    base: str, scope: str, pairs: list[tuple[str, str]], clients: int, requests: int,
    first_number: int,
) -> tuple[dict[str, Any], list[Client]]:  # fmt: skip
    """``clients`` clients at once, ``requests`` each; the level's figures and its clients."""
    timings: list[tuple[str, float, bool]] = []
    limits = httpx.Limits(max_connections=clients + 4)
    async with httpx.AsyncClient(base_url=base, timeout=120, limits=limits) as http:
        crowd = [Client(http, scope, first_number + n, pairs) for n in range(clients)]
        started = time.perf_counter()
        await asyncio.gather(*(c.run(requests, clients, timings) for c in crowd))
        wall = time.perf_counter() - started
    return summarize(timings, wall), crowd


def summarize(timings: list[tuple[str, float, bool]], wall: float) -> dict[str, Any]:
    """p50/p99 in ms per kind and over all, requests per second, errors."""
    out: dict[str, Any] = {"requests": len(timings), "wall_s": round(wall, 2),
                           "throughput_rps": round(len(timings) / wall, 1),
                           "errors": sum(not ok for _, _, ok in timings)}  # fmt: skip
    for kind in ("all", *KINDS):
        chosen = [s for k, s, _ in timings if kind in ("all", k)]
        if chosen:
            out[kind] = {"n": len(chosen), "p50_ms": round(1000 * statistics.median(chosen), 1),
                         "p99_ms": round(1000 * _quantile(chosen, 0.99), 1)}  # fmt: skip
    return out


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def integrity(base: str, scope: str, crowd: list[Client]) -> dict[str, Any]:
    """Wait for every job, then count each added message among the scope's turns."""
    with httpx.Client(base_url=base, timeout=60) as http:
        deadline = time.monotonic() + JOBS_S
        states = Counter[str]()
        for job_id in [j for c in crowd for j in c.jobs]:
            while (state := http.get(f"/v1/jobs/{job_id}").json()["state"]) in (
                "queued", "running"
            ):  # fmt: skip
                if time.monotonic() > deadline:
                    raise RuntimeError(f"job {job_id} still {state} after {JOBS_S:.0f} s")
                time.sleep(0.2)
            states[state] += 1
        stored = Counter[str]()
        after: str | None = None
        while True:
            params: dict[str, Any] = {"limit": 500, **({"after": after} if after else {})}
            page = http.get(f"/v1/scopes/{scope}/turns", params=params).json()
            stored.update(t["text"] for t in page["items"])
            after = page.get("next")
            if not after:
                break
    added = Counter(text for c in crowd for text in c.added)
    return {
        "jobs": dict(states),
        "added": sum(added.values()),
        "lost": sum(1 for text in added if stored[text] == 0),
        "duplicated": sum(1 for text in added if stored[text] > 1),
        "turns_stored": sum(stored.values()),
    }


def run_store(store: str, args: argparse.Namespace) -> dict[str, Any]:
    work = Path(tempfile.mkdtemp(prefix=f"load_{store}_"))
    tag = uuid.uuid4().hex[:8]
    scope, index = f"load-{tag}", f"load{tag}"
    pairs = seed(store, scope, work, args.neo4j_uri, index)
    env = {**os.environ, "APEXMEM_HOME": str(work), "APEXMEM_STORE": store,
           "APEXMEM_DB": str(work / "load.sqlite"), "NEO4J_URI": args.neo4j_uri,
           "APEXMEM_INDEX_NAME": index, "APEXMEM_EMBED_MODEL": args.embedder,
           "LITELLM_LOCAL_MODEL_COST_MAP": "True"}  # fmt: skip
    levels: dict[str, Any] = {}
    crowd: list[Client] = []
    try:
        with served(env, work / "serve.log") as base:
            # untimed: one client through the whole mix once loads the embedder and warms
            # the store's caches, so the first level does not pay the server's start-up
            _, crowd = asyncio.run(run_level(base, scope, pairs, 1, len(MIX), 0))
            for clients in args.clients:
                figures, joined = asyncio.run(
                    run_level(base, scope, pairs, clients, args.requests, len(crowd))
                )
                crowd += joined
                levels[str(clients)] = figures
                print(store, clients, "clients:", json.dumps(figures), flush=True)
            checked = integrity(base, scope, crowd)
            print(store, "integrity:", json.dumps(checked), flush=True)
    finally:
        if store == "neo4j":
            _drop_neo4j(args.neo4j_uri, scope, index)
    return {"levels": levels, "integrity": checked, "seed_facts": SEED_FACTS}


def _drop_neo4j(uri: str, scope: str, index: str) -> None:
    from neo4j import GraphDatabase

    from apexmem_neo.search.backends.neo4j_native import Neo4jNativeIndex

    with GraphDatabase.driver(uri, auth=None) as driver:
        Neo4jNativeIndex(driver, namespace=index, url=uri).drop()
        driver.execute_query("MATCH (n) WHERE n.scope = $scope DETACH DELETE n", scope=scope)


def publish(result: dict[str, Any], saved: Path) -> None:
    """The headline file: per store and client count, p50/p99 over all requests, throughput
    and errors, and the integrity check."""
    commit = head_commit()
    figures: dict[str, Any] = {}
    for store, run in result["stores"].items():
        for clients, level in run["levels"].items():
            figures[f"{store}_{clients}"] = {
                "p50_ms": level["all"]["p50_ms"], "p99_ms": level["all"]["p99_ms"],
                "throughput_rps": level["throughput_rps"], "errors": level["errors"],
                "requests": level["requests"],
                **{f"{k}_p50_ms": level[k]["p50_ms"] for k in KINDS if k in level},
            }  # fmt: skip
        figures[f"{store}_integrity"] = run["integrity"]
    top = max(result["clients"])
    payload = {
        "order": 9,
        "name": "REST server under concurrent clients (add without extraction, search, "
        "temporal reads)",
        "command": ".venv/bin/python -m benchmarks.server.load --clients "
        f"{' '.join(map(str, result['clients']))} --requests {result['requests']} "
        f"(published with --from-results benchmarks/results/{saved.name})",
        "commit": commit,
        "date": datetime.now(UTC).strftime("%Y-%m-%d"),
        "embedder": result["embedder"],
        "tuned_on": "nothing: fixed request mix and server defaults",
        "evaluated_on": f"one `apexmem serve` process per store (uvicorn, --no-llm) on this "
        f"machine, shared with the clients; {SEED_FACTS} generated facts seeded per store; "
        f"clients {result['clients']}, {result['requests']} requests each",
        "figures": figures,
        "table": [
            {
                "result": f"REST server, {top} concurrent clients: p50 / p99, throughput",
                "figure": " ; ".join(
                    f"{store} {{{store}_{top}[p50_ms]:.0f}} / {{{store}_{top}[p99_ms]:.0f}} ms, "
                    f"{{{store}_{top}[throughput_rps]:.0f}} req/s, "
                    f"{{{store}_{top}[errors]}} errors, "
                    f"{{{store}_integrity[lost]}} lost / {{{store}_integrity[duplicated]}} "
                    "duplicated turns"
                    for store in result["stores"]
                ),
            }
        ],
        "notes": "Latencies are whole HTTP round trips measured by the clients, which share the "
        "machine's two cores with the server (and, for Neo4j, the database); an add is "
        "answered when its job is queued, and the integrity check waits for every job.",
    }
    PUBLISHED.write_text(json.dumps(payload, indent=1) + "\n")
    print("wrote", PUBLISHED)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--stores", nargs="+", default=["sqlite", "neo4j"],
                        choices=["sqlite", "neo4j"])  # fmt: skip
    parser.add_argument("--clients", nargs="+", type=int, default=[1, 8, 32])
    parser.add_argument("--requests", type=int, default=100, help="requests per client per level")
    parser.add_argument("--neo4j-uri", default="bolt://127.0.0.1:7687")
    parser.add_argument("--embedder", default="all-MiniLM-L6-v2")
    parser.add_argument("--publish", action="store_true")
    parser.add_argument("--from-results", type=Path, help="publish a saved run instead")
    args = parser.parse_args(argv)
    if args.from_results:
        publish(json.loads(args.from_results.read_text()), args.from_results)
        return 0
    result = {"clients": args.clients, "requests": args.requests, "embedder": args.embedder,
              "stores": {store: run_store(store, args) for store in args.stores}}  # fmt: skip
    saved = common.write_json("server_load.json", result)
    print("wrote", saved)
    if args.publish:
        publish(result, saved)
    bad = [s for s, r in result["stores"].items()
           if r["integrity"]["lost"] or r["integrity"]["duplicated"]]  # fmt: skip
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
