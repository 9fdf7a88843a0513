"""A/B: Neo4j's ingest rate and read latency under each JVM garbage collector.

The Neo4j that `apexmem services up` starts runs the collector named by APEXMEM_NEO4J_GC
(``g1`` by default, or ``parallel``). This benchmark starts the benchmark's own Neo4j
(port 7799, a new data directory) once per arm and round with that collector, warms it up
with untimed loads, then times the graph benchmark's loads of one size (five below 1M, one
at 1M) and its temporal queries on the last (a throughput collector pauses the reads too,
so both are shown).
Arms alternate ABBA across rounds so a drift in the machine's speed falls on both.

Usage (from the repo root; nothing else running):
    .venv/bin/python -m benchmarks.graph.gc_ab --size 10000 --rounds 4
Output: a table, and benchmarks/results/gc_ab_<size>.json.
"""

from __future__ import annotations

import os
import statistics
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Final

from neo4j import GraphDatabase
from rich.console import Console
from rich.table import Table

from apexmem_neo.services.neo4j_server import GC_ENV, GC_OPTIONS
from apexmem_neo.settings import Settings
from benchmarks.graph import bench
from benchmarks.graph.ab import ab_parser, parse_ab, save, summarize
from benchmarks.graph.neo4j_backend import private_server

ARMS: Final = tuple(GC_OPTIONS)
LATENCY_SAMPLES: Final = 50
YOUNG_COLLECTOR: Final = {"g1": "G1 Young Generation", "parallel": "PS Scavenge"}
"""Per arm, the young-generation collector the server's JVM must report over JMX."""
COLLECTORS_QUERY: Final = (
    "CALL dbms.queryJmx('java.lang:type=GarbageCollector,*') YIELD name RETURN name"
)


@contextmanager
def collector(arm: str) -> Iterator[None]:
    """While inside, a Neo4j started by this process runs the arm's collector."""
    previous = os.environ.get(GC_ENV)
    os.environ[GC_ENV] = arm
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop(GC_ENV, None)
        else:
            os.environ[GC_ENV] = previous


def arm_run(arm: str, size: int, warmups: int, writers: int) -> dict[str, Any]:
    """One server with the arm's collector: the graph benchmark's warm-up loads, then its
    timed loads and read latency for ``size`` (``bench.warm_up``, ``bench.bench_size``)."""
    workdir = Path(tempfile.gettempdir())
    with collector(arm), private_server(Settings()) as uri:
        bench.warm_up("neo4j", workdir, size, warmups, writers)
        measured = bench.bench_size("neo4j", size, workdir, LATENCY_SAMPLES, False, writers)
        beans = server_collectors(uri)
    if not any(f"name={YOUNG_COLLECTOR[arm]}," in bean for bean in beans):
        raise SystemExit(f"{arm}: the server's JVM reports collectors {beans}")
    return {
        "arm": arm,
        "collectors": beans,
        "loads_facts_per_s": measured["ingest"]["loads_facts_per_s"],
        "median_facts_per_s": measured["ingest"]["ingest_facts_per_s"],
        "latency_ms": measured["latency"],
    }


def server_collectors(uri: str) -> list[str]:
    """The garbage collectors the server's JVM reports over JMX."""
    with GraphDatabase.driver(uri) as driver:
        return [r["name"] for r in driver.execute_query(COLLECTORS_QUERY).records]


def run(size: int, rounds: int, warmups: int, writers: int, console: Console) -> dict[str, Any]:
    runs: list[dict[str, Any]] = []
    for r in range(rounds):
        for arm in ARMS if r % 2 == 0 else tuple(reversed(ARMS)):
            runs.append({"round": r, **arm_run(arm, size, warmups, writers)})
            console.print(f"round {r} {arm}: loads {runs[-1]['loads_facts_per_s']} facts/s")
    summary = {arm: _summary([x for x in runs if x["arm"] == arm]) for arm in ARMS}
    first, second = ARMS
    wins = sum(1 for r in range(rounds) if _median(runs, r, first) > _median(runs, r, second))
    return {
        "size": size,
        "writers": writers,
        "warmups": warmups,
        "runs": runs,
        "summary": summary,
        "rounds": rounds,
        f"rounds_{first}_faster": wins,
    }


def _median(runs: list[dict[str, Any]], r: int, arm: str) -> float:
    return float(next(x["median_facts_per_s"] for x in runs if x["round"] == r and x["arm"] == arm))


def _summary(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Every load's rate of the arm, and per temporal query the median of its runs' p50/p95."""
    rates = [rate for run in runs for rate in run["loads_facts_per_s"]]
    queries = runs[0]["latency_ms"].keys()
    latency = {
        name: {
            stat: round(statistics.median(run["latency_ms"][name][stat] for run in runs), 3)
            for stat in ("p50_ms", "p95_ms")
        }
        for name in queries
    }
    return {"facts_per_s": summarize(rates), "latency_ms": latency}


def render(console: Console, result: dict[str, Any]) -> None:
    title = f"Neo4j by garbage collector: {result['size']:,} facts, {result['writers']} writers"
    table = Table(title=f"{title} (latency p50 / p95 ms, median of runs)")
    table.add_column("metric")
    for arm in ARMS:
        table.add_column(arm, justify="right")
    rates = [result["summary"][arm]["facts_per_s"] for arm in ARMS]
    table.add_row("ingest facts/s, median", *(f"{r['median']:,.0f}" for r in rates))
    table.add_row("min - max", *(f"{r['min']:,} - {r['max']:,}" for r in rates))
    for name in result["summary"][ARMS[0]]["latency_ms"]:
        cells = (result["summary"][arm]["latency_ms"][name] for arm in ARMS)
        table.add_row(name, *(f"{c['p50_ms']} / {c['p95_ms']}" for c in cells))
    console.print(table)
    first, second = ARMS
    console.print(
        f"{first} faster in {result[f'rounds_{first}_faster']} of {result['rounds']} rounds "
        f"(median load of each run against {second}'s)"
    )


def main(argv: list[str] | None = None) -> None:
    args = parse_ab(ab_parser(__doc__, rounds=4), argv)
    console = Console()
    result = run(args.size, args.rounds, args.warmups, args.writers, console)
    render(console, result)
    save(console, args.out_dir, f"gc_ab_{args.size}.json", result)


if __name__ == "__main__":
    main()
