"""A/B: what a (Fact)-[:OF_PROPERTY]->(Property) edge per fact costs Neo4j's ingest.

Until 2026-12-03 every fact was written with an edge to its Property node (~100 shared
nodes, so each one a supernode). This benchmark re-adds that edge to today's write_facts
query in one arm ("edge") and loads the graph benchmark's data with both arms, alternating,
on a Neo4j of its own (port 7799, a new data directory, stopped at the end). Each load goes
into an emptied store and is checked to hold every fact. Arms alternate (ABBA) so a drift
in the machine's speed falls on both.

Usage (from the repo root; nothing else running):
    .venv/bin/python -m benchmarks.graph.property_edge_ab --size 10000 --rounds 6 --warmups 16
Output: a table, and benchmarks/results/property_edge_ab_<size>.json.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Final

from rich.console import Console
from rich.table import Table

from apexmem_neo.settings import Settings
from apexmem_neo.store.neo4j import cypher_files
from benchmarks.graph import bench
from benchmarks.graph.generate import Spec
from benchmarks.graph.neo4j_backend import private_server
from benchmarks.memory import RESULTS

ARMS: Final = ("today", "edge")
PROPERTY_LOOKUP: Final = (
    "UNWIND g.rows AS row\n",
    "UNWIND g.rows AS row\nMATCH (p:Property {property_id: row.property_id})\n",
)
PROPERTY_EDGE: Final = (
    "CREATE (f)-[:ABOUT]->(e)\n",
    "CREATE (f)-[:ABOUT]->(e)\nCREATE (f)-[:OF_PROPERTY]->(p)\n",
)


def with_property_edge(text: str) -> str:
    """write_facts as it was before 2026-12-03: each new fact's Property looked up by its id
    and linked by an edge."""
    for line, replacement in (PROPERTY_LOOKUP, PROPERTY_EDGE):
        if text.count(line) != 1:
            raise SystemExit(f"write_facts.cypher changed: {line.strip()!r} is not there once")
        text = text.replace(line, replacement)
    return text


@contextmanager
def arm_queries(arm: str) -> Iterator[None]:
    """While inside, the store's write_facts is the arm's (the store reads queries through
    ``cypher_files.query``)."""
    original: Callable[[str], str] = cypher_files.query

    def query(name: str) -> str:
        text = original(name)
        return with_property_edge(text) if arm == "edge" and name == "write_facts" else text

    cypher_files.query = query  # type: ignore[assignment]
    try:
        yield
    finally:
        cypher_files.query = original  # type: ignore[assignment]


def one_load(arm: str, size: int, writers: int) -> dict[str, Any]:
    with arm_queries(arm):
        store = bench.open_store("neo4j", Path(tempfile.gettempdir()), size)
        store.init_schema()
        try:
            spec = Spec(n_facts=size, batch_facts=bench.batch_facts(size))
            stats, _ = bench.ingest(store, spec, keep_facts=False, writers=writers)
            # No type named: Neo4j warns about a type it has never held (a new server).
            edges = store.driver.execute_query(
                "MATCH (:Fact)-[r]->(:Property) RETURN count(r) AS n"
            ).records[0]["n"]
            stored = store.counts().facts
        finally:
            store.close()
    expected_edges = size if arm == "edge" else 0
    if stored != size or edges != expected_edges:
        raise SystemExit(
            f"{arm}: stored {stored} facts and {edges} Property edges; "
            f"expected {size} and {expected_edges}"
        )
    return {"arm": arm, "facts_per_s": stats["ingest_facts_per_s"], "steal": stats["cpu_steal_pct"]}


def run(size: int, rounds: int, warmups: int, writers: int, console: Console) -> dict[str, Any]:
    loads: list[dict[str, Any]] = []
    with private_server(Settings()):
        warm = [one_load(ARMS[i % 2], size, writers)["facts_per_s"] for i in range(warmups)]
        console.print(f"warm-up loads (facts/s): {warm}")
        for r in range(rounds):
            for arm in ARMS if r % 2 == 0 else reversed(ARMS):
                loads.append({"round": r, **one_load(arm, size, writers)})
                console.print(f"round {r} {arm}: {loads[-1]['facts_per_s']} facts/s")
    summary = {arm: summarize([x["facts_per_s"] for x in loads if x["arm"] == arm]) for arm in ARMS}
    wins = sum(1 for r in range(rounds) if _rate(loads, r, "today") > _rate(loads, r, "edge"))
    return {"size": size, "writers": writers, "warmups": warm, "loads": loads,
            "summary": summary, "rounds_today_faster": wins, "rounds": rounds}  # fmt: skip


def _rate(loads: list[dict[str, Any]], r: int, arm: str) -> int:
    return int(next(x["facts_per_s"] for x in loads if x["round"] == r and x["arm"] == arm))


def summarize(rates: list[int]) -> dict[str, Any]:
    return {"median": statistics.median(rates), "min": min(rates), "max": max(rates)}


def render(console: Console, result: dict[str, Any]) -> None:
    table = Table(title=f"Neo4j ingest, {result['size']} facts, {result['writers']} writers")
    for column in ("arm", "median facts/s", "min", "max"):
        table.add_column(column)
    for arm, s in result["summary"].items():
        table.add_row(arm, f"{s['median']:,.0f}", f"{s['min']:,}", f"{s['max']:,}")
    console.print(table)
    console.print(
        f"today faster in {result['rounds_today_faster']} of {result['rounds']} rounds "
        "(edge = a Property edge per fact, as before 2026-12-03)"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--warmups", type=int, default=16)
    parser.add_argument("--writers", type=int, default=2)
    parser.add_argument("--out-dir", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    console = Console()
    result = run(args.size, args.rounds, args.warmups, args.writers, console)
    render(console, result)
    args.out_dir.mkdir(parents=True, exist_ok=True)
    out = args.out_dir / f"property_edge_ab_{args.size}.json"
    out.write_text(json.dumps(result, indent=2))
    console.print(f"written to {out}")


if __name__ == "__main__":
    main()
