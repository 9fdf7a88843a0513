"""Cross-scope suite: queries written to read another scope return nothing of it.

Two users, alice and bob, share one memory (a SQLite file, and the shared Neo4j server). Each
has a "Mom" with a city, turns and a secret word. Every query below runs through
``Memory.query`` in alice's scope; whatever it answers (rows or a refusal), no cell may hold
anything of bob's: his secret word, his city, his scope name or any of his ids. Queries that
read alice's own data must still find it, so the wall is not a locked door.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from neo4j import Driver

from apexmem_neo import Memory
from apexmem_neo.ontology.ids import scope_label
from apexmem_neo.query.backend import QueryResult, ToolError
from tests.unit.store.test_contract import scoped_batch

RUN = uuid.uuid4().hex[:8]
ALICE, BOB = f"xs-alice-{RUN}", f"xs-bob-{RUN}"
CITY = {ALICE: "Lisbon", BOB: "Oslotown"}
SECRET = {ALICE: "alicewhisper", BOB: "bobsecretword"}

SQL_ATTACKS: tuple[str, ...] = (
    "SELECT text FROM turns",
    "SELECT * FROM facts",
    f"SELECT * FROM turns WHERE scope = '{BOB}'",
    f"SELECT name, entity_id FROM entities WHERE scope <> '{ALICE}'",
    "SELECT t.text, s.conversation_id FROM turns t JOIN sessions s ON t.session_id = s.session_id",
    "SELECT value_json FROM facts UNION SELECT text FROM turns",
    "SELECT value_json FROM facts UNION ALL SELECT scope FROM sessions",
    "WITH x AS (SELECT * FROM turns) SELECT text FROM x",
    f"WITH x AS (SELECT * FROM turns WHERE scope = '{BOB}') SELECT text FROM x",
    f"WITH a AS (SELECT * FROM turns), b AS (SELECT * FROM a WHERE scope <> '{ALICE}') "
    "SELECT text FROM b",
    "WITH b AS (SELECT * FROM a), a AS (SELECT * FROM entities) SELECT entity_id, scope FROM b",
    "SELECT text FROM (WITH x AS (SELECT * FROM turns) SELECT * FROM x)",
    "WITH turns AS (SELECT value_json AS text FROM facts) SELECT text FROM turns",
    "WITH turns AS (SELECT text FROM turns) SELECT text FROM turns",
    "WITH turns AS (SELECT * FROM main.turns) SELECT text FROM turns",
    "WITH x(a, b) AS (SELECT text, scope FROM turns) SELECT a, b FROM x",
    "WITH e AS (SELECT * FROM entities) SELECT e.entity_id, f.value_json FROM e "
    "JOIN facts f ON f.entity_id = e.entity_id",
    "WITH RECURSIVE r(n, t) AS (SELECT 1, text FROM turns UNION ALL SELECT n + 1, t FROM r "
    "WHERE n < 3) SELECT t FROM r",
    "SELECT (SELECT group_concat(text, '|') FROM turns) AS everything",
    "SELECT text FROM turns WHERE EXISTS (SELECT 1 FROM facts WHERE facts.scope <> turns.scope)",
    "SELECT a.name, b.entity_id FROM entities a JOIN entities b ON a.norm_name = b.norm_name",
    "SELECT f.value_json FROM facts f JOIN entities e ON f.entity_id = e.entity_id",
    "SELECT text FROM turns -- the rest is a comment: UNION SELECT text FROM main.turns",
    "SELECT text FROM turns /* hidden */ WHERE 1 = 1",
    "SELECT text FROM turns WHERE scope = :who",
    "SELECT max(text), min(text), count(*) FROM turns",
    "SELECT DISTINCT scope FROM facts",
    "SELECT * FROM evidence",
    "SELECT * FROM events",
    "SELECT * FROM event_participants",
    "SELECT * FROM properties",
    "SELECT * FROM sessions",
    "SELECT text FROM main.turns",
    "SELECT name FROM sqlite_master",
    "SELECT * FROM pragma_table_info('turns')",
    "SELECT text FROM turns LIMIT -1",
    "SELECT e.name FROM entities e LEFT JOIN facts f ON f.entity_id = e.entity_id "
    "WHERE f.fact_id IS NULL OR f.value_json LIKE '%o%'",
    "SELECT text FROM turns WHERE text LIKE '%secret%' OR text GLOB '*bob*'",
    "SELECT value_json FROM facts WHERE entity_id IN (SELECT entity_id FROM entities)",
    "SELECT count(*) AS n FROM facts GROUP BY scope",
)
"""SQL that tries to read bob's rows: filters on his scope, joins through shared values,
unions, CTEs (several, nested, named like a table, recursive), subqueries, aggregates,
comments, parameters, qualified and system tables."""

CYPHER_ATTACKS: tuple[str, ...] = (
    "MATCH (n) RETURN n",
    "MATCH (t:Turn) RETURN t.text",
    f"MATCH (n) WHERE n.scope = '{BOB}' RETURN n",
    f"OPTIONAL MATCH (t:Turn {{scope: '{BOB}'}}) RETURN t.text",
    "MATCH (a:Turn) RETURN a.text AS x UNION MATCH (b:Entity) RETURN b.entity_id AS x",
    "MATCH (a:Fact) RETURN a.value_json AS x UNION ALL MATCH (b:Session) RETURN b.scope AS x",
    "CALL () { MATCH (t:Turn) RETURN t } RETURN t.text",
    f"MATCH (t:Turn) WHERE EXISTS {{ MATCH (x) WHERE x.scope = '{BOB}' }} RETURN t.text",
    "MATCH p = (a)-[*1..6]-(b) RETURN [n IN nodes(p) | n.text] AS texts, b.scope",
    "MATCH (n) RETURN count(n) AS nodes",
    "MATCH ()-[r]->() RETURN r",
    "MATCH (a:Entity), (b:Entity) WHERE a.norm_name = b.norm_name RETURN b.entity_id",
    "RETURN [(t:Turn) | t.text] AS texts",
    f"MATCH (n) WHERE (n)--({{scope: '{BOB}'}}) RETURN n",
    "MATCH (n) // a comment ) MATCH (m)\nRETURN n.text",
    "MATCH (n:`Turn`) RETURN n.text",
    "CALL db.index.fulltext.queryNodes('x', 'bob') YIELD node RETURN node",
    "MATCH (n) WHERE n.scope = $who RETURN n",
    f"MATCH (n:{scope_label(BOB)}) RETURN n",
    "MATCH (n) WITH n MATCH (m) RETURN m.text, m.value_json",
    "MATCH p = shortestPath((a:Entity)-[*]-(b)) RETURN b.text",
    "MATCH (e:Entity)<-[:ABOUT]-(f:Fact) RETURN e.name, f.value_json",
    "MATCH (t:Turn) RETURN collect(t.text) AS all_texts",
    "MATCH (n) RETURN labels(n), keys(n), properties(n)",
    "MATCH (n) WHERE n.text CONTAINS 'secret' RETURN n.text",
    "MATCH (d) WHERE d.doc_id IS NOT NULL RETURN d",
    "UNWIND range(1, 3) AS i MATCH (t:Turn) RETURN i, t.text",
    "MATCH (t:Turn) RETURN t.text ORDER BY t.text SKIP 0 LIMIT 100",
    "MATCH (n) RETURN DISTINCT n.scope",
    "MATCH (a)-[:NEXT*]->(b:Turn) RETURN b.text",
)
"""Cypher that tries to read bob's nodes: unlabelled patterns, OPTIONAL MATCH, UNION, CALL {},
EXISTS, variable-length paths, aggregates, comments, parameters, his scope label."""

OWN_DATA: tuple[tuple[str, str], ...] = (
    ("sql", "SELECT text FROM turns"),
    ("sql", "SELECT value_json FROM facts"),
)


CTE_OWN_DATA: tuple[tuple[str, str], ...] = (
    ("WITH x AS (SELECT text FROM turns) SELECT text FROM x", "SELECT text FROM turns"),
    (
        "WITH a AS (SELECT text FROM turns), b AS (SELECT text FROM a) SELECT text FROM b",
        "SELECT text FROM turns",
    ),
    (
        "WITH b AS (SELECT text FROM a), a AS (SELECT text FROM turns) SELECT text FROM b",
        "SELECT text FROM turns",
    ),
    (
        "SELECT text FROM (WITH x AS (SELECT text FROM turns) SELECT text FROM x)",
        "SELECT text FROM turns",
    ),
    (
        "WITH turns AS (SELECT value_json AS text FROM facts) SELECT text FROM turns",
        "SELECT value_json FROM facts",
    ),
    ("WITH x(words) AS (SELECT text FROM turns) SELECT words FROM x", "SELECT text FROM turns"),
    (
        "WITH m AS (SELECT entity_id FROM entities) SELECT f.value_json FROM facts f "
        "JOIN m ON m.entity_id = f.entity_id",
        "SELECT value_json FROM facts",
    ),
    (
        "WITH x AS (SELECT text FROM turns) SELECT text FROM x "
        "WHERE text IN (WITH y AS (SELECT text FROM turns) SELECT text FROM y)",
        "SELECT text FROM turns",
    ),
)
"""(CTE query, the same query without CTEs): both give the scope's own rows, the same ones."""

