"""A/B: today's Neo4j write path against an earlier variant of it, on the graph benchmark's data.

Each variant puts back one thing the write path did before a measured change:
- ``property_edge``: every new fact linked to its Property node by an OF_PROPERTY edge
  (~100 shared nodes, each one a supernode), as until 2026-12-03;
- ``entity_merge``: entities and properties MERGEd row by row (a locking index lookup per
  row, ~1k entities per bulk batch), instead of one read of the stored ids and CREATE for
  the rest, as until 2026-12-03;
- ``existence_lookup``: events and facts looked up by id before they are CREATEd (two more
  index reads and round trips per batch), as until 2026-12-03 (today: CREATE, and a batch
  holding a stored id is re-run with MERGE);
- ``replan``: the write queries without ``CYPHER replan=skip``, so Neo4j re-plans them
  whenever the store's counts have moved enough, as until 2026-12-03;
- ``row_repr``: the rows passed as plain lists, whose ``repr`` the driver builds for its
  debug log on every RUN even with debug logging off, as until 2026-12-03 (today: a list
  whose repr is its length);
- ``unscoped_facts``: facts created without the ``Scope_`` label and linked without the
  scope checks on their Entity, Event and Evidence, as before scopes (2026-12-04; a
  diagnostic of what scopes cost the write path, not a store variant to go back to);
- ``unscoped``: the whole write path without scopes (no ``Scope_`` label, no scope checks
  in lookups and links, no ``scope`` property), the write path of the commit before scopes
  on today's store; a diagnostic of what scopes cost, not a store variant to go back to;
- ``definitions_with_facts``: the generator's entities and properties in its first batch
  of facts rather than a batch of their own, as until 2026-12-03 (every later batch waits
  for that one, so the second writer idles while it runs).
The two arms ("today" and the variant) load alternating ABBA on a Neo4j of its own (port
7799, a new data directory, stopped at the end), each load into an emptied store, checked to
hold every fact, every entity and the arm's Property edges, so a drift in the machine's
speed falls on both arms.

Usage (from the repo root; nothing else running):
    .venv/bin/python -m benchmarks.graph.write_ab --variant entity_merge --size 10000
Output: a table, and benchmarks/results/write_ab_<variant>_<size>.json. With
``--query-times``, also how long each write-path query took per load in each arm (the time
inside the transaction, per query file; the commit is what is left of a load).
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from typing import Any, Final, NamedTuple

from rich.console import Console
from rich.table import Table

from apexmem_neo.ontology import GraphBatch
from apexmem_neo.settings import Settings
from apexmem_neo.store import columns
from apexmem_neo.store.neo4j import cypher_files
from apexmem_neo.store.neo4j import store as neo4j_store
from benchmarks.graph import bench
from benchmarks.graph.ab import ab_parser, parse_ab, save, summarize
from benchmarks.graph.generate import Spec
from benchmarks.graph.neo4j_backend import fresh_store, private_server

TODAY: Final = "today"
PROPERTY_LOOKUP: Final = (
    "UNWIND g.rows AS row\n",
    "UNWIND g.rows AS row\nMATCH (p:Property {property_id: row.property_id})\n",
)
PROPERTY_EDGE: Final = (
    "CREATE (f)-[:ABOUT]->(e)\n",
    "CREATE (f)-[:ABOUT]->(e)\nCREATE (f)-[:OF_PROPERTY]->(p)\n",
)
EDGES_QUERY: Final = "MATCH (:Fact)-[r]->(:Property) RETURN count(r) AS n"
"""No type named: Neo4j warns about a relationship type it has never held (a new server)."""


def with_property_edge(text: str) -> str:
    """write_facts as it was before 2026-12-03: each new fact's Property looked up by its id
    and linked by an edge."""
    for line, replacement in (PROPERTY_LOOKUP, PROPERTY_EDGE):
        if text.count(line) != 1:
            raise SystemExit(f"write_facts.cypher changed: {line.strip()!r} is not there once")
        text = text.replace(line, replacement)
    return text


@contextmanager
def property_edge() -> Iterator[None]:
    """While inside, the store's write_facts links each new fact to its Property (the store
    reads queries through ``cypher_files.query``)."""
    original: Callable[[str], str] = cypher_files.query

    def query(name: str) -> str:
        text = original(name)
        return with_property_edge(text) if name == "write_facts" else text

    cypher_files.query = query  # type: ignore[assignment]
    try:
        yield
    finally:
        cypher_files.query = original  # type: ignore[assignment]


UNSCOPED_FACTS: Final = (
    (" WHERE e.scope = $scope", ""),
    (" WHERE ev.scope = $scope", ""),
    (" WHERE v.scope = $scope", ""),
    ("CREATE (f:Fact:$($label) {", "CREATE (f:Fact {"),
)


@contextmanager
def unscoped_facts() -> Iterator[None]:
    """While inside, write_facts neither labels new facts with their scope nor checks the
    scope of the nodes it links them to."""
    original: Callable[[str], str] = cypher_files.query

    def query(name: str) -> str:
        text = original(name)
        if name != "write_facts":
            return text
        for line, replacement in UNSCOPED_FACTS:
            if text.count(line) != 1:
                raise SystemExit(f"write_facts.cypher changed: {line!r} is not there once")
            text = text.replace(line, replacement)
        return text

    cypher_files.query = query  # type: ignore[assignment]
    try:
        yield
    finally:
        cypher_files.query = original  # type: ignore[assignment]


SCOPE_TEXT: Final = (
    (re.compile(r", \w+:\$\(\$label\)"), ""),  # ON CREATE SET n += row, n:$($label)
    (re.compile(r":\$\(\$label\)"), ""),  # CREATE (n:Label:$($label))
    (re.compile(r" WHERE \w+\.scope = [\w.$]+$", re.MULTILINE), ""),  # a scope check alone
    (re.compile(r"\w+\.scope = \w+\.scope AND "), ""),  # a scope check before others
    (re.compile(r",\s*\w+\.scope = row\.scope"), ""),  # ON CREATE SET r.scope = row.scope
    (re.compile(r",\s*scope: row\.scope"), ""),  # {..., scope: row.scope}
)
"""What the unscoped variant cuts from every query text: the scope label, checks and
property (checked to leave no ``scope`` behind in a write query)."""


def without_scope(name: str, text: str) -> str:
    """``text`` with ``SCOPE_TEXT`` cut; a write-path query left naming a scope is an error."""
    for pattern, replacement in SCOPE_TEXT:
        text = pattern.sub(replacement, text)
    if "scope" in cypher_files.strip_comments(text) and name in UNSCOPED_QUERIES:
        raise SystemExit(f"{name}.cypher changed: a scope is left in it after the cuts")
    return text


UNSCOPED_QUERIES: Final = frozenset(
    {*neo4j_store.WRITE_QUERIES.values(), *neo4j_store.MERGE_QUERIES.values(),
     *neo4j_store.EXISTING_QUERIES.values(), "existing_property_ids", "write_entities_new",
     "write_properties_new", "write_events_links", "write_participants_new", "link_turns"}
)  # fmt: skip
"""The write path's queries (the unscoped variant checks that none names a scope after it)."""


