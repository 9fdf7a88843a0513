"""The scope guard against real Neo4j: attacks rewritten for scope A never see scope B.

Two small scopes share the server, each with Entity, Fact and Turn nodes, relationships only
inside the scope and a secret word in a ``text`` property of its nodes and relationships.
Every attack is rewritten for scope A by ``scope_cypher`` and, unless refused, run in a READ
transaction: Neo4j must accept it and no result may hold B's secret. The scope labels are
fresh per run and everything created is deleted at the end.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import neo4j
import pytest
from neo4j import Driver

from apexmem_neo.query.backend import ToolError
from apexmem_neo.query.cypher.scope import scope_cypher

pytestmark = [pytest.mark.integration, pytest.mark.neo4j]

RUN = uuid.uuid4().hex[:10]
SCOPE_A = f"Scope_{RUN}a"
SCOPE_B = f"Scope_{RUN}b"
BOTH = f"Both_{RUN}"
"""A label on the nodes of both scopes: attacks confined to it show what they would leak."""
SECRET_A = "ALPACA"
SECRET_B = "ZEBRA"
SECRETS = {SCOPE_A: SECRET_A, SCOPE_B: SECRET_B}
GRAPH = """
CREATE (e:Entity:{scope}:{both} {{text: $s + ' entity', name: $s}})
CREATE (f:Fact:{scope}:{both} {{text: $s + ' fact', value: 1}})
CREATE (t:Turn:{scope}:{both} {{text: 'said ' + $s}})
CREATE (t2:Turn:{scope}:{both} {{text: 'later ' + $s}})
CREATE (e)-[:HAS {{text: $s + ' edge'}}]->(f)
CREATE (t)-[:MENTIONS {{text: $s}}]->(e)
CREATE (t)-[:NEXT]->(t2)
"""
NODES_PER_SCOPE = 4

ATTACKS: list[str] = [
    "MATCH (n) RETURN n.text",
    "MATCH (n) RETURN n",
    "OPTIONAL MATCH (n) RETURN collect(n.text)",
    "MATCH (n:Entity) RETURN n.text",
    "MATCH (n {name: 'ZEBRA'}) RETURN n.text",
    "MATCH (n) WHERE n.text CONTAINS 'ZEBRA' RETURN n.text",
    "MATCH (n) WHERE n.text = $secret RETURN n.text",
    "MATCH (n) RETURN n.text AS t UNION MATCH (m) RETURN m.text AS t",
    "MATCH (n:Entity) RETURN n.text AS t UNION ALL MATCH (m:Fact) RETURN m.text AS t",
    "MATCH (a) WHERE EXISTS { (a)--(b) } RETURN a.text",
    "MATCH (a) WHERE EXISTS { MATCH (a)--(b) RETURN b } RETURN a.text",
    "MATCH (a) RETURN [(a)--(b) | b.text]",
    "RETURN [(x)-->(y) | y.text]",
    "RETURN [(x)-[r]->(y) WHERE y.text CONTAINS 'ZEBRA' | r.text]",
    "MATCH (a) WHERE (a)--() RETURN a.text",
    "MATCH (a), (b) WHERE (a)--(b) RETURN b.text",
    "MATCH (a)-[*]-(b) RETURN b.text",
    "MATCH (a)-[*0..5]-(b) RETURN DISTINCT b.text",
    "MATCH p = shortestPath((a)-[*]-(b)) WHERE a <> b RETURN [n IN nodes(p) | n.text]",
    "MATCH p = allShortestPaths((a)-[*]-(b)) WHERE a <> b RETURN nodes(p)",
    "MATCH (a) WITH a MATCH (b) RETURN b.text",
    "MATCH (a) WITH count(*) AS c MATCH (b) RETURN b.text, c",
    "MATCH (a), (b) RETURN b.text",
    "MATCH ()-[r]->() RETURN properties(r)",
    "MATCH ()-[r]-() RETURN r.text",
    "MATCH ()-->(n) RETURN n.text",
    "MATCH (n) // ) RETURN 1\n RETURN n.text",
    "MATCH (n) /* MATCH (m) RETURN m.text */ RETURN n.text",
    "MATCH (n) WHERE n.text <> '\\\\' OR (n)--({name: 'ZEBRA'}) RETURN n.text",
    "MATCH (`n`) RETURN `n`.`text`",
    "MATCH (n:`Entity`) RETURN n.text",
    "MATCH (n) WHERE 'Scope_b' IN labels(n) RETURN n.text",
    "MATCH (n) WHERE elementId(n) IS NOT NULL RETURN n.text",
    "MATCH (n) RETURN labels(n), keys(n), properties(n)",
    "MATCH (a)-[r]->(b) RETURN startNode(r).text, endNode(r).text",
    "MATCH p = (a)-[*]->(b) RETURN [x IN nodes(p) | x.text], [r IN relationships(p) | r.text]",
    "MATCH (n) WHERE n.text =~ '(?i).*zebra.*' RETURN n.text",
    "MATCH (n) RETURN n.text ORDER BY n.text SKIP 0 LIMIT 100",
    "UNWIND range(1, 3) AS i MATCH (n) RETURN i, n.text",
    "MATCH (a) OPTIONAL MATCH (a)-->(b) RETURN a.text, b.text",
    "MATCH (a) RETURN a.text, size([(a)--() | 1])",
    "MATCH ((a)-->(b)) RETURN b.text",
    "MATCH (n) WHERE any(x IN [(n)-->(m) | m.text] WHERE x IS NOT NULL) RETURN n.text",
    "MATCH (n) WITH n ORDER BY n.text RETURN collect(n.text)",
    "MATCH (n) WHERE id(n) >= 0 RETURN n.text",
    "MATCH (n) RETURN n.text, [(n)<-[r]-(m) WHERE m.text CONTAINS 'ZEBRA' | r.text]",
    "MATCH (n) RETURN CASE WHEN (n)-->() THEN n.text ELSE 'none' END",
    "MATCH (n:Scope_b) RETURN n.text",
    "MATCH (n) WHERE n:Scope_b RETURN n.text",
    "MATCH (n:Entity|Fact) RETURN n.text",
    "CALL db.labels()",
    "CALL db.index.fulltext.queryNodes('x', 'ZEBRA') YIELD node RETURN node.text",
    "CALL { MATCH (n) RETURN n } RETURN n.text",
    "RETURN COUNT { MATCH (n) }",
    "MATCH (n) RETURN n {.*}",
    "RETURN graph.byElementId('x')",
]


@pytest.fixture(scope="module")
def scoped_graph(neo4j_driver: Driver) -> Iterator[Driver]:
    """Scopes A and B on the shared server, deleted (by their fresh labels) afterwards."""
    with neo4j_driver.session() as session:
        for scope, secret in SECRETS.items():
            session.run(GRAPH.format(scope=scope, both=BOTH), s=secret).consume()
    yield neo4j_driver
    with neo4j_driver.session() as session:
        session.run(f"MATCH (n:{BOTH}) DETACH DELETE n").consume()


def run_read(driver: Driver, query: str) -> list[list[Any]]:
    """Run ``query`` in a READ transaction with a timeout; the records' values (no keys:
    column names repeat the query text)."""

    @neo4j.unit_of_work(timeout=10)
    def work(tx: neo4j.ManagedTransaction) -> list[list[Any]]:
        return tx.run(query, secret=f"{SECRET_B} entity").values()

    with driver.session() as session:
        return session.execute_read(work)


def rewritten(query: str, label: str = SCOPE_A) -> str | None:
    """The query confined to ``label`` (scope B named as in this run), or None if refused."""
    query = query.replace("Scope_b", SCOPE_B)
    try:
        return scope_cypher(query, label)
    except ToolError:
        return None


def test_there_are_enough_attacks() -> None:
    assert len(ATTACKS) >= 40


@pytest.mark.parametrize("attack", ATTACKS)
def test_attack_cannot_see_the_other_scope(scoped_graph: Driver, attack: str) -> None:
    query = rewritten(attack)
    if query is None:
        return  # refused by scope_cypher
    rows = run_read(scoped_graph, query)  # Neo4j accepts every rewritten query
    assert SECRET_B not in repr(rows), query


def test_attacks_are_real_and_scoped_queries_still_answer(scoped_graph: Driver) -> None:
    """Confined to both scopes the attacks reach B; confined to A they still read A."""
    leaks = answers = refused = 0
    for attack in ATTACKS:
        query, control = rewritten(attack), rewritten(attack, BOTH)
        if query is None or control is None:
            refused += 1
            continue
        answers += SECRET_A in repr(run_read(scoped_graph, query))
        leaks += SECRET_B in repr(run_read(scoped_graph, control))
    assert leaks >= 30
    assert answers >= 30
    assert refused == 9  # the nine forms the guard refuses, listed at the end of ATTACKS


def test_counts_stay_inside_the_scope(scoped_graph: Driver) -> None:
    query = scope_cypher("MATCH (n) RETURN count(*) AS c", SCOPE_A)
    assert run_read(scoped_graph, query) == [[NODES_PER_SCOPE]]
    query = scope_cypher("MATCH ()-[r]->() RETURN count(r) AS c", SCOPE_A)
    assert run_read(scoped_graph, query) == [[3]]
