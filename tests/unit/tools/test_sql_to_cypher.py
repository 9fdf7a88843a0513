# ruff: noqa: E501 - a table of queries reads best one per line
"""The SQL-compat shim, without a server: translations, refusals with hints, guard agreement.

(tests/integration/tools/test_sql_shim_neo4j.py checks that the translations return the same
rows on Neo4j as the SQL does on SQLite.)
"""

from __future__ import annotations

import re

import pytest

from apexmem_neo.query.backend import ToolError
from apexmem_neo.query.cypher.guard import check_cypher
from apexmem_neo.query.shim import sql_to_cypher
from apexmem_neo.query.shim.expressions import glob_regex, like_regex
from tests.unit.tools.shim_cases import CASES


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_every_case_translates_to_guard_clean_cypher(case: object) -> None:
    translation = sql_to_cypher(case.sql)  # type: ignore[attr-defined]
    check_cypher(translation.cypher)
    assert translation.columns


def test_tables_become_labels_and_joins_become_id_equalities() -> None:
    t = sql_to_cypher(
        "SELECT e.name, f.value_json FROM facts f JOIN entities e ON e.entity_id = f.entity_id "
        "WHERE f.property = :p ORDER BY f.t_from DESC LIMIT 3"
    )
    assert t.cypher == (
        "MATCH (f:Fact), (e:Entity) WHERE f.t_from IS NOT NULL AND e.entity_id = f.entity_id "
        "AND (f.property = $p) RETURN e.name AS name, f.value_json AS value_json "
        "ORDER BY f.t_from DESC LIMIT 3"
    )
    assert t.columns == ("name", "value_json")


def test_participants_are_relationships() -> None:
    t = sql_to_cypher("SELECT role FROM event_participants WHERE event_id = :e")
    assert "(:Event)-[event_participants:PARTICIPANT]->(:Entity)" in t.cypher


def test_group_by_is_a_with_step_and_having_filters_it() -> None:
    t = sql_to_cypher(
        "SELECT property, count(*) AS n FROM facts GROUP BY property HAVING count(*) > 1"
    )
    assert t.cypher == (
        "MATCH (facts:Fact) WHERE facts.t_from IS NOT NULL WITH facts.property AS _g, "
        "count(*) AS _a WHERE _a > 1 RETURN _g AS property, _a AS n"
    )


def test_left_join_is_optional_match_and_null_order_follows_sqlite() -> None:
    t = sql_to_cypher(
        "SELECT e.name, f.t_to FROM entities e LEFT JOIN facts f ON f.entity_id = e.entity_id "
        "ORDER BY f.t_to"
    )
    assert "OPTIONAL MATCH (f:Fact) WHERE f.entity_id = e.entity_id" in t.cypher
    assert t.cypher.endswith("ORDER BY CASE WHEN t_to IS NULL THEN 0 ELSE 1 END, t_to")


def test_date_functions_map_to_cypher_temporal_functions() -> None:
    t = sql_to_cypher("SELECT julianday(t_to) - julianday(t_from) AS d FROM facts")
    assert (
        "duration.inSeconds(localdatetime('1970-01-01T00:00:00'), localdatetime(facts.t_to))"
        in t.cypher
    )
    assert "/ 86400000.0" in t.cypher
    t = sql_to_cypher("SELECT date(t_from, '+7 days', 'start of month') AS d FROM facts")
    assert (
        "localdatetime.truncate('month', (localdatetime(facts.t_from) + duration({days: 7})))"
        in t.cypher
    )


@pytest.mark.parametrize(
    ("sql", "construct", "hint"),
    [
        ("SELECT row_number() OVER (ORDER BY t_from) FROM facts", "window function", "collect(f)[0]"),
        ("SELECT * FROM facts f RIGHT JOIN entities e ON e.entity_id = f.entity_id", "RIGHT JOIN", "OPTIONAL MATCH"),
        ("SELECT * FROM facts NATURAL JOIN entities", "NATURAL JOIN", "OPTIONAL MATCH"),
        ("SELECT json_extract(value_json, '$') FROM facts", "JSON", "value_json = '\"Paris\"'"),
        ("SELECT instr(name, 'a') FROM entities", "instr", "CONTAINS"),
        ("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c", "WITH RECURSIVE", "NEXT*1..5"),
        ("SELECT property, value_json FROM facts GROUP BY property", "bare column", "collect(f)[0]"),
        ("SELECT name FROM entities WHERE name LIKE :pattern", "LIKE / GLOB", "STARTS WITH"),
        ("SELECT date(t_from, 'weekday 1') FROM facts", "modifier", "duration"),
        ("SELECT strftime('%W', t_from) FROM facts", "%W", "week"),
        ("SELECT * FROM entities e LEFT JOIN (SELECT entity_id FROM facts) x ON x.entity_id = e.entity_id", "LEFT JOIN to a subquery", "OPTIONAL MATCH"),
        ("WITH c AS (SELECT text FROM turns UNION ALL SELECT text FROM c) SELECT text FROM c", "WITH RECURSIVE", "NEXT*1..5"),
    ],
)  # fmt: skip
def test_unsupported_constructs_are_named_with_a_cypher_hint(
    sql: str, construct: str, hint: str
) -> None:
    with pytest.raises(ToolError) as info:
        sql_to_cypher(sql)
    assert construct.lower() in str(info.value).lower()
    assert info.value.suggestion is not None and hint in info.value.suggestion


