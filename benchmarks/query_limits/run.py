"""GraphQuery under hostile queries: seconds to the answer, and until the server is idle again.

    python -m benchmarks.query_limits.run --limit 2 --publish

Neo4j is a server of the benchmark's own (data under $APEXMEM_HOME/limits-neo4j, new each run,
Bolt on 127.0.0.1:7796, borrowing the shared build), started for the run and stopped after
it, so that "idle" means what ``SHOW TRANSACTIONS`` says: no transaction but its own. The graph
is a generated timeline of a few thousand nodes and one session of long turns (the subject of
the LIKE query); SQLite holds the same graph in a temporary file. Every query goes through
GraphQuery's body with no static guard in front (``hostile.without_static_guard``). Raw
results go to benchmarks/results/query_limits.json; ``--publish`` also writes the summary
benchmarks/published/query_limits.json.
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

from neo4j import Driver, GraphDatabase
from rich.console import Console
from rich.table import Table

from apexmem_neo.ontology import GraphBatch, Session, Turn
from apexmem_neo.services.neo4j_server import private_neo4j
from apexmem_neo.settings import Settings
from apexmem_neo.store.neo4j import Neo4jGraphStore
from apexmem_neo.store.sqlite import SQLiteGraphStore
from apexmem_neo.tools import Neo4jQueryBackend, QueryBackend, QueryLimits, SQLiteQueryBackend
from benchmarks.graph.generate import Spec, generate
from benchmarks.memory import head_commit
from benchmarks.query_limits.hostile import (
    Measurement,
    hostile_queries,
    measure,
    without_static_guard,
)

ROOT: Final = Path(__file__).resolve().parents[2]
RESULTS: Final = ROOT / "benchmarks" / "results" / "query_limits.json"
PUBLISHED: Final = ROOT / "benchmarks" / "published" / "query_limits.json"
LIMITS_NEO4J_PORT: Final = 7796
GRAPH: Final = Spec(n_facts=3000, n_entities=300, n_properties=30, batch_facts=3000)
LONG_TURNS: Final = 20
LONG_TEXT_CHARS: Final = 5000
OTHER_TRANSACTIONS: Final = (
    "SHOW TRANSACTIONS YIELD currentQuery "
    "WHERE NOT currentQuery STARTS WITH 'SHOW TRANSACTIONS' RETURN count(*) AS n"
)
console = Console(width=150)


def long_turns() -> GraphBatch:
    """One session of long turns without an "x": LIKE '%_%_...%x' must scan each to fail."""
    session = Session(conversation_id="limits", seq=0, started_at="2024-01-01T00:00:00")
    turns = [
        Turn(session_id=session.session_id, seq=i, speaker="World",
             text="a" * LONG_TEXT_CHARS, anchor_datetime="2024-01-01T00:00:00")
        for i in range(LONG_TURNS)
    ]  # fmt: skip
    return GraphBatch(sessions=[session], turns=turns)


def batches() -> Iterator[GraphBatch]:
    yield from generate(GRAPH)
    yield long_turns()


@contextmanager
def limits_neo4j(settings: Settings) -> Iterator[str]:
    """The benchmark's own Neo4j on a new data directory, stopped at the end."""
    home = settings.apexmem_home / "limits-neo4j"
    service = private_neo4j(settings.apexmem_home, home, LIMITS_NEO4J_PORT)
    shutil.rmtree(service.data_dir, ignore_errors=True)
    console.print(f"starting the benchmark's Neo4j at {service.uri} (data under {home})")
    service.up()
    try:
        yield service.uri
    finally:
        service.down()


def write_graphs(driver: Driver, sqlite_path: Path) -> None:
    neo4j_store = Neo4jGraphStore(driver)
    sqlite_store = SQLiteGraphStore(sqlite_path)
    for store in (neo4j_store, sqlite_store):
        store.init_schema()
    for batch in batches():
        neo4j_store.write(batch)
        sqlite_store.write(batch)
    neo4j_store.close()
    sqlite_store.close()


def server_busy(driver: Driver) -> bool:
    """Does the server run any transaction but the one asking?"""
    records, _, _ = driver.execute_query(OTHER_TRANSACTIONS)
    return bool(records[0]["n"])


def run_all(driver: Driver, sqlite_path: Path, limits: QueryLimits) -> list[Measurement]:
    backends: dict[str, QueryBackend] = {
        "neo4j": Neo4jQueryBackend(driver),
        "sqlite": SQLiteQueryBackend(sqlite_path),
    }
    out = []
    with without_static_guard():
        for hostile in hostile_queries():
            busy = (lambda: server_busy(driver)) if hostile.backend == "neo4j" else None
            console.print(f"{hostile.backend} {hostile.name} ...")
            out.append(measure(hostile, backends[hostile.backend], limits, busy))
    return out