RECURSIVE_OWN_DATA = (
    "WITH RECURSIVE r(n, t) AS (SELECT 1, text FROM turns UNION ALL SELECT n + 1, t FROM r "
    "WHERE n < 2) SELECT t FROM r WHERE n = 2"
)
"""A recursive CTE (SQLite only: the shim refuses WITH RECURSIVE)."""


def cells(result: QueryResult) -> str:
    return " ".join(str(value) for row in result.rows for value in row)


def bob_markers(memory: Memory) -> list[str]:
    """Everything that would show bob's data leaked: words, scope name, ids."""
    store = memory.store
    (mom,) = store.find_entities("Mom", scope=BOB)
    return [SECRET[BOB], CITY[BOB], BOB, mom.entity_id, scope_label(BOB)]


def run(memory: Memory, query: str, language: str) -> QueryResult | None:
    try:
        return memory.query(query, language, scope=ALICE, params={"who": BOB})  # type: ignore[arg-type]
    except ToolError:
        return None


def fill(memory: Memory) -> None:
    for scope in (ALICE, BOB):
        memory.store.write(scoped_batch(scope, CITY[scope]))
        said = f"my {SECRET[scope]} is that Mom moved to {CITY[scope]}"
        memory.add([{"role": "user", "content": said}], scope=scope, extract=False)