@pytest.mark.parametrize(
    ("sql", "title"),
    [
        ("SELECT nope FROM facts", "Unknown column"),
        ("SELECT f.nope FROM facts f", "Unknown column"),
        ("SELECT entity_id FROM facts, entities", "Ambiguous column"),
        (
            "SELECT (SELECT fact_id, property FROM facts) FROM entities",
            "Subquery returns several columns",
        ),
        ("DELETE FROM facts", "Not a SELECT"),
        ("WITH x(a, b) AS (SELECT text FROM turns) SELECT a FROM x", "CTE column count"),
        ("WITH turns AS (SELECT text FROM turns) SELECT text FROM turns", "Circular CTE"),
        ("WITH t AS (SELECT text FROM turns), turns AS (SELECT text FROM t) SELECT text FROM turns", "Circular CTE"),
        ("WITH a AS (SELECT text FROM b), b AS (SELECT text FROM a) SELECT text FROM a", "Circular CTE"),
        ("WITH x AS (SELECT (SELECT count(*) FROM x) AS n) SELECT n FROM x", "Circular CTE"),
        ("WITH x AS (SELECT 1 AS n) SELECT n FROM (WITH x AS (SELECT n FROM x) SELECT n FROM x)", "Circular CTE"),
    ],
)  # fmt: skip
def test_errors_name_the_problem(sql: str, title: str) -> None:
    with pytest.raises(ToolError) as info:
        sql_to_cypher(sql)
    assert info.value.title == title


def test_like_and_glob_patterns() -> None:
    assert like_regex("a%b_c.") == "a.*b.c\\."
    assert like_regex("50\\%%", "\\") == "50%.*"
    assert glob_regex("*[0-9]?x") == ".*[0-9].x"
    assert glob_regex("a[^b]") == "a[^b]"


def test_a_cte_column_list_renames_its_columns() -> None:
    t = sql_to_cypher("WITH x(words) AS (SELECT text FROM turns) SELECT words FROM x")
    assert "RETURN {words: text} AS x }" in t.cypher
    assert t.columns == ("words",)


def test_a_cte_may_share_a_table_name_and_read_later_ctes() -> None:
    t = sql_to_cypher("WITH turns AS (SELECT value_json AS text FROM facts) SELECT text FROM turns")
    assert "(facts:Fact)" in t.cypher and ":Turn" not in t.cypher
    t = sql_to_cypher(
        "WITH b AS (SELECT text FROM a), a AS (SELECT text FROM turns) SELECT text FROM b"
    )
    assert t.cypher.count("(turns:Turn)") == 1


SCOPED_CTES = [
    "WITH x AS (SELECT text FROM turns) SELECT text FROM x",
    "WITH turns AS (SELECT value_json AS text FROM facts) SELECT text FROM turns",
    "WITH b AS (SELECT entity_id FROM a), a AS (SELECT entity_id FROM entities) SELECT f.value_json FROM facts f JOIN b ON b.entity_id = f.entity_id",
    "WITH x(r) AS (SELECT role FROM event_participants UNION SELECT text FROM turns) SELECT r FROM x",
    "SELECT (WITH x AS (SELECT count(*) AS n FROM facts) SELECT n FROM x) AS n",
    "WITH x AS (SELECT text FROM turns) SELECT text FROM x WHERE text IN (WITH y AS (SELECT name FROM entities) SELECT name FROM y)",
]  # fmt: skip


@pytest.mark.parametrize("sql", SCOPED_CTES)
def test_every_node_pattern_of_a_cte_carries_the_scope_label(sql: str) -> None:
    cypher = sql_to_cypher(sql, "Scope_3f9a").cypher
    patterns = re.findall(r"\(\w*:[^()]*\)", cypher)
    assert patterns, cypher
    assert all(p.endswith(":Scope_3f9a)") for p in patterns), cypher
