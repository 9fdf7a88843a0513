"""The property-edge A/B at a tiny size on its own private Neo4j: both arms load every fact,
the 'edge' arm with one Property edge per fact and today's with none (each load checks)."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from apexmem_neo.services.process import port_is_open
from benchmarks.graph import property_edge_ab
from benchmarks.graph.neo4j_backend import BENCH_NEO4J_PORT

pytestmark = [pytest.mark.integration, pytest.mark.neo4j]


def test_both_arms_load_alternating_on_a_private_server(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="neo4j.notifications")
    property_edge_ab.main(
        ["--size", "2000", "--rounds", "2", "--warmups", "1", "--out-dir", str(tmp_path)]
    )
    result = json.loads((tmp_path / "property_edge_ab_2000.json").read_text())
    assert [(x["round"], x["arm"]) for x in result["loads"]] == [
        (0, "today"), (0, "edge"), (1, "edge"), (1, "today"),
    ]  # fmt: skip
    assert all(x["facts_per_s"] > 0 for x in result["loads"])
    assert set(result["summary"]) == {"today", "edge"}
    assert not port_is_open("127.0.0.1", BENCH_NEO4J_PORT)  # stopped at the end
    # A new server never held OF_PROPERTY: init_schema skips the migration deleting it
    # rather than make Neo4j warn about an unknown relationship type.
    assert not [r for r in caplog.records if r.name == "neo4j.notifications"]
