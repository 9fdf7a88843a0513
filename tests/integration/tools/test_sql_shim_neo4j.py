"""The SQL-compat shim: each query of ``shim_cases`` gives the same rows on SQLite (directly)
and on Neo4j (translated to Cypher), over the same graph written through both stores."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from neo4j import Driver

from apexmem_neo.query.examples import SQL_EXAMPLES
from apexmem_neo.tools import Neo4jQueryBackend, QueryLimits, SQLiteQueryBackend
from tests.integration.tools.conftest import count_test_graph, write_test_graph
from tests.unit.tools.graph_data import ALICE
from tests.unit.tools.shim_cases import CASES, Case

pytestmark = [pytest.mark.integration, pytest.mark.neo4j]
LIMITS = QueryLimits(max_rows=500)
EXAMPLE_PARAMS = {
    "entity_id": ALICE,
    "property": "tqx_city",
    "t": "2022-01-01T00:00:00",
    "t1": "2021-01-01T00:00:00",
    "t2": "2023-12-31T00:00:00",
    "now": "2024-01-01T00:00:00",
    "event_id": "tqx_ev_job",
}


def normal(value: Any) -> Any:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, float):
        return round(value, 9) if math.isfinite(value) else value
    return value


def rows_of(backend: Any, sql: str, params: dict[str, Any]) -> list[tuple[Any, ...]]:
    result = backend.run(sql, "sql", params, LIMITS)
    assert not result.truncated
    return [tuple(normal(v) for v in row) for row in result.rows]


def compare(
    sqlite_backend: SQLiteQueryBackend,
    neo4j_backend: Neo4jQueryBackend,
    driver: Driver,
    sql: str,
    params: dict[str, Any],
    ordered: bool,
) -> None:
    expected = rows_of(sqlite_backend, sql, params)
    actual = rows_of(neo4j_backend, sql, params)
    if expected != actual and sorted(map(repr, expected)) != sorted(map(repr, actual)):
        # Another test on the shared server may have wiped the store's labels meanwhile.
        write_test_graph(driver)
        actual = rows_of(neo4j_backend, sql, params)
    if not ordered:
        expected, actual = sorted(expected, key=repr), sorted(actual, key=repr)
    assert actual == expected, neo4j_backend.run(sql, "sql", params, LIMITS).translated


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_same_rows_on_sqlite_and_neo4j(
    case: Case,
    sqlite_backend: SQLiteQueryBackend,
    neo4j_backend: Neo4jQueryBackend,
    neo4j_graph: Driver,
) -> None:
    compare(sqlite_backend, neo4j_backend, neo4j_graph, case.sql, case.params, case.ordered)


@pytest.mark.parametrize("example", SQL_EXAMPLES, ids=[e.title for e in SQL_EXAMPLES])
def test_sql_examples_agree(
    example: Any,
    sqlite_backend: SQLiteQueryBackend,
    neo4j_backend: Neo4jQueryBackend,
    neo4j_graph: Driver,
) -> None:
    params = {k: EXAMPLE_PARAMS[k] for k in example.params}
    rows = rows_of(sqlite_backend, example.query, params)
    assert rows, "each example finds something in the test graph"
    compare(sqlite_backend, neo4j_backend, neo4j_graph, example.query, params, True)


def test_cases_cover_the_paper_kinds() -> None:
    kinds = {c.kind for c in CASES}
    assert kinds == {"SELECT", "JOIN", "AGGREGATE", "TEMPORAL"}
    assert len(CASES) >= 40


def test_graph_is_present(neo4j_graph: Driver) -> None:
    assert count_test_graph(neo4j_graph) > 40


PREDICATES = [
    "t_from < '2021-06-01'",
    "t_to IS NULL",
    "t_to IS NOT NULL AND t_to > '2021-12-31'",
    "confidence >= 0.8",
    "NOT (confidence BETWEEN 0.7 AND 0.95)",
    "property IN ('tqx_city', 'tqx_age')",
    "value_json LIKE '%a%'",
    "julianday(coalesce(t_to, '2024-01-01')) - julianday(t_from) > 365",
    "strftime('%Y', t_from) >= '2021'",
    "event_id IS NULL OR evidence_id IS NULL",
    "length(value_json) < 5",
]
COLUMNS = ["fact_id", "property", "value_json", "t_from", "t_to", "confidence", "dtype"]
AGGREGATES = ["count(*)", "min(t_from)", "max(confidence)", "count(t_to)", "avg(confidence)"]


@st.composite
def random_selects(draw: st.DrawFn) -> str:
    where = draw(st.lists(st.sampled_from(PREDICATES), max_size=3, unique=True))
    scope = "fact_id BETWEEN 'tqx_' AND 'tqx_~'"
    condition = " AND ".join([scope, *[f"({p})" for p in where]])
    if draw(st.booleans()):
        aggs = draw(st.lists(st.sampled_from(AGGREGATES), min_size=1, max_size=3, unique=True))
        key = draw(st.sampled_from(["property", "entity_id", "dtype"]))
        return (
            f"SELECT {key}, {', '.join(aggs)} FROM facts WHERE {condition} "
            f"GROUP BY {key} ORDER BY {key}"
        )
    cols = draw(st.lists(st.sampled_from(COLUMNS), min_size=1, max_size=4, unique=True))
    distinct = draw(st.sampled_from(["", "DISTINCT "]))
    order = ", ".join(cols)
    limit = draw(st.sampled_from(["", " LIMIT 3", " LIMIT 5 OFFSET 2"]))
    return (
        f"SELECT {distinct}{', '.join(cols)} FROM facts WHERE {condition} ORDER BY {order}{limit}"
    )


@settings(
    max_examples=20,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(sql=random_selects())
def test_random_selects_agree(
    sqlite_backend: SQLiteQueryBackend,
    neo4j_backend: Neo4jQueryBackend,
    neo4j_graph: Driver,
    sql: str,
) -> None:
    ordered = "DISTINCT" not in sql or "LIMIT" in sql
    compare(sqlite_backend, neo4j_backend, neo4j_graph, sql, {}, ordered)
