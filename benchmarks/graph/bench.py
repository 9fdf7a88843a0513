"""Graph store benchmark: ingest rate, temporal query latency, query plans, accuracy.

    .venv/bin/python -m benchmarks.graph.bench --backend sqlite --sizes 10000,100000,1000000
    .venv/bin/python -m benchmarks.graph.bench --backend neo4j --writers 2 --private-neo4j

For each size: a fresh store is filled from ``generate`` (validation time and write time are
measured apart; "ingest facts/s" is facts / write time: ``store.write`` with the store's own
checks, while pydantic validation of the models happens in the generator and counts only in
the end-to-end row), then each temporal query runs on random (entity, property, time)
samples for p50/p95. On SQLite every query's EXPLAIN QUERY
PLAN must use an index. On the smallest size the append-only store and the eager overwrite
baseline answer the same questions, scored against ground truth computed in plain Python
from the generated facts. Results: a rich table and benchmarks/results/graph_<backend>.json.
"""

from __future__ import annotations

import argparse
import importlib
import json
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from apexmem_neo.ontology import Fact
from apexmem_neo.settings import Settings
from apexmem_neo.store import GraphStore
from apexmem_neo.store.bulk import write_batches
from apexmem_neo.store.neo4j import Neo4jGraphStore
from apexmem_neo.store.sqlite import SQLiteGraphStore
from apexmem_neo.store.sqlite.store import QUERIES, explain
from benchmarks.graph import accuracy
from benchmarks.graph.generate import Spec, generate

RESULTS = Path(__file__).resolve().parents[1] / "results"
QUERY_NAMES = (
    "current",
    "as_of",
    "history",
    "changes",
    "before",
    "facts_between",
    "facts_between_narrow",
    "known_as_of",
)
NARROW_WINDOW_FACTS = 6
"""facts_between_narrow asks for a window holding about this many of the entity's facts at
every size, so its latency compares equal answers: an index seek stays flat as the store
grows, a scan would not. facts_between (from t to the end of t's year) answers with more
rows as timelines grow denser (~1k facts per entity at 1M)."""


def open_store(backend: str, workdir: Path, size: int, attempt: int = 0) -> GraphStore:
    if backend == "sqlite":
        return SQLiteGraphStore(workdir / f"graph_{size}_{attempt}.sqlite3")
    if backend == "neo4j":
        # Configuration at the edge (NEO4J_URI, NEO4J_AUTH); each size starts empty.
        module: Any = importlib.import_module("benchmarks.graph.neo4j_backend")
        store: GraphStore = module.fresh_store()
        return store
    raise SystemExit(f"unknown backend {backend!r} (sqlite | neo4j)")


def ingest(
    store: GraphStore, spec: Spec, keep_facts: bool, writers: int = 1
) -> tuple[dict[str, Any], list[Fact]]:
    """Fill ``store`` through ``write_batches``; returns timings and (when asked) the facts.

    The batches are generated and validated first (timed apart), so the write figure is the
    store's alone, with ``writers`` transactions in flight (1M facts fit in memory here).
    """
    t0 = time.perf_counter()
    batches = list(generate(spec))
    build = time.perf_counter() - t0
    c0, steal0 = time.process_time(), cpu_steal_jiffies()
    report = write_batches(store, batches, writers=writers)
    seconds = report.seconds + _checkpoint_seconds(store)
    write_cpu = time.process_time() - c0
    steal = steal_percent(steal0, cpu_steal_jiffies())
    n_facts = report.facts
    stats = {
        "facts": n_facts,
        "events": sum(len(batch.events) for batch in batches),
        "writers": writers,
        "write_s": round(seconds, 3),
        # CPU of this process during the writes: all of SQLite's work, only the driver's
        # side for Neo4j. On a shared machine, facts per CPU-second is the steadier figure.
        "write_cpu_s": round(write_cpu, 3),
        # Share of the machine's CPU time the hypervisor gave to other guests during the
        # writes (/proc/stat "steal"; None off Linux): a VM's cores are not all ours.
        "cpu_steal_pct": steal,
        "facts_per_write_cpu_s": round(n_facts / max(write_cpu, 1e-9)),
        "build_validate_s": round(build, 3),
        "ingest_facts_per_s": round(n_facts / seconds),
        "end_to_end_facts_per_s": round(n_facts / (seconds + build)),
    }
    kept = [fact for batch in batches for fact in batch.facts] if keep_facts else []
    return stats, kept


