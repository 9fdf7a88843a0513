"""The garbage-collector A/B at a tiny size: each arm runs on its own private Neo4j whose JVM
reports that arm's collector, every load holds all its facts, and the server is stopped."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from apexmem_neo.services.process import port_is_open
from benchmarks.graph import bench, gc_ab
from benchmarks.graph.neo4j_backend import BENCH_NEO4J_PORT

pytestmark = [pytest.mark.integration, pytest.mark.neo4j]


def test_each_arm_runs_its_collector_alternating(tmp_path: Path) -> None:
    gc_ab.main(
        ["--size", "2000", "--rounds", "2", "--warmups", "0", "--out-dir", str(tmp_path)]
    )  # fmt: skip
    result = json.loads((tmp_path / "gc_ab_2000.json").read_text())
    assert [(x["round"], x["arm"]) for x in result["runs"]] == [
        (0, "g1"), (0, "parallel"), (1, "parallel"), (1, "g1"),
    ]  # fmt: skip
    for run in result["runs"]:
        young = gc_ab.YOUNG_COLLECTOR[run["arm"]]
        assert any(young in bean for bean in run["collectors"]), run["collectors"]
        assert len(run["loads_facts_per_s"]) == bench.load_attempts(2000)
        assert min(run["loads_facts_per_s"]) > 0
        assert run["latency_ms"]["as_of"]["p50_ms"] > 0
    assert set(result["summary"]) == {"g1", "parallel"}
    assert not port_is_open("127.0.0.1", BENCH_NEO4J_PORT)  # stopped at the end