@contextmanager
def unscoped() -> Iterator[None]:
    """While inside, the store writes no scope: every query through ``without_scope`` and
    rows without their ``scope`` column (dropped in one more pass over the rows, which this
    arm pays and the commit before scopes did not)."""
    original_query: Callable[[str], str] = cypher_files.query
    original_columns = columns.batch_columns

    def query(name: str) -> str:
        return without_scope(name, original_query(name))

    def batch_columns(batch: GraphBatch, default: str) -> dict[str, list[columns.Row]]:
        tables = original_columns(batch, default)
        return {t: [{k: v for k, v in r.items() if k != "scope"} for r in rows]
                for t, rows in tables.items()}  # fmt: skip

    cypher_files.query = query  # type: ignore[assignment]
    columns.batch_columns = batch_columns  # type: ignore[assignment]
    try:
        yield
    finally:
        cypher_files.query = original_query  # type: ignore[assignment]
        columns.batch_columns = original_columns


@contextmanager
def entity_merge() -> Iterator[None]:
    """While inside, entities and properties go through their MERGE queries (the store
    takes the CREATE path only for tables in ``CREATE_NEW``)."""
    taken = {t: neo4j_store.CREATE_NEW.pop(t) for t in ("entities", "properties")}
    try:
        yield
    finally:
        neo4j_store.CREATE_NEW.update(taken)


