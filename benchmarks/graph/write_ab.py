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
- ``definitions_with_facts``: the generator's entities and properties in its first batch
  of facts rather than a batch of their own, as until 2026-12-03 (every later batch waits
  for that one, so the second writer idles while it runs).
The two arms ("today" and the variant) load alternating ABBA on a Neo4j of its own (port
7799, a new data directory, stopped at the end), each load into an emptied store, checked to
hold every fact, every entity and the arm's Property edges, so a drift in the machine's
speed falls on both arms.

Usage (from the repo root; nothing else running):
    .venv/bin/python -m benchmarks.graph.write_ab --variant entity_merge --size 10000
Output: a table, and benchmarks/results/write_ab_<variant>_<size>.json.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any, Final, NamedTuple

from rich.console import Console
from rich.table import Table

from apexmem_neo.settings import Settings
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
def replan() -> Iterator[None]:
    """While inside, the store's write queries go without the ``KEEP_PLAN`` prefix."""
    kept = neo4j_store.KEEP_PLAN
    setattr(neo4j_store, "KEEP_PLAN", "")  # noqa: B010 (a Final, put back below)
    try:
        yield
    finally:
        setattr(neo4j_store, "KEEP_PLAN", kept)  # noqa: B010


@contextmanager
def nothing_applied() -> Iterator[None]:
    yield


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
    "definitions_with_facts": Variant(nothing_applied, 0, definitions_first=False),
}


@contextmanager
def arm_applied(arm: str) -> Iterator[None]:
    if arm == TODAY:
        yield
        return
    with VARIANTS[arm].applied():
        yield


def one_load(arm: str, size: int, writers: int) -> dict[str, Any]:
    definitions_first = arm == TODAY or VARIANTS[arm].definitions_first
    spec = Spec(
        n_facts=size, batch_facts=bench.batch_facts(size), definitions_first=definitions_first
    )
    with arm_applied(arm):
        store = fresh_store()
        store.init_schema()
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
    variant: str, size: int, rounds: int, warmups: int, writers: int, console: Console
) -> dict[str, Any]:
    arms = (TODAY, variant)
    loads: list[dict[str, Any]] = []
    with private_server(Settings()):
        warm = [one_load(arms[i % 2], size, writers)["facts_per_s"] for i in range(warmups)]
        console.print(f"warm-up loads (facts/s): {warm}")
        for r in range(rounds):
            for arm in arms if r % 2 == 0 else reversed(arms):
                loads.append({"round": r, **one_load(arm, size, writers)})
                console.print(f"round {r} {arm}: {loads[-1]['facts_per_s']} facts/s")
    summary = {arm: summarize([x["facts_per_s"] for x in loads if x["arm"] == arm]) for arm in arms}
    wins = sum(1 for r in range(rounds) if _rate(loads, r, TODAY) > _rate(loads, r, variant))
    return {"variant": variant, "size": size, "writers": writers, "warmups": warm,
            "loads": loads, "summary": summary, "rounds_today_faster": wins,
            "rounds": rounds}  # fmt: skip


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


def main(argv: list[str] | None = None) -> None:
    parser = ab_parser(__doc__, rounds=6)
    parser.add_argument("--variant", choices=sorted(VARIANTS), required=True)
    args = parse_ab(parser, argv)
    console = Console()
    result = run(args.variant, args.size, args.rounds, args.warmups, args.writers, console)
    render(console, result)
    save(console, args.out_dir, f"write_ab_{args.variant}_{args.size}.json", result)


if __name__ == "__main__":
    main()
