"""Hostile queries for GraphQuery's runtime limits, and how one is measured.

Each query must be answered within its time limit (plus a second or two) and leave the server
idle soon after, with no static guard in front: ``without_static_guard`` passes the query
text through the Cypher guards unchanged (the EXPLAIN and READ-mode locks stay), so what is
measured is the runtime limits alone. The benchmark (``benchmarks.query_limits.run``) and the
integration test ``tests/integration/tools/test_query_limits.py`` share this set.
"""

from __future__ import annotations

import resource
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from typing import Any, Final, Literal
from unittest.mock import patch

from apexmem_neo.query import neo4j_backend
from apexmem_neo.query.backend import Language, QueryBackend, QueryLimits
from apexmem_neo.query.neo4j_deadline import WORKER_THREAD
from apexmem_neo.tools.graph_query import run_graph_query

LIKE_PATTERN: Final = "%_" * 11 + "%x"
"""Eleven ``%_`` and a final ``%x``: one ``.*`` per wildcard backtracks without end."""
IDLE_POLL_S: Final = 0.05
STATIC_GUARDS: Final = ("check_cypher", "scope_cypher")


@dataclass(frozen=True)
class Hostile:
    """One hostile query; ``interruptible`` is False for a single expression the server
    evaluates without checking for termination (it ends only when the expression does)."""

    name: str
    backend: Literal["neo4j", "sqlite"]
    language: Language
    query: str
    params: Mapping[str, Any] = field(default_factory=dict)
    interruptible: bool = True


def hostile_queries(gentle: bool = False) -> list[Hostile]:
    """The set; ``gentle`` shrinks the queries the server cannot interrupt (and the huge
    record) so that a run on a shared server costs it seconds, not minutes."""
    subject = "a" * (110 if gentle else 200)
    reduce_to = 200_000_000 if gentle else 1_000_000_000
    record = 3_000_000 if gentle else 30_000_000
    pad = {"pad": "p" * 20_000}
    like = f"SELECT count(*) AS n FROM turns WHERE text LIKE '{LIKE_PATTERN}'"
    return [
        Hostile("regex", "neo4j", "cypher", f"RETURN '{subject}' =~ '(.*a){{5}}b' AS m",
                interruptible=False),
        Hostile("reduce", "neo4j", "cypher",
                f"RETURN reduce(s = 0, x IN range(1, {reduce_to}) | s + x) AS s",
                interruptible=False),
        Hostile("huge_record", "neo4j", "cypher", f"RETURN range(1, {record}) AS r"),
        Hostile("query_text_1mb", "neo4j", "cypher", "RETURN 1 AS x /*" + "x" * 1_000_000 + "*/"),
        Hostile("cartesian_count", "neo4j", "cypher", "MATCH (a), (b), (c), (d) RETURN count(*)"),
        Hostile("cartesian", "neo4j", "cypher",
                "MATCH (a), (b), (c), (d) WHERE a <> d RETURN count(*) AS n"),
        Hostile("like_sql", "neo4j", "sql", like),
        Hostile("wide_rows", "neo4j", "cypher",
                "UNWIND range(1, 100000) AS x RETURN x, $pad AS pad", pad),
        Hostile("like_sql", "sqlite", "sql", like),
        Hostile("recursive_cte", "sqlite", "sql",
                "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) "
                "SELECT count(*) AS n FROM c"),
        Hostile("wide_rows", "sqlite", "sql",
                "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 100000) "
                "SELECT x, :pad AS pad FROM c", pad),
    ]  # fmt: skip


@dataclass(frozen=True)
class Measurement:
    """What one hostile query cost: seconds to the tool's answer, seconds from the answer
    until the server ran none of it any more (None: SQLite runs in process), the answer's
    first line."""

    name: str
    backend: str
    interruptible: bool
    limit_s: float
    answer_s: float
    idle_after_answer_s: float | None
    client_done_after_answer_s: float
    """Until the client's worker thread (still receiving a huge record, say) had ended."""
    rss_peak_growth_mb: float
    """Growth of the process's peak resident memory during the query (0: below an earlier
    peak)."""
    answer: str


def measure(
    hostile: Hostile,
    backend: QueryBackend,
    limits: QueryLimits,
    busy: Callable[[], bool] | None = None,
    idle_wait_s: float = 120.0,
) -> Measurement:
    """Run ``hostile`` through GraphQuery's body; then, given ``busy`` (is the server still
    running the query?), poll it until False, and wait for the client's worker threads (each
    at most ``idle_wait_s``)."""
    peak_before = _peak_rss_mb()
    started = time.monotonic()
    out = run_graph_query(backend, hostile.query, hostile.language, hostile.params, limits)
    answered = time.monotonic()
    idle = None if busy is None else _wait_until_not(busy, idle_wait_s) - answered
    client_done = _wait_until_not(_worker_alive, idle_wait_s) - answered
    return Measurement(
        hostile.name,
        hostile.backend,
        hostile.interruptible,
        limits.timeout_s,
        round(answered - started, 3),
        None if idle is None else round(idle, 3),
        round(client_done, 3),
        round(_peak_rss_mb() - peak_before, 1),
        (out.render().splitlines() or [""])[0],
    )


def _wait_until_not(condition: Callable[[], bool], at_most_s: float) -> float:
    """Poll ``condition`` until it is False or ``at_most_s`` passed; the monotonic time then."""
    deadline = time.monotonic() + at_most_s
    while condition() and time.monotonic() < deadline:
        time.sleep(IDLE_POLL_S)
    return time.monotonic()


def _worker_alive() -> bool:
    return any(t.name == WORKER_THREAD for t in threading.enumerate())


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


@contextmanager
def without_static_guard() -> Iterator[None]:
    """The Neo4j backend with its text guards passing every query through unchanged."""
    with ExitStack() as stack:
        for name in STATIC_GUARDS:
            if hasattr(neo4j_backend, name):
                stack.enter_context(patch.object(neo4j_backend, name, _unchanged))
        yield


def _unchanged(query: str, *_: Any, **__: Any) -> str:
    return query
