"""The graph benchmark end to end on Neo4j at a tiny size, on its own private server.

``--private-neo4j`` starts a second Neo4j on a new data directory, loads and queries it, and
stops it; the shared test server keeps its graph.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from neo4j import Driver
from neo4j.exceptions import DriverError

from apexmem_neo.services.process import port_is_open
from benchmarks.graph import bench
from benchmarks.graph.neo4j_backend import BENCH_NEO4J_PORT, fresh_store

pytestmark = [pytest.mark.integration, pytest.mark.neo4j]


CANARY = "prop_bench_canary"
"""A store node on the shared server: a benchmark that wiped that server would delete it."""


def _canary_count(driver: Driver) -> int:
    records, _, _ = driver.execute_query(
        "MATCH (p:Property {property_id: $id}) RETURN count(p) AS n", id=CANARY
    )
    return int(records[0]["n"])


def test_private_neo4j_run_loads_queries_and_leaves_the_shared_server_alone(
    neo4j_driver: Driver, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    driver = neo4j_driver
    driver.execute_query("MERGE (:Property {property_id: $id, name: 'bench_canary'})", id=CANARY)
    try:
        monkeypatch.setattr(bench, "RESULTS", tmp_path / "results")
        bench.main(
            ["--backend", "neo4j", "--sizes", "6000", "--samples", "10", "--warmup-loads", "1",
             "--writers", "2", "--private-neo4j"]
        )  # fmt: skip
        assert _canary_count(driver) == 1
    finally:
        driver.execute_query("MATCH (p:Property {property_id: $id}) DELETE p", id=CANARY)
    payload = json.loads((tmp_path / "results" / "graph_neo4j_2writers.json").read_text())
    assert payload["neo4j"] == "private, new data directory"
    (result,) = payload["results"]
    assert result["ingest"]["facts"] == 6000
    assert len(result["plans"]) >= 6, "an EXPLAIN per temporal query file"
    assert all(plan["uses_index"] for plan in result["plans"].values())
    accuracy = result["accuracy"]  # 6 facts per entity: pairs with 3 facts get questions
    assert accuracy["questions"] > 0
    assert set(accuracy["append_only"].values()) == {1.0}
    assert not port_is_open("127.0.0.1", BENCH_NEO4J_PORT)  # stopped at the end


def test_a_benchmark_store_closes_its_own_driver(
    neo4j_uri: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each benchmark load opens a store on a new driver; closing the store closes it, so
    loads do not pile up open connections."""
    monkeypatch.setenv("NEO4J_URI", neo4j_uri)
    store = fresh_store()
    store.init_schema()
    assert store.counts().facts == 0  # emptied first
    store.close()
    with pytest.raises(DriverError, match="closed"):
        store.driver.execute_query("RETURN 1")
