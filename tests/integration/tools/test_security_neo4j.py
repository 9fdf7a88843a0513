"""Security on Neo4j: hostile Cypher and SQL are refused or bounded, and the graph (the test
graph's nodes and relationships, and everything a hostile query would create) is unchanged.

The server is shared with other engineers' tests, so the checksum covers what these queries
target: the ``tqx`` test graph, nodes labelled TqxHostile and tqx indexes / constraints.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from neo4j import Driver, Query

from apexmem_neo.tools import Neo4jQueryBackend, QueryLimits, run_graph_query
from tests.integration.tools.conftest import MINE, write_test_graph
from tests.unit.tools.graph_data import P
from tests.unit.tools.hostile import (
    BOUNDED_CYPHER,
    BOUNDED_SQL,
    RECURSIVE_SQL,
    REFUSED_CYPHER,
    REFUSED_SQL,
)
from tests.unit.tools.test_guard_properties import write_injections

pytestmark = [pytest.mark.integration, pytest.mark.neo4j]
LIMITS = QueryLimits(max_rows=50, timeout_s=2.0)
CHECKSUM = (
    MINE + " OPTIONAL MATCH (n)-[r]->(m) "
    "RETURN labels(n) AS labels, properties(n) AS props, type(r) AS rel, "
    "properties(r) AS rel_props, labels(m) AS m_labels, properties(m) AS m_props"
)
EXTRAS = (
    "CALL () { MATCH (h:TqxHostile) RETURN count(h) AS hostile } "
    "CALL () { MATCH ()-[r:TQX_HOSTILE]->() RETURN count(r) AS rels } "
    "CALL () { MATCH (g:TqxGuard) OPTIONAL MATCH (g)-[r]->(m) "
    "  WITH g, r, m ORDER BY g.guard_id, type(r) "
    "  RETURN collect([properties(g), labels(g), type(r), properties(r), m.guard_id]) AS guard } "
    "RETURN hostile, rels, guard"
)
GUARD_GRAPH = (
    "CREATE (:TqxGuard {guard_id: 'g1', v: 1})-[:TQX_LINK {w: 2}]->(:TqxGuard {guard_id: 'g2'})"
)
GUARD_HOSTILE = [
    "MATCH (n:TqxGuard) DETACH DELETE n",
    "MATCH (n:TqxGuard) SET n.v = 99",
    "MATCH (:TqxGuard)-[r:TQX_LINK]->() DELETE r",
    "MATCH (n:TqxGuard {guard_id: 'g1'}) REMOVE n.v",
    "MATCH (n) DETACH DELETE n",
    "MATCH (n) SET n.tqx_touched = true",
]
"""Hostile queries aimed at the guard graph, whose label no other test on the server uses."""


@pytest.fixture(scope="module")
def guard_graph(neo4j_graph: Driver) -> Iterator[Driver]:
    with neo4j_graph.session() as session:
        session.run("MATCH (n:TqxGuard|TqxHostile) DETACH DELETE n").consume()
        session.run(GUARD_GRAPH).consume()
    yield neo4j_graph
    with neo4j_graph.session() as session:
        session.run("MATCH (n:TqxGuard|TqxHostile) DETACH DELETE n").consume()


def checksums(driver: Driver) -> tuple[str, frozenset[str]]:
    """(strict: a hash of what no other test touches, store: the tqx test graph's rows).

    Other engineers' store tests wipe every node with a store label (in batches), so from
    outside the store part can only lose rows; the strict part (guard graph, TqxHostile,
    tqx schema, databases) must never change.
    """
    with driver.session() as session:
        rows = [repr(r.values()) for r in session.run(Query(CHECKSUM), prefix=f"{P}_")]
        extras = session.run(EXTRAS).single()
        indexes = session.run(
            "SHOW INDEXES YIELD name WHERE name STARTS WITH 'tqx' RETURN collect(name) AS n"
        ).single()
        constraints = session.run(
            "SHOW CONSTRAINTS YIELD name WHERE name STARTS WITH 'tqx' RETURN collect(name) AS n"
        ).single()
        databases = session.run("SHOW DATABASES YIELD name RETURN collect(name) AS n").single()
    assert extras and indexes and constraints and databases
    strict = repr((extras.values(), indexes["n"], constraints["n"], databases["n"]))
    return _sha(strict), frozenset(rows)


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def assert_unchanged(before: tuple[str, frozenset[str]], driver: Driver) -> None:
    strict, store = checksums(driver)
    assert strict == before[0], "the guard graph, TqxHostile nodes or the tqx schema changed"
    assert store <= before[1], f"the tqx test graph changed: {sorted(store - before[1])[:3]}"
    if store != before[1]:
        write_test_graph(driver)  # (partly) wiped by another suite's fixture; put it back


def test_hostile_queries_are_refused_or_bounded(
    neo4j_backend: Neo4jQueryBackend, guard_graph: Driver
) -> None:
    before = checksums(guard_graph)
    refused = [(q, "cypher") for q in REFUSED_CYPHER + GUARD_HOSTILE]
    refused += [(q, "sql") for q in REFUSED_SQL]
    refused.append((RECURSIVE_SQL, "sql"))
    assert len(refused) >= 50
    for query, language in refused:
        out = run_graph_query(neo4j_backend, query, language, None, LIMITS)
        assert out.error is not None, (query, out)
    bounded = [(q, "cypher") for q in BOUNDED_CYPHER] + [(q, "sql") for q in BOUNDED_SQL]
    for query, language in bounded:
        start = time.monotonic()
        out = run_graph_query(neo4j_backend, query, language, None, LIMITS)
        assert time.monotonic() - start < LIMITS.timeout_s + 15, query
        # bounded: an error (time limit) or at most 50 rows, never an exception
        assert out.error is not None or out.text.startswith(("**", "Ran as cypher:")), (query, out)
        assert "(row limit 50)" in str(out) or "more exist" not in str(out)
    assert_unchanged(before, guard_graph)


def test_the_plan_check_refuses_writes_the_static_guard_would_miss(
    neo4j_backend: Neo4jQueryBackend, guard_graph: Driver
) -> None:
    """The second lock on its own: EXPLAIN's query type must be "r"."""
    before = checksums(guard_graph)
    with neo4j_backend._session() as session:
        for text in ("CREATE (:TqxHostile)", "CALL db.createLabel('TqxHostile')"):
            with pytest.raises(Exception, match="not read-only"):
                neo4j_backend._require_read_only(session, text, {})
        neo4j_backend._require_read_only(session, "MATCH (n:TqxHostile) RETURN n", {})
    assert_unchanged(before, guard_graph)


def test_the_read_session_refuses_writes(
    neo4j_backend: Neo4jQueryBackend, guard_graph: Driver
) -> None:
    """The third lock on its own: the session's READ access mode."""
    before = checksums(guard_graph)
    with neo4j_backend._session() as session, pytest.raises(Exception, match="read access"):
        session.run("MATCH (g:TqxGuard) SET g.v = 7 CREATE (:TqxHostile)").consume()
    assert_unchanged(before, guard_graph)


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(query=write_injections())
def test_fuzzed_write_injections_never_reach_the_graph(
    neo4j_backend: Neo4jQueryBackend, guard_graph: Driver, query: str
) -> None:
    before = checksums(guard_graph)
    out = run_graph_query(neo4j_backend, query, "cypher", None, LIMITS)
    assert out.error is not None, (query, out)
    assert_unchanged(before, guard_graph)