EXISTING_FACT_IDS: Final = "UNWIND $ids AS id\nMATCH (n:Fact {fact_id: id})\nRETURN n.fact_id AS id"
"""The fact lookup the store ran before each CREATE until 2026-12-03 (its file is gone)."""


@contextmanager
def existence_lookup() -> Iterator[None]:
    """While inside, the store looks up which events and facts are stored before it CREATEs
    the rest (events by ``existing_event_ids``, facts by ``EXISTING_FACT_IDS``)."""
    original_query: Callable[[str], str] = cypher_files.query
    plans = {t: neo4j_store.CREATE_NEW[t] for t in ("events", "facts")}

    def query(name: str) -> str:
        return EXISTING_FACT_IDS if name == "existing_fact_ids" else original_query(name)

    cypher_files.query = query  # type: ignore[assignment]
    neo4j_store.CREATE_NEW["events"] = plans["events"]._replace(existing="existing_event_ids")
    neo4j_store.CREATE_NEW["facts"] = plans["facts"]._replace(existing="existing_fact_ids")
    try:
        yield
    finally:
        neo4j_store.CREATE_NEW.update(plans)
        cypher_files.query = original_query  # type: ignore[assignment]


@contextmanager
def store_attribute(name: str, value: object) -> Iterator[None]:
    """While inside, the Neo4j store module's ``name`` is ``value``; put back after."""
    kept = getattr(neo4j_store, name)
    setattr(neo4j_store, name, value)
    try:
        yield
    finally:
        setattr(neo4j_store, name, kept)


def replan() -> AbstractContextManager[None]:
    """While inside, the store's write queries go without the ``KEEP_PLAN`` prefix."""
    return store_attribute("KEEP_PLAN", "")


def row_repr() -> AbstractContextManager[None]:
    """While inside, the store passes its rows as plain lists."""
    return store_attribute("RowList", list)


class Variant(NamedTuple):
    applied: Callable[[], AbstractContextManager[None]]
    edges_per_fact: int
    """OF_PROPERTY edges a load under this variant leaves per fact (today's: none)."""
    definitions_first: bool = True
    """The generator's ``Spec.definitions_first`` under this variant."""


VARIANTS: Final[dict[str, Variant]] = {
    "property_edge": Variant(property_edge, 1),
    "entity_merge": Variant(entity_merge, 0),
    "existence_lookup": Variant(existence_lookup, 0),
    "replan": Variant(replan, 0),
    "row_repr": Variant(row_repr, 0),
    "definitions_with_facts": Variant(nullcontext, 0, definitions_first=False),
    "unscoped_facts": Variant(unscoped_facts, 0),
    "unscoped": Variant(unscoped, 0),
}


@contextmanager
def arm_applied(arm: str) -> Iterator[None]:
    if arm == TODAY:
        yield
        return
    with VARIANTS[arm].applied():
        yield


QueryTimer = Callable[[str, float], None]


class QueryTimes:
    """Per arm, how long each call of each write-path query took in the timed loads (the
    store's ``query_timer``; the commit is not in it)."""

    def __init__(self) -> None:
        self.seconds: dict[str, dict[str, list[float]]] = {}

    def timer(self, arm: str) -> QueryTimer:
        per_query = self.seconds.setdefault(arm, {})
        return lambda name, seconds: per_query.setdefault(name, []).append(seconds)

    def summary(self, loads_per_arm: int) -> dict[str, dict[str, dict[str, float]]]:
        """Per arm and query: calls and ms per load, median and slowest call in ms."""
        return {
            arm: {
                name: {
                    "calls_per_load": round(len(times) / loads_per_arm, 1),
                    "ms_per_load": round(1000 * sum(times) / loads_per_arm, 1),
                    "p50_ms": round(1000 * statistics.median(times), 1),
                    "max_ms": round(1000 * max(times), 1),
                }
                for name, times in sorted(per_query.items())
            }
            for arm, per_query in self.seconds.items()
        }


