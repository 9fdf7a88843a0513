"""GraphQuery's runtime limits on the real Neo4j and a real SQLite file, no static guard.

Each hostile query (``benchmarks.query_limits.hostile``, in its gentle sizes: the server is
shared) must be answered within its limit plus 2 s, and Neo4j must run none of it 5 s after
the answer. The regex and ``reduce`` queries are single expressions the server cannot
interrupt: for them only the answer is bounded (the static guard refuses them), so their
idle time is not asserted. The LIKE / GLOB regexes of the SQL shim are checked here against
SQLite's own answers and on a long subject.
"""

from __future__ import annotations

import logging
import random
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from neo4j import Driver

from apexmem_neo.query import neo4j_backend as neo4j_backend_module
from apexmem_neo.query.neo4j_deadline import TAG_KEY, new_tag
from apexmem_neo.query.shim.patterns import glob_regex, like_regex
from apexmem_neo.tools import Neo4jQueryBackend, QueryLimits, SQLiteQueryBackend, run_graph_query
from apexmem_neo.tools.result import ERROR_HEADING
from benchmarks.query_limits.hostile import (
    LIKE_PATTERN,
    Hostile,
    hostile_queries,
    measure,
    without_static_guard,
)

pytestmark = [pytest.mark.integration, pytest.mark.neo4j]

LIMITS = QueryLimits(timeout_s=2.0)
ANSWER_SLACK_S = 2.0
IDLE_WITHIN_S = 5.0
TAGGED_RUNNING = (
    f"SHOW TRANSACTIONS YIELD metaData WHERE metaData.{TAG_KEY} IN $tags RETURN count(*) AS n"
)
CARTESIAN = Hostile(
    "cartesian_unwind", "neo4j", "cypher",
    "UNWIND range(1, 3000) AS a UNWIND range(1, 3000) AS b UNWIND range(1, 3000) AS c "
    "RETURN count(*) AS n",
)  # fmt: skip
CASES = [*hostile_queries(gentle=True), CARTESIAN]


@pytest.fixture
def tags(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The transaction tags the Neo4j backend hands out during the test."""
    seen: list[str] = []

    def recording_tag() -> dict[str, str]:
        tag = new_tag()
        seen.append(tag[TAG_KEY])
        return tag

    monkeypatch.setattr(neo4j_backend_module, "new_tag", recording_tag)
    yield seen


def tagged_running(driver: Driver, tags: list[str]) -> bool:
    records, _, _ = driver.execute_query(TAGGED_RUNNING, tags=tags)
    return bool(records[0]["n"])


@pytest.mark.parametrize("hostile", CASES, ids=lambda h: f"{h.backend}-{h.name}")
def test_hostile_query_is_answered_in_time_and_leaves_the_server_idle(
    hostile: Hostile,
    neo4j_graph: Driver,
    sqlite_path: Path,
    tags: list[str],
) -> None:
    backend = (
        Neo4jQueryBackend(neo4j_graph)
        if hostile.backend == "neo4j"
        else SQLiteQueryBackend(sqlite_path)
    )
    busy = (lambda: tagged_running(neo4j_graph, tags)) if hostile.backend == "neo4j" else None
    with without_static_guard():
        m = measure(hostile, backend, LIMITS, busy, idle_wait_s=30.0)
    assert m.answer_s <= LIMITS.timeout_s + ANSWER_SLACK_S, m
    if busy is not None and hostile.interruptible:
        assert m.idle_after_answer_s is not None and m.idle_after_answer_s <= IDLE_WITHIN_S, m
    if hostile.name == "query_text_1mb":
        assert m.answer.startswith(f"{ERROR_HEADING} Query too long")
    if hostile.name in ("recursive_cte", "cartesian_unwind"):
        assert m.answer.startswith(f"{ERROR_HEADING} Time limit")
    if hostile.name == "wide_rows":
        assert "(size limit 1000 kB)" in m.answer


def test_neo4j_rows_stop_at_the_byte_cap(neo4j_graph: Driver) -> None:
    limits = QueryLimits(max_rows=1000, max_result_bytes=20_000)
    query = "UNWIND range(1, 1000) AS x RETURN x, $pad AS pad"
    result = Neo4jQueryBackend(neo4j_graph).run(query, "cypher", {"pad": "p" * 1000}, limits)
    assert result.truncated_by == "bytes" and 10 < len(result.rows) < 20


def test_reads_log_no_driver_warning(
    neo4j_backend: Neo4jQueryBackend, caplog: pytest.LogCaptureFixture
) -> None:
    """Deprecated functions, cartesian products, unknown names, a time limit, a row cap: the
    driver logs no warning for any of them (refusals come back as GraphQuery answers)."""
    queries = [
        "MATCH (n:Entity) RETURN id(n) AS i LIMIT 3",
        "MATCH (a:Entity), (b:Entity) RETURN count(*) AS n",
        "MATCH (f:Fact) WHERE f.tqx_no_such_key = 1 RETURN f LIMIT 1",
        "UNWIND range(1, 3000) AS a UNWIND range(1, 3000) AS b RETURN count(*) AS n",
        "UNWIND range(1, 1000) AS x RETURN x",
    ]
    with caplog.at_level(logging.DEBUG, logger="neo4j"):
        for query in queries:
            run_graph_query(neo4j_backend, query, "cypher", None, QueryLimits(timeout_s=0.5))
    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert warnings == []


def random_pairs(alphabet: str, wildcards: str, seed: int) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    chars = alphabet + wildcards
    return [
        ("".join(rng.choices(alphabet, k=rng.randint(0, 8))),
         "".join(rng.choices(chars, k=rng.randint(0, 6))))
        for _ in range(400)
    ]  # fmt: skip


@pytest.mark.parametrize("kind", ["LIKE", "GLOB"])
def test_shim_patterns_agree_with_sqlite_on_neo4j(kind: str, neo4j_graph: Driver) -> None:
    if kind == "LIKE":
        pairs = random_pairs("aAbé. É", "%_", seed=11)
        regexes = ["(?is)" + like_regex(p) for _, p in pairs]
    else:
        pairs = random_pairs("ab.-]^z", "*?[", seed=12)
        regexes = ["(?s)" + glob_regex(p) for _, p in pairs]
    with sqlite3.connect(":memory:") as connection:
        expected = [bool(connection.execute(f"SELECT ? {kind} ?", pair).fetchone()[0])
                    for pair in pairs]  # fmt: skip
    records, _, _ = neo4j_graph.execute_query(
        "UNWIND $cases AS c RETURN c[0] =~ c[1] AS m",
        cases=[[text, regex] for (text, _), regex in zip(pairs, regexes, strict=True)],
    )
    assert [r["m"] for r in records] == expected


@pytest.mark.parametrize("pattern", [LIKE_PATTERN, "%a%a%a%a%a%a%a%b", "%" + "_%" * 30 + "x"])
def test_shim_like_on_a_long_text_answers_fast(pattern: str, neo4j_graph: Driver) -> None:
    started = time.monotonic()
    records, _, _ = neo4j_graph.execute_query(
        "RETURN $s =~ $r AS m", s="a" * 100_000, r="(?is)" + like_regex(pattern)
    )
    assert records[0]["m"] is False
    assert time.monotonic() - started < 2.0
