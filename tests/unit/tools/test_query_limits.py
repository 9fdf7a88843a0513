"""GraphQuery's limits without a server: query length, result bytes, the client deadline."""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from apexmem_neo.query.backend import (
    Example,
    Language,
    QueryResult,
    SchemaInfo,
    ToolError,
    check_query_size,
    collect_rows,
    value_size,
)
from apexmem_neo.query.neo4j_deadline import DeadlineExpired, call_with_deadline
from apexmem_neo.tools import QueryLimits, SQLiteQueryBackend, graph_query_tool, run_graph_query
from tests.unit.tools.results import error_title

WIDE_SQL = (
    "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 1000) "
    "SELECT x, :pad AS pad FROM c"
)


class UntouchableBackend:
    """A backend that fails the test if GraphQuery hands it anything."""

    name = "Untouchable"
    native_language: Language = "sql"

    def run(
        self, query: str, language: Language, params: Mapping[str, Any], limits: QueryLimits
    ) -> QueryResult:
        raise AssertionError("the query reached the backend")

    def schema(self) -> SchemaInfo:
        raise AssertionError("not used")

    def examples(self) -> Sequence[Example]:
        return ()


@pytest.mark.parametrize(
    "kwargs", [{"max_query_chars": 0}, {"max_result_bytes": 100}, {"max_rows": 0}]
)
def test_limits_refuse_nonsense(kwargs: dict[str, int]) -> None:
    with pytest.raises(ValueError):
        QueryLimits(**kwargs)


def test_a_long_query_is_refused_before_anything_reads_it() -> None:
    started = time.perf_counter()
    out = run_graph_query(UntouchableBackend(), "SELECT 1 /*" + "x" * 1_000_000 + "*/", "sql")
    assert time.perf_counter() - started < 0.5
    assert error_title(out).startswith("Query too long")
    assert "the limit is 8000" in str(out)


def test_query_size_check_counts_characters() -> None:
    limits = QueryLimits(max_query_chars=10)
    check_query_size("x" * 10, limits)
    with pytest.raises(ToolError, match="11 characters; the limit is 10"):
        check_query_size("x" * 11, limits)


def test_collect_rows_stops_at_the_row_limit_or_the_byte_cap() -> None:
    limits = QueryLimits(max_rows=3, max_result_bytes=1024)
    assert collect_rows(iter([(1,), (2,)]), limits) == ([(1,), (2,)], None)
    assert collect_rows(iter([(i,) for i in range(10)]), limits)[1] == "rows"
    wide = [("x" * 400,)] * 3
    rows, cut = collect_rows(iter(wide), limits)
    assert (len(rows), cut) == (2, "bytes")
    assert collect_rows(iter([("x" * 5000,)]), limits) == ([], "bytes")


def test_value_size_is_about_the_json_length() -> None:
    assert value_size("abc", 100) == 6
    assert value_size([1, None, {"k": "v"}], 1000) == pytest.approx(22, abs=6)
    assert value_size(2**10_000, 10**6) == pytest.approx(3012, abs=10)


def test_value_size_stops_walking_at_the_budget() -> None:
    huge = [[7] * 1000] * 10_000  # ten million numbers
    started = time.perf_counter()
    assert value_size(huge, 1000) > 1000
    assert time.perf_counter() - started < 0.1


def test_sqlite_rows_stop_at_the_byte_cap(sqlite_path: Path) -> None:
    limits = QueryLimits(max_rows=1000, max_result_bytes=20_000)
    result = SQLiteQueryBackend(sqlite_path).run(WIDE_SQL, "sql", {"pad": "p" * 1000}, limits)
    assert result.truncated and result.truncated_by == "bytes"
    assert 10 < len(result.rows) < 20
    out = run_graph_query(SQLiteQueryBackend(sqlite_path), WIDE_SQL, "sql",
                          {"pad": "p" * 1000}, limits)  # fmt: skip
    assert f"{len(result.rows)} rows shown; more exist (size limit 20 kB)" in str(out)


def test_sqlite_row_limit_is_still_named_as_such(sqlite_path: Path) -> None:
    limits = QueryLimits(max_rows=5)
    out = run_graph_query(SQLiteQueryBackend(sqlite_path), WIDE_SQL, "sql", {"pad": "p"}, limits)
    assert out.text.startswith("**5 rows shown; more exist (row limit 5).**")


def test_the_tool_description_states_the_byte_cap(sqlite_path: Path) -> None:
    doc = graph_query_tool(SQLiteQueryBackend(sqlite_path)).__doc__ or ""
    assert "200 rows, 1000 kB and 10 seconds" in doc


def test_deadline_returns_the_result_or_raises_the_error() -> None:
    assert call_with_deadline(lambda _: 42, 1.0, _fail) == 42
    empty: dict[str, int] = {}
    with pytest.raises(KeyError):
        call_with_deadline(lambda _: empty["missing"], 1.0, _fail)


def test_deadline_expires_on_time_and_tells_the_work() -> None:
    release, expired, seen = threading.Event(), threading.Event(), threading.Event()

    def stuck(cancelled: threading.Event) -> int:
        release.wait(5)
        if cancelled.is_set():
            seen.set()
        return 1

    started = time.perf_counter()
    with pytest.raises(DeadlineExpired):
        call_with_deadline(stuck, 0.2, expired.set)
    assert 0.2 <= time.perf_counter() - started < 1.0
    assert expired.is_set()
    release.set()
    assert seen.wait(2)


def _fail() -> None:
    raise AssertionError("on_expiry called without an expired deadline")