def one_load(arm: str, size: int, writers: int, timer: QueryTimer | None = None) -> dict[str, Any]:
    definitions_first = arm == TODAY or VARIANTS[arm].definitions_first
    spec = Spec(
        n_facts=size, batch_facts=bench.batch_facts(size), definitions_first=definitions_first
    )
    with arm_applied(arm):
        store = fresh_store()
        store.init_schema()
        store.query_timer = timer
        try:
            stats, _ = bench.ingest(store, spec, keep_facts=False, writers=writers)
            edges = store.driver.execute_query(EDGES_QUERY).records[0]["n"]
            counts = store.counts()
        finally:
            store.close()
    expected_edges = 0 if arm == TODAY else size * VARIANTS[arm].edges_per_fact
    found = (counts.facts, counts.entities, edges)
    if found != (size, spec.n_entities, expected_edges):
        raise SystemExit(
            f"{arm}: stored {found[0]} facts, {found[1]} entities, {found[2]} Property edges; "
            f"expected {size}, {spec.n_entities}, {expected_edges}"
        )
    return {"arm": arm, "facts_per_s": stats["ingest_facts_per_s"], "steal": stats["cpu_steal_pct"]}


def run(
    variant: str,
    size: int,
    rounds: int,
    warmups: int,
    writers: int,
    console: Console,
    query_times: QueryTimes | None = None,
) -> dict[str, Any]:
    arms = (TODAY, variant)
    loads: list[dict[str, Any]] = []
    timers = {arm: query_times.timer(arm) if query_times else None for arm in arms}
    with private_server(Settings()):
        warm = [one_load(arms[i % 2], size, writers)["facts_per_s"] for i in range(warmups)]
        console.print(f"warm-up loads (facts/s): {warm}")
        for r in range(rounds):
            for arm in arms if r % 2 == 0 else reversed(arms):
                loads.append({"round": r, **one_load(arm, size, writers, timers[arm])})
                console.print(f"round {r} {arm}: {loads[-1]['facts_per_s']} facts/s")
    summary = {arm: summarize([x["facts_per_s"] for x in loads if x["arm"] == arm]) for arm in arms}
    wins = sum(1 for r in range(rounds) if _rate(loads, r, TODAY) > _rate(loads, r, variant))
    return {"variant": variant, "size": size, "writers": writers, "warmups": warm,
            "loads": loads, "summary": summary, "rounds_today_faster": wins,
            "rounds": rounds,
            "query_times": query_times.summary(rounds) if query_times else None}  # fmt: skip


def _rate(loads: list[dict[str, Any]], r: int, arm: str) -> int:
    return int(next(x["facts_per_s"] for x in loads if x["round"] == r and x["arm"] == arm))


def render(console: Console, result: dict[str, Any]) -> None:
    table = Table(title=f"Neo4j ingest, {result['size']} facts, {result['writers']} writers")
    for column in ("arm", "median facts/s", "min", "max"):
        table.add_column(column)
    for arm, s in result["summary"].items():
        table.add_row(arm, f"{s['median']:,.0f}", f"{s['min']:,}", f"{s['max']:,}")
    console.print(table)
    console.print(
        f"today faster in {result['rounds_today_faster']} of {result['rounds']} rounds "
        f"(against {result['variant']})"
    )
    if result["query_times"]:
        render_query_times(console, result["query_times"])


def render_query_times(console: Console, times: dict[str, dict[str, dict[str, float]]]) -> None:
    arms = list(times)
    table = Table(title="write-path queries: ms per load (median call / slowest call, ms)")
    table.add_column("query")
    for arm in arms:
        table.add_column(arm)
    names = sorted({name for per_query in times.values() for name in per_query})
    for name in names:
        cells = []
        for arm in arms:
            q = times[arm].get(name)
            cells.append(f"{q['ms_per_load']:,.1f} ({q['p50_ms']} / {q['max_ms']})" if q else "-")
        table.add_row(name, *cells)
    totals = [f"{sum(q['ms_per_load'] for q in times[arm].values()):,.1f}" for arm in arms]
    table.add_row("all", *totals)
    console.print(table)


def main(argv: list[str] | None = None) -> None:
    parser = ab_parser(__doc__, rounds=6)
    parser.add_argument("--variant", choices=sorted(VARIANTS), required=True)
    parser.add_argument(
        "--query-times",
        action="store_true",
        help="also time each write-path query call of the timed loads, per arm",
    )
    args = parse_ab(parser, argv)
    console = Console()
    times = QueryTimes() if args.query_times else None
    result = run(args.variant, args.size, args.rounds, args.warmups, args.writers, console, times)
    render(console, result)
    save(console, args.out_dir, f"write_ab_{args.variant}_{args.size}.json", result)


if __name__ == "__main__":
    main()
