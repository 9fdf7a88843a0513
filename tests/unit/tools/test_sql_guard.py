"""The SQL guard: one SELECT over allowed tables, nothing else."""

from __future__ import annotations

import pytest
from sqlglot import exp

from apexmem_neo.query.backend import ToolError
from apexmem_neo.query.graph_mapping import QUERYABLE_TABLES
from apexmem_neo.query.sql.guard import check_sql
from tests.unit.tools.hostile import REFUSED_SQL
from tests.unit.tools.shim_cases import CASES


@pytest.mark.parametrize("sql", REFUSED_SQL)
def test_hostile_sql_is_refused(sql: str) -> None:
    with pytest.raises(ToolError):
        check_sql(sql, QUERYABLE_TABLES)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_shim_cases_are_accepted(case: object) -> None:
    tree = check_sql(case.sql, QUERYABLE_TABLES)  # type: ignore[attr-defined]
    assert isinstance(tree, exp.Select | exp.Union)


def test_cte_names_are_tables_inside_their_query() -> None:
    check_sql("WITH x AS (SELECT * FROM facts) SELECT * FROM x", QUERYABLE_TABLES)
    with pytest.raises(ToolError, match="Unknown table"):
        check_sql("SELECT * FROM x", QUERYABLE_TABLES)


def test_only_the_given_tables() -> None:
    with pytest.raises(ToolError, match="Unknown table"):
        check_sql("SELECT * FROM sessions", ["facts"])


@pytest.mark.parametrize(
    ("sql", "title"),
    [
        ("", "Empty query"),
        ("SELEC 1", "SQL syntax error"),
        ("SELECT 1; SELECT 2", "Multiple statements"),
        ("SELECT * FROM facts INTERSECT SELECT * FROM facts", "Unsupported SQL"),
        ("SELECT * FROM facts WHERE fact_id = ?", "Positional parameter"),
    ],
)
def test_error_titles(sql: str, title: str) -> None:
    with pytest.raises(ToolError) as info:
        check_sql(sql, QUERYABLE_TABLES)
    assert info.value.title == title
