"""`apexmem query | schema | entity | history`: read the memory graph without an LLM.

The SQLite store defaults to the file `apexmem ingest` writes (APEXMEM_HOME/data/
apexmem.sqlite); `--store neo4j` reads the server at NEO4J_URI.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer

from apexmem_neo.cli.common import DbOpt, StoreOpt, fail, load_settings
from apexmem_neo.ontology import Entity
from apexmem_neo.settings import Settings
from apexmem_neo.store.protocol import GraphStore
from apexmem_neo.tools import markdown
from apexmem_neo.tools.backend import QueryBackend
from apexmem_neo.tools.entity_lookup import lookup_entities
from apexmem_neo.tools.graph_query import run_graph_query
from apexmem_neo.tools.schema_viewer import view_schema


def sqlite_path(db: Path | None, settings: Settings) -> Path:
    """The SQLite store file: ``--db`` or the default `apexmem ingest` uses."""
    return db or settings.data_dir / "apexmem.sqlite"


@contextmanager
def open_memory(
    store: str, db: Path | None, settings: Settings | None = None
) -> Iterator[tuple[GraphStore, QueryBackend]]:
    """The chosen store (schema ready) and its read-only query backend; closed on exit."""
    settings = settings or load_settings()
    driver: Any = None
    if store == "sqlite":
        from apexmem_neo.store.sqlite import SQLiteGraphStore
        from apexmem_neo.tools import SQLiteQueryBackend

        path = sqlite_path(db, settings)
        path.parent.mkdir(parents=True, exist_ok=True)
        graph: Any = SQLiteGraphStore(path)
        graph.init_schema()
        backend: QueryBackend = SQLiteQueryBackend(path)
    elif store == "neo4j":
        from neo4j import GraphDatabase

        from apexmem_neo.store.neo4j import Neo4jGraphStore
        from apexmem_neo.tools import Neo4jQueryBackend

        driver = GraphDatabase.driver(settings.neo4j_uri, auth=None)
        graph = Neo4jGraphStore(driver)
        graph.init_schema()
        backend = Neo4jQueryBackend(driver)
    else:
        fail(f"--store must be sqlite or neo4j, not {store!r}")
    try:
        yield graph, backend
    finally:
        graph.close()
        if driver is not None:
            driver.close()


def query(
    text: Annotated[str, typer.Argument(help="One read-only Cypher (or, with --sql, SQL) query.")],
    sql: Annotated[bool, typer.Option("--sql", help="The query is SQL over the tables.")] = False,
    store: StoreOpt = "sqlite",
    db: DbOpt = None,
) -> None:
    """Run one read-only query (GraphQuery) and print the rows as markdown."""
    with open_memory(store, db) as (_, backend):
        out = run_graph_query(backend, text, "sql" if sql else "cypher")
    typer.echo(out)
    if out.startswith("## Error:"):
        raise typer.Exit(1)


def schema(
    examples: Annotated[bool, typer.Option(help="Also show the temporal query examples.")] = False,
    guide: Annotated[bool, typer.Option(help="Also explain which tool to use when.")] = False,
    store: StoreOpt = "sqlite",
    db: DbOpt = None,
) -> None:
    """Show the memory's schema (SchemaViewer)."""
    with open_memory(store, db) as (_, backend):
        typer.echo(view_schema(backend, examples, guide))


def entity(
    name: Annotated[str, typer.Argument(help="An entity name (or words naming it).")],
    k: Annotated[int, typer.Option(help="At most this many entities.")] = 3,
    store: StoreOpt = "sqlite",
    db: DbOpt = None,
) -> None:
    """Show entities with their latest values, anchors and facts (EntityLookup)."""
    with open_memory(store, db) as (graph, _):
        typer.echo(lookup_entities(graph, name, k))


def _resolve(graph: GraphStore, name: str) -> Entity:
    found = graph.get_entity(name)
    if found is not None:
        return found
    matches = graph.find_entities(name)
    if not matches:
        fail(f"no entity named {name!r} (try `apexmem entity {name!r}`)")
    return matches[0]


def history(
    entity_name: Annotated[str, typer.Argument(metavar="ENTITY", help="Entity name or id.")],
    prop: Annotated[str, typer.Argument(metavar="PROPERTY", help="Property, e.g. city.")],
    store: StoreOpt = "sqlite",
    db: DbOpt = None,
) -> None:
    """Show every fact of (ENTITY, PROPERTY) in time order, and when the value changed."""
    with open_memory(store, db) as (graph, _):
        ent = _resolve(graph, entity_name)
        facts = graph.history(ent.entity_id, prop)
        changes = graph.changes(ent.entity_id, prop)
    typer.echo(f"# {ent.name} ({ent.entity_type.value}) `{ent.entity_id}`: {prop}\n")
    rows = [(f.value, f.t_from, f.t_to, f.recorded_at, f.fact_id) for f in facts]
    head = ("value", "t_from", "t_to", "recorded_at", "fact_id")
    typer.echo(markdown.table(head, rows, 120) if rows else "_(no facts)_")
    typer.echo("\n## Changes\n")
    moves = [(c.changed_at, c.old_value, c.new_value) for c in changes]
    typer.echo(markdown.table(("changed_at", "old", "new"), moves, 120) if moves else "_(none)_")