def cpu_steal_jiffies() -> tuple[int, int] | None:
    """(steal, total) jiffies of all CPUs since boot, from /proc/stat; None where absent."""
    try:
        fields = Path("/proc/stat").read_text().splitlines()[0].split()[1:]
    except OSError:
        return None
    ticks = [int(x) for x in fields[:8]]  # user nice system idle iowait irq softirq steal
    return ticks[7], sum(ticks)


def steal_percent(before: tuple[int, int] | None, after: tuple[int, int] | None) -> float | None:
    if before is None or after is None or after[1] == before[1]:
        return None
    return round(100 * (after[0] - before[0]) / (after[1] - before[1]), 1)


def _checkpoint_seconds(store: GraphStore) -> float:
    """SQLite: the final WAL checkpoint, counted as part of the write (the load is not done
    until the database file holds it). Other stores: nothing to add."""
    if not isinstance(store, SQLiteGraphStore):
        return 0.0
    t0 = time.perf_counter()
    store.checkpoint()
    return time.perf_counter() - t0


def samples(store: GraphStore, spec: Spec, n: int, rng: random.Random) -> list[dict[str, Any]]:
    """Random (entity, property, t, event) samples drawn from stored histories."""
    from benchmarks.graph.generate import make_entities, make_properties

    entities = make_entities(spec.n_entities)
    props = make_properties(spec.n_properties, random.Random(spec.seed))
    out: list[dict[str, Any]] = []
    while len(out) < n:
        e, p = rng.choice(entities).entity_id, rng.choice(props).name
        history = store.history(e, p)
        if not history:
            continue
        pick = rng.choice(history)
        t = pick.t_from
        out.append(
            {
                "e": e,
                "p": p,
                "t": t,
                "t_narrow": narrow_window_end(store, e, t),
                "event": pick.event_id,
                "r": pick.recorded_at,
            }
        )
    return out


def narrow_window_end(store: GraphStore, entity_id: str, t: str) -> str:
    """The end of a window from ``t`` that holds about NARROW_WINDOW_FACTS of the entity's
    facts (fewer at the end of its timeline)."""
    year_end = t[:4] + "-12-31T23:59:59"
    later = sorted(f.t_from for f in store.facts_between(entity_id, t, year_end))
    if len(later) < NARROW_WINDOW_FACTS:
        later = sorted(f.t_from for f in store.facts_between(entity_id, t, "9999-12-31"))
    return later[min(NARROW_WINDOW_FACTS, len(later)) - 1]


def run_query(store: GraphStore, name: str, s: dict[str, Any]) -> object:
    e, p, t = s["e"], s["p"], s["t"]
    calls: dict[str, Callable[[], object]] = {
        "current": lambda: store.current(e, p),
        "as_of": lambda: store.as_of(e, p, t),
        "history": lambda: store.history(e, p),
        "changes": lambda: store.changes(e, p),
        "before": lambda: store.before(e, p, s["event"] or t),
        "facts_between": lambda: store.facts_between(e, t, t[:4] + "-12-31T23:59:59"),
        "facts_between_narrow": lambda: store.facts_between(e, t, s["t_narrow"]),
        "known_as_of": lambda: store.known_as_of(e, p, s["r"]),
    }
    return calls[name]()