@pytest.fixture(scope="module")
def sqlite_memory(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Memory]:
    path: Path = tmp_path_factory.mktemp("xs") / "shared.sqlite"
    with Memory.sqlite(path, lm=None, search=None) as memory:
        fill(memory)
        yield memory


@pytest.fixture(scope="module")
def neo4j_memory(neo4j_driver: Driver) -> Iterator[Memory]:
    with Memory.neo4j(neo4j_driver, lm=None, search=None) as memory:
        fill(memory)
        yield memory
    with neo4j_driver.session() as session:
        session.run(
            "MATCH (n) WHERE n.scope IN $scopes DETACH DELETE n", scopes=[ALICE, BOB]
        ).consume()


def test_the_suites_are_large_enough() -> None:
    assert len(SQL_ATTACKS) + len(CYPHER_ATTACKS) >= 40


ATTACKS = [
    *[("sqlite", "sql", q) for q in SQL_ATTACKS],
    *[("neo4j", "sql", q) for q in SQL_ATTACKS],
    *[("neo4j", "cypher", q) for q in CYPHER_ATTACKS],
]
"""(store, language, query): SQL on both stores (the shim on Neo4j), Cypher on Neo4j."""


@pytest.mark.parametrize(("which", "language", "query"), ATTACKS)
def test_a_query_sees_nothing_of_another_scope(
    which: str, language: str, query: str, request: pytest.FixtureRequest
) -> None:
    memory: Memory = request.getfixturevalue(f"{which}_memory")
    result = run(memory, query, language)
    if result is not None:
        leaked = [m for m in bob_markers(memory) if m in cells(result)]
        assert leaked == [], f"{query!r} leaked {leaked}"


@pytest.mark.parametrize("which", ["sqlite", "neo4j"])
@pytest.mark.parametrize(("language", "query"), OWN_DATA)
def test_a_scope_still_reads_its_own_data(
    which: str, language: str, query: str, request: pytest.FixtureRequest
) -> None:
    memory: Memory = request.getfixturevalue(f"{which}_memory")
    result = memory.query(query, language, scope=ALICE)  # type: ignore[arg-type]
    assert SECRET[ALICE] in cells(result) or CITY[ALICE] in cells(result)


@pytest.mark.parametrize("which", ["sqlite", "neo4j"])
@pytest.mark.parametrize(("query", "plain"), CTE_OWN_DATA)
def test_a_cte_reads_the_scopes_own_rows(
    which: str, query: str, plain: str, request: pytest.FixtureRequest
) -> None:
    memory: Memory = request.getfixturevalue(f"{which}_memory")
    rows = sorted(memory.query(query, "sql", scope=ALICE).rows)
    assert rows == sorted(memory.query(plain, "sql", scope=ALICE).rows)
    assert CITY[ALICE] in " ".join(str(v) for row in rows for v in row)


def test_a_recursive_cte_reads_the_scopes_own_rows(sqlite_memory: Memory) -> None:
    result = sqlite_memory.query(RECURSIVE_OWN_DATA, "sql", scope=ALICE)
    assert sorted(result.rows) == sorted(
        sqlite_memory.query("SELECT text FROM turns", "sql", scope=ALICE).rows
    )
    assert SECRET[ALICE] in cells(result)


@pytest.mark.parametrize("which", ["sqlite", "neo4j"])
def test_counts_are_the_scopes_own(which: str, request: pytest.FixtureRequest) -> None:
    memory: Memory = request.getfixturevalue(f"{which}_memory")
    (row,) = memory.query("SELECT count(*) FROM turns", "sql", scope=ALICE).rows
    assert row[0] == 2  # the scoped batch's turn and the added one


def test_cypher_counts_are_the_scopes_own(neo4j_memory: Memory) -> None:
    result = neo4j_memory.query("MATCH (t:Turn) RETURN count(t) AS n", "cypher", scope=ALICE)
    assert result.rows[0][0] == 2


@pytest.mark.parametrize("which", ["sqlite", "neo4j"])
def test_entity_reads_stay_in_scope(which: str, request: pytest.FixtureRequest) -> None:
    memory: Memory = request.getfixturevalue(f"{which}_memory")
    assert [f.value for f in memory.history("Mom", "lives_in", scope=ALICE).facts] == ["Lisbon"]
    assert [f.value for f in memory.history("Mom", "lives_in", scope=BOB).facts] == ["Oslotown"]
    (bob_mom,) = memory.store.find_entities("Mom", scope=BOB)
    lookup = memory.lookup(bob_mom.entity_id, scope=ALICE)
    assert CITY[BOB] not in lookup
    schema = memory.schema(scope=ALICE)
    assert BOB not in schema