def show(measurements: list[Measurement]) -> None:
    table = Table(title="GraphQuery under hostile queries")
    for column in ("backend", "query", "limit s", "answer s", "idle after s", "client after s",
                   "RSS +MB", "answer"):  # fmt: skip
        table.add_column(column)
    for m in measurements:
        idle = "-" if m.idle_after_answer_s is None else f"{m.idle_after_answer_s:.2f}"
        table.add_row(m.backend, m.name, f"{m.limit_s:g}", f"{m.answer_s:.2f}", idle,
                      f"{m.client_done_after_answer_s:.2f}", f"{m.rss_peak_growth_mb:.0f}",
                      m.answer[:60])  # fmt: skip
    console.print(table)


def summary(measurements: list[Measurement], command: str) -> dict[str, Any]:
    """The published file: how it was made, and the figures its table row reads."""
    by_name = {f"{m.backend}_{m.name}": m for m in measurements}
    interruptible = [m.idle_after_answer_s or 0.0 for m in measurements if m.interruptible]
    figures = {
        "limit_s": measurements[0].limit_s,
        "queries": len(measurements),
        "max_over_limit_s": round(max(m.answer_s - m.limit_s for m in measurements), 2),
        "max_idle_interruptible_s": round(max(interruptible), 2),
        "regex_idle_s": by_name["neo4j_regex"].idle_after_answer_s,
        "reduce_idle_s": by_name["neo4j_reduce"].idle_after_answer_s,
        "huge_record_client_s": by_name["neo4j_huge_record"].client_done_after_answer_s,
        "huge_record_rss_mb": by_name["neo4j_huge_record"].rss_peak_growth_mb,
        "per_query": {k: _figures(m) for k, m in by_name.items()},
    }
    return {
        "order": 8,
        "name": "GraphQuery runtime limits under hostile queries (no static guard)",
        "command": command,
        "commit": head_commit(),
        "date": datetime.now(UTC).date().isoformat(),
        "tuned_on": "nothing: the limits are fixed (server timeout, client deadline, caps)",
        "evaluated_on": f"{len(measurements)} hostile queries (benchmarks.query_limits.hostile) "
        "on a generated graph of a few thousand nodes, Neo4j 5.26 of the benchmark's own "
        "and SQLite",
        "figures": figures,
        "table": [
            {
                "result": "GraphQuery, hostile queries, {limit_s:g} s limit ({queries} queries)",
                "figure": "answered <= {max_over_limit_s} s past the limit; server idle <= "
                "{max_idle_interruptible_s} s after the answer, except a regex / reduce the "
                "server cannot interrupt ({regex_idle_s:.0f} s / {reduce_idle_s:.0f} s); a "
                "30M-element record still costs the client {huge_record_client_s:.0f} s and "
                "{huge_record_rss_mb:.0f} MB after the answer (runtime limits alone; the "
                "scope guard every user query passes refuses all three before they run)",
            }
        ],
    }


def _figures(m: Measurement) -> dict[str, Any]:
    return {k: v for k, v in asdict(m).items() if k not in ("name", "backend", "limit_s")}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=float, default=2.0, help="GraphQuery's time limit (s)")
    parser.add_argument("--out", type=Path, default=RESULTS, help="raw results (JSON)")
    parser.add_argument("--publish", action="store_true", help=f"also write {PUBLISHED}")
    args = parser.parse_args(argv)
    limits = QueryLimits(timeout_s=args.limit)
    with (
        limits_neo4j(Settings()) as uri,
        GraphDatabase.driver(uri, auth=None) as driver,
        tempfile.TemporaryDirectory() as tmp,
    ):
        sqlite_path = Path(tmp) / "graph.sqlite3"
        write_graphs(driver, sqlite_path)
        measurements = run_all(driver, sqlite_path, limits)
    show(measurements)
    command = ".venv/bin/python -m benchmarks.query_limits.run " + " ".join(argv or [])
    result = summary(measurements, command.strip())
    args.out.parent.mkdir(parents=True, exist_ok=True)
    raw = {**result, "measurements": [asdict(m) for m in measurements]}
    args.out.write_text(json.dumps(raw, indent=2) + "\n", encoding="utf-8")
    if args.publish:
        PUBLISHED.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    console.print(f"wrote {args.out}" + (f" and {PUBLISHED}" if args.publish else ""))


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
