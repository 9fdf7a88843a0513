"""The write-path A/B at a tiny size on its own private Neo4j: both arms load every fact and
entity, alternating; only the property_edge variant leaves a Property edge per fact."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from apexmem_neo.services.process import port_is_open
from apexmem_neo.store.neo4j import store as neo4j_store
from benchmarks.graph import write_ab
from benchmarks.graph.neo4j_backend import BENCH_NEO4J_PORT

pytestmark = [pytest.mark.integration, pytest.mark.neo4j]


@pytest.mark.parametrize("variant", sorted(write_ab.VARIANTS))
def test_both_arms_load_alternating_on_a_private_server(
    variant: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="neo4j.notifications")
    create_path = dict(neo4j_store.CREATE_NEW)
    write_ab.main(
        ["--variant", variant, "--size", "2000", "--rounds", "2", "--warmups", "1",
         "--out-dir", str(tmp_path), "--query-times"]
    )  # fmt: skip
    result = json.loads((tmp_path / f"write_ab_{variant}_2000.json").read_text())
    assert [(x["round"], x["arm"]) for x in result["loads"]] == [
        (0, "today"), (0, variant), (1, variant), (1, "today"),
    ]  # fmt: skip
    assert all(x["facts_per_s"] > 0 for x in result["loads"])
    assert set(result["summary"]) == {"today", variant}
    times = result["query_times"]
    assert set(times) == {"today", variant}
    for arm in times:  # every load writes facts, events and participants, each chunk timed
        for name in ("write_facts", "write_events", "write_participants_new"):
            assert times[arm][name]["calls_per_load"] >= 1
            assert 0 < times[arm][name]["p50_ms"] <= times[arm][name]["max_ms"]
    assert create_path == neo4j_store.CREATE_NEW  # the variant is undone
    assert not port_is_open("127.0.0.1", BENCH_NEO4J_PORT)  # stopped at the end
    # A new server never held OF_PROPERTY: init_schema skips the migration deleting it
    # rather than make Neo4j warn about an unknown relationship type.
    assert not [r for r in caplog.records if r.name == "neo4j.notifications"]
