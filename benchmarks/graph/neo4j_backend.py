"""The Neo4j side of the graph benchmark: a fresh store per size and EXPLAIN plan checks.

Benchmark code, not library code: ``fresh_store`` empties the store's labels first so each
size starts from an empty graph (in batched transactions, to stay inside a 1 GB heap).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Final

from neo4j import GraphDatabase

from apexmem_neo.services.base import ServiceState
from apexmem_neo.services.neo4j_server import private_neo4j
from apexmem_neo.settings import Settings
from apexmem_neo.store.neo4j import Neo4jGraphStore

BENCH_NEO4J_PORT: Final = 7799

WIPE_ORDER = ("Fact", "Event", "Evidence", "Turn", "Session", "Entity", "Property")
"""Leaves first: once facts and events are gone, no node has many relationships left, so
each batch stays small (a label-blind DETACH DELETE of an entity with thousands of facts
in one transaction can exhaust a 1 GB heap)."""
WIPE = (
    "MATCH (n) WHERE $label IN labels(n) "
    "CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 5000 ROWS"
)
SCANS = ("AllNodesScan", "NodeByLabelScan", "NodeIndexScan", "NodeIndexContainsScan")


class BenchNeo4jStore(Neo4jGraphStore):
    """A store that owns its driver: closing it closes the driver too. The benchmarks open
    one per load; a library store leaves its driver to the caller, and each load left its
    connections open until the process ended."""

    def close(self) -> None:
        super().close()
        self.driver.close()


def fresh_store() -> Neo4jGraphStore:
    """An emptied store on the configured server (NEO4J_URI; NEO4J_AUTH=user/password if auth
    is on), on a driver of its own that ``close()`` closes."""
    auth_env = os.environ.get("NEO4J_AUTH")
    user, _, password = (auth_env or "").partition("/")
    auth = (user, password) if auth_env else None
    driver = GraphDatabase.driver(Settings().neo4j_uri, auth=auth)
    with driver.session() as session:
        for label in WIPE_ORDER:
            session.run(WIPE, label=label).consume()
    return BenchNeo4jStore(driver)


def query_plans(store: Neo4jGraphStore, pick: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Per temporal query file, its EXPLAIN operators and whether it seeks an index only."""
    base = {"entity_id": pick["e"], "property": pick["p"]}
    params: dict[str, dict[str, Any]] = {
        "temporal_current": base,
        "temporal_as_of": {**base, "t": pick["t"]},
        "temporal_history": base,
        "temporal_facts_between": {"entity_id": pick["e"], "t1": pick["t"], "t2": pick["t"]},
        "temporal_known_as_of": {**base, "recorded_at": pick["r"]},
        "temporal_known_as_of_at": {**base, "recorded_at": pick["r"], "t": pick["t"]},
    }
    plans = {}
    for name, values in params.items():
        operators = store.plan(name, values)
        seeks = any(op.startswith("NodeIndexSeek") for op in operators)
        scans = any(op.startswith(SCANS) for op in operators)
        plans[name] = {"plan": "; ".join(operators), "uses_index": seeks and not scans}
    return plans


@contextmanager
def private_server(settings: Settings) -> Iterator[str]:
    """The benchmark's own Neo4j on a new, empty data directory (under
    ``$APEXMEM_HOME/bench-neo4j``, removed first), started here and stopped at the end; its
    URI becomes NEO4J_URI for this process. A store's files and indexes keep their size after
    a wipe (freed pages are reused, not returned), so on a long-lived data directory every
    load writes into files grown by the loads before it; a new one measures what a first load
    meets. Nothing of the shared server is touched."""
    home = settings.apexmem_home / "bench-neo4j"
    service = private_neo4j(settings.apexmem_home, home, BENCH_NEO4J_PORT)
    if service.status().state is not ServiceState.STOPPED:
        raise SystemExit(f"{service.uri} is in use (a benchmark Neo4j still running?); free it")
    shutil.rmtree(service.data_dir, ignore_errors=True)
    service.up()
    previous = os.environ.get("NEO4J_URI")
    os.environ["NEO4J_URI"] = service.uri
    try:
        yield service.uri
    finally:
        service.down()
        if previous is None:
            os.environ.pop("NEO4J_URI", None)
        else:
            os.environ["NEO4J_URI"] = previous