def latencies(store: GraphStore, picks: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """p50/p95 per query, and the mean rows it returned: history and facts_between answer
    with more rows as the store grows (~1k facts per entity at 1M), so their latency grows
    with the answer even on an index seek. The queries take turns sample by sample, so a
    slow spell of a shared machine falls on all of them, not on whichever ran then."""
    times: dict[str, list[float]] = {name: [] for name in QUERY_NAMES}
    returned: dict[str, list[int]] = {name: [] for name in QUERY_NAMES}
    for s in picks:
        for name in QUERY_NAMES:
            t0 = time.perf_counter_ns()
            answer = run_query(store, name, s)
            times[name].append((time.perf_counter_ns() - t0) / 1e6)
            rows = len(answer) if isinstance(answer, list) else int(answer is not None)
            returned[name].append(rows)
    return {name: latency_summary(times[name], returned[name]) for name in QUERY_NAMES}


def latency_summary(times: list[float], returned: list[int]) -> dict[str, float]:
    cuts = statistics.quantiles(times, n=100)
    return {
        "p50_ms": round(cuts[49], 3),
        "p95_ms": round(cuts[94], 3),
        "rows_mean": round(statistics.fmean(returned), 1),
    }


def query_plans(store: GraphStore, pick: dict[str, Any]) -> dict[str, dict[str, Any]]:
    if isinstance(store, Neo4jGraphStore):  # the benchmark's own subclass too
        module: Any = importlib.import_module("benchmarks.graph.neo4j_backend")
        neo4j_plans: dict[str, dict[str, Any]] = module.query_plans(store, pick)
        return neo4j_plans
    if not isinstance(store, SQLiteGraphStore):
        return {}
    params = {"e": pick["e"], "p": pick["p"], "t": pick["t"], "t1": pick["t"], "t2": pick["t"]}
    params["r"] = pick["r"]
    plans = {}
    for name, sql in QUERIES.items():
        needed = {k: v for k, v in params.items() if f":{k}" in sql}
        plan = explain(store.connection, sql, needed)
        uses_index = "USING INDEX" in plan or "USING COVERING INDEX" in plan
        plans[name] = {"plan": plan, "uses_index": uses_index and "SCAN facts" not in plan}
    return plans


WARMUP_LOADS = {"neo4j": 15, "sqlite": 0}
"""Untimed loads of the smallest size before the first timed one, kept out of the results
(the least; Neo4j goes on until its rate is steady, see ``warm_up_until_steady``).
The Neo4j server is a JVM whose JIT compiles the write path during the first loads. In this
benchmark's run on a new server (``--private-neo4j``, two writers, 2026-12-02, 38b7265) the
15 warm-up loads of 10k facts ran 2.0k, 4.8k, 4.9k, 6.7k, 6.3k, 7.9k, then 5.1k-8.0k, and
the timed ones 7.6k-9.0k; a scratch run of 30 loads on another new server climbed to
9.5k-10.3k by loads 9-13 and a median ~12k over loads 14-30. Three warm-ups (the earlier
default) left the smallest size measuring that climb. Their rates are kept in the results
JSON ("warmup") and printed, so the cold-start figures stay in view. SQLite needs none."""
MAX_WARMUP_LOADS = 60
"""Neo4j's warm-up stops here even if its rate still climbs (~2 min of 10k loads)."""
STEADY_WINDOW = 5
STEADY_GAIN = 1.05
"""The rate is steady once the median of the last ``STEADY_WINDOW`` warm-up loads is at most
5% above the median of the ``STEADY_WINDOW`` before them. Why not a fixed 15: the loads
after it can still be climbing, and how long the JIT takes depends on the machine. With this
rule the warm-up stopped after 16-18 loads in three runs on 2026-12-03 (their rates are in
the results JSON), levelling off near 10.5k facts/s in one and near 7k in another: the VM's
speed moved more than the warm-up did."""
WARMUP_ATTEMPTS_FROM = 100
"""Warm-up loads count their attempts from here, so their SQLite files differ from the
timed loads' (``open_store`` names a file per size and attempt)."""


def warm_up(backend: str, workdir: Path, size: int, loads: int, writers: int) -> list[int]:
    """``loads`` loads of ``size`` facts into fresh stores, kept out of the results; their
    facts/s."""
    spec = Spec(n_facts=size, batch_facts=batch_facts(size))
    attempts = range(WARMUP_ATTEMPTS_FROM, WARMUP_ATTEMPTS_FROM + loads)
    return [timed_load(backend, workdir, spec, writers, n)["ingest_facts_per_s"] for n in attempts]


def is_steady(rates: list[int]) -> bool:
    """The last ``STEADY_WINDOW`` loads no faster (within ``STEADY_GAIN``) than the ones before."""
    if len(rates) < 2 * STEADY_WINDOW:
        return False
    last = statistics.median(rates[-STEADY_WINDOW:])
    before = statistics.median(rates[-2 * STEADY_WINDOW : -STEADY_WINDOW])
    return last <= before * STEADY_GAIN


def warm_up_until_steady(
    backend: str, workdir: Path, size: int, min_loads: int, writers: int
) -> list[int]:
    """At least ``min_loads`` untimed loads of ``size`` facts, then more until the rate is
    steady (``is_steady``) or ``MAX_WARMUP_LOADS`` ran; their facts/s."""
    rates: list[int] = []
    while len(rates) < MAX_WARMUP_LOADS and (len(rates) < min_loads or not is_steady(rates)):
        attempt = WARMUP_ATTEMPTS_FROM + len(rates)
        spec = Spec(n_facts=size, batch_facts=batch_facts(size))
        rates.append(timed_load(backend, workdir, spec, writers, attempt)["ingest_facts_per_s"])
    return rates


def batch_facts(size: int) -> int:
    return min(10_000, max(1000, size // 10))


def load_attempts(size: int) -> int:
    """Fresh loads per size: a 10k load takes 0.2 s (SQLite) to 1 s (Neo4j), where one
    scheduler hiccup moves the rate by a third, so smaller sizes report the median of five
    (three until 2026-12-03: on Neo4j, loads of the same 10k facts a minute apart ranged
    from 8k to 14k facts/s, see write_ab's results); 1M once."""
    return 1 if size >= 1_000_000 else 5


def bench_size(
    backend: str, size: int, workdir: Path, n_samples: int, with_accuracy: bool, writers: int
) -> dict[str, Any]:
    spec = Spec(n_facts=size, batch_facts=batch_facts(size))
    attempts = load_attempts(size)
    loads = [timed_load(backend, workdir, spec, writers, n) for n in range(attempts - 1)]
    store = open_store(backend, workdir, size, attempts - 1)
    store.init_schema()
    try:
        stats, facts = ingest(store, spec, keep_facts=with_accuracy, writers=writers)
        latency_etc = queries(store, spec, facts, n_samples)
        return {"size": size, "ingest": median_load([*loads, stats]), **latency_etc}
    finally:
        store.close()


def timed_load(
    backend: str, workdir: Path, spec: Spec, writers: int, attempt: int
) -> dict[str, Any]:
    """One more timed load into a fresh store, for the median; the store is not queried."""
    store = open_store(backend, workdir, spec.n_facts, attempt)
    store.init_schema()
    try:
        return ingest(store, spec, keep_facts=False, writers=writers)[0]
    finally:
        store.close()


def median_load(loads: list[dict[str, Any]]) -> dict[str, Any]:
    """The load with the median write rate, plus every load's rate."""
    ranked = sorted(loads, key=lambda load: load["ingest_facts_per_s"])
    return {
        **ranked[len(ranked) // 2],
        "loads_facts_per_s": [x["ingest_facts_per_s"] for x in loads],
    }


def queries(store: GraphStore, spec: Spec, facts: list[Fact], n_samples: int) -> dict[str, Any]:
    """Latency, plans and (when ``facts`` are kept) accuracy on the loaded store."""
    picks = samples(store, spec, n_samples, random.Random(spec.n_facts))
    result: dict[str, Any] = {
        "latency": latencies(store, picks),
        "plans": query_plans(store, picks[0]),
    }
    if facts:
        result["accuracy"] = accuracy.score(store, facts, random.Random(1))
    return result


def render(console: Console, backend: str, results: list[dict[str, Any]]) -> None:
    writers = results[0]["ingest"]["writers"] if results else 1
    table = Table(title=f"graph store: {backend}, {writers} writer(s) (latency p50 / p95 in ms)")
    table.add_column("metric")
    for r in results:
        table.add_column(f"{r['size']:,} facts", justify="right")
    table.add_row(
        "ingest facts/s (write)", *(f"{r['ingest']['ingest_facts_per_s']:,}" for r in results)
    )
    table.add_row(
        "CPU steal % during the write (hypervisor)",
        *(str(r["ingest"].get("cpu_steal_pct")) for r in results),
    )
    table.add_row(
        "facts per CPU-s of this process (write)",
        *(f"{r['ingest']['facts_per_write_cpu_s']:,}" for r in results),
    )
    table.add_row(
        "end-to-end facts/s (validate + write)",
        *(f"{r['ingest']['end_to_end_facts_per_s']:,}" for r in results),
    )
    for name in QUERY_NAMES:
        table.add_row(
            f"{name} (mean rows)",
            *(
                f"{r['latency'][name]['p50_ms']} / {r['latency'][name]['p95_ms']}"
                f" ({r['latency'][name]['rows_mean']})"
                for r in results
            ),
        )
    table.add_row(
        "EXPLAIN: every query uses an index",
        *(
            str(all(p["uses_index"] for p in r["plans"].values())) if r["plans"] else "n/a"
            for r in results
        ),
    )
    console.print(table)
    for r in results:
        if "accuracy" in r:
            console.print(accuracy.table(r["accuracy"], r["size"]))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--backend", default="sqlite", choices=["sqlite", "neo4j"])
    parser.add_argument("--sizes", default="10000,100000,1000000")
    parser.add_argument("--samples", type=int, default=500)
    parser.add_argument("--workdir", type=Path, default=None)
    parser.add_argument(
        "--writers", type=int, default=1, help="transactions in flight (Neo4j only above 1)"
    )
    parser.add_argument(
        "--warmup-loads",
        type=int,
        default=None,
        help="untimed loads of the smallest size first (default: sqlite 0; neo4j at least"
        " 15, then until the rate is steady, at most 60)",
    )
    parser.add_argument(
        "--private-neo4j",
        action="store_true",
        help="run on the benchmark's own Neo4j with a new, empty data directory (port"
        " 7799, stopped at the end) instead of wiping the one at NEO4J_URI",
    )
    args = parser.parse_args(argv)
    if args.private_neo4j and args.backend != "neo4j":
        parser.error("--private-neo4j needs --backend neo4j")
    with ExitStack() as stack:
        if args.private_neo4j:  # only with --backend neo4j (checked above)
            module: Any = importlib.import_module("benchmarks.graph.neo4j_backend")
            stack.enter_context(module.private_server(Settings()))
        run(args)


def _neo4j_server(args: argparse.Namespace) -> str | None:
    """Which Neo4j the results come from (None for SQLite)."""
    if args.backend != "neo4j":
        return None
    return "private, new data directory" if args.private_neo4j else "NEO4J_URI, wiped"


def _warm_up(
    args: argparse.Namespace, console: Console, workdir: Path, size: int, loads: int
) -> list[int]:
    """``--warmup-loads`` given: that many loads. Otherwise (Neo4j) until the rate is steady."""
    if args.warmup_loads is not None:
        console.print(f"[bold]{args.backend}[/]: {loads} warm-up loads of {size:,} ...")
        return warm_up(args.backend, workdir, size, loads, args.writers)
    console.print(
        f"[bold]{args.backend}[/]: warm-up loads of {size:,} until the rate is steady"
        f" ({loads} to {MAX_WARMUP_LOADS}) ..."
    )
    return warm_up_until_steady(args.backend, workdir, size, loads, args.writers)


def run(args: argparse.Namespace) -> None:
    sizes = [int(s) for s in args.sizes.split(",") if s]
    warmups = WARMUP_LOADS[args.backend] if args.warmup_loads is None else args.warmup_loads
    console = Console()
    with tempfile.TemporaryDirectory(prefix="apexmem-bench-") as tmp:
        workdir = args.workdir or Path(tmp)
        warmup = {"size": min(sizes), "loads_facts_per_s": []}
        if warmups:
            warmup["loads_facts_per_s"] = _warm_up(args, console, workdir, min(sizes), warmups)
            console.print(
                f"warm-up loads (facts/s, not in the results): {warmup['loads_facts_per_s']}"
            )
        results = []
        for size in sizes:
            console.print(f"[bold]{args.backend}[/]: {size:,} facts ...")
            results.append(
                bench_size(
                    args.backend, size, workdir, args.samples, size == min(sizes), args.writers
                )
            )
    render(console, args.backend, results)
    RESULTS.mkdir(parents=True, exist_ok=True)
    suffix = f"_{args.writers}writers" if args.writers > 1 else ""
    out = RESULTS / f"graph_{args.backend}{suffix}.json"
    payload = {
        "backend": args.backend,
        "writers": args.writers,
        "warmup": warmup,
        "neo4j": _neo4j_server(args),
        "results": results,
    }
    out.write_text(json.dumps(payload, indent=2) + "\n")
    console.print(f"wrote {out}")


if __name__ == "__main__":
    main()
