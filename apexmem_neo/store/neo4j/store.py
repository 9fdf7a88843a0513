"""Neo4jGraphStore: the paper's tables as a property graph in Neo4j 5.

Mapping (the SQL-compat shim translates mechanically because names and values are equal):

* each table but ``event_participants`` is a label whose nodes carry exactly the table's
  columns as properties (``apexmem_neo.store.columns``; a NULL column is an absent property,
  which Cypher reads back as null): sessions -> Session, turns -> Turn, entities -> Entity,
  properties -> Property, evidence -> Evidence, events -> Event, facts -> Fact;
* ``event_participants`` rows are ``(:Event)-[:PARTICIPANT]->(:Entity)`` relationships that
  carry the row's four columns (event_id, entity_id, role, recorded_at) as properties, with a
  relationship uniqueness constraint on the primary key (event_id, entity_id, role);
* relationships derived from the foreign-key columns serve traversal: (Turn)-[:IN_SESSION]->
  (Session), (Turn)-[:NEXT]->(Turn) (per session, in (seq, turn_id) order),
  (Evidence)-[:FROM_TURN]->(Turn), (Event)-[:FROM_TURN]->(Turn),
  (Event)-[:SUPPORTED_BY]->(Evidence), (Fact)-[:ABOUT]->(Entity),
  (Event)-[:ASSERTS]->(Fact), (Fact)-[:SUPPORTED_BY]->(Evidence). A fact names its property by
  property_id and property and has no edge to the Property node (a few shared nodes that
  every fact would attach to: a supernode per property, and a cost on ingest that
  ``benchmarks.graph.write_ab --variant property_edge`` measures).

The constructor does no I/O and the driver belongs to the caller (``close()`` does not close
it). ``init_schema()`` applies ``cypher/schema``. ``write(batch)`` is one write transaction:
the dangling-reference check, then per table UNWIND chunks of MERGE ... ON CREATE SET, so a
batch lands whole or not at all and re-writing it changes nothing. Entities, properties,
events and facts (what a bulk batch holds by the thousand or names again) take a faster
path with the same outcome: their rows are CREATEd with their relationships (no MERGE and
its locking lookup, no relationship check against dense Entity nodes), and participants of
the events just created are CREATEd too. Entities and properties, often named again by later
batches, are looked up first and only the new ones created; events and facts, new unless
the same batch is written again, are not. Should one of those ids be stored already (a
re-written batch, or a concurrent writer that created it first), its uniqueness constraint
fails, the transaction rolls back whole and is re-run with MERGE everywhere.
Lost connections surface as ``ServiceUnavailableError`` naming the server. The temporal
rules are those of ``apexmem_neo.store.protocol``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, ClassVar, Final, NamedTuple, TypeVar

from neo4j import READ_ACCESS, Driver, ManagedTransaction, Query, Record, RoutingControl, Session
from neo4j import exceptions as neo4j_errors

from apexmem_neo.errors import ServiceUnavailableError
from apexmem_neo.ontology import Entity, EntityType, Event, GraphBatch
from apexmem_neo.ontology.ids import DEFAULT_SCOPE, normalize_text, scope_label
from apexmem_neo.ontology.types import TimeLike, normalize_time
from apexmem_neo.store import columns
from apexmem_neo.store.backend import StoreBackend, in_scope
from apexmem_neo.store.erasure import Erasure, ErasureTarget
from apexmem_neo.store.neo4j import cypher_files
from apexmem_neo.store.neo4j import pages as neo4j_pages
from apexmem_neo.store.pages import PageRequest
from apexmem_neo.store.protocol import (
    TABLES,
    FactRecord,
    Item,
    StoreCounts,
    StoreError,
    StoreNotReadyError,
    check_interval,
    ensure_references,
)
from apexmem_neo.store.timeutil import Clock, utc_now

WRITE_QUERIES: Final[dict[str, str]] = {
    "sessions": "write_sessions",
    "turns": "write_turns",
    "entities": "write_entities",
    "properties": "write_properties",
    "evidence": "write_evidence",
    "events": "write_events",
    "event_participants": "write_participants",
    "facts": "write_facts",
}
"""Per table (in ``TABLES`` write order), the query file that writes its rows."""

MERGE_QUERIES: Final[dict[str, str]] = {
    "events": "write_events_merge",
    "facts": "write_facts_merge",
}
"""Tables whose default query CREATEs the rows not yet stored; these MERGE instead (the
fallback when a concurrent writer raced us to the same ids)."""


class CreatePlan(NamedTuple):
    """How a table's new rows are written: find stored ids, CREATE the rest, link them."""

    key: str
    existing: str | None
    """The query returning which of ``$ids`` are stored. None: no lookup, every row is
    CREATEd; a stored id fails its uniqueness constraint and the batch is re-run with MERGE
    (for rows that are new nearly always, so the lookup is a round trip spent for nothing)."""
    create: str
    links: str | None
    """The query relating the created rows to others (None: ``create`` does it too)."""
    link_columns: tuple[str, ...]
    link_when: tuple[str, ...]
    """Rows get a links run when any of these columns is set."""
    group_by: tuple[str, ...] = ()
    """When set, ``create`` receives groups ``{column: value, ..., "rows": [...]}`` of the
    rows sharing these columns, so the query looks up what they share once per group."""


CREATE_NEW: Final[dict[str, CreatePlan]] = {
    # A bulk batch names many entities, nearly all stored by earlier batches: a plain index
    # read each instead of MERGE's locking one (benchmarks.graph.write_ab --variant
    # entity_merge measures the difference; its figures are in the CHANGELOG).
    "entities": CreatePlan("entity_id", "existing_entity_ids", "write_entities_new", None, (), ()),
    "properties": CreatePlan(
        "property_id", "existing_property_ids", "write_properties_new", None, (), ()
    ),
    # Event and fact ids hash their turn and content, so a stored one comes back only when a
    # batch is written again (a resumed load, a turn ingested twice): no lookup first; such
    # a batch fails the constraint and is re-run with MERGE.
    "events": CreatePlan(
        "event_id",
        None,
        "write_events",
        "write_events_links",
        ("event_id", "turn_id", "evidence_id"),
        ("turn_id", "evidence_id"),
    ),
    "facts": CreatePlan(
        "fact_id",
        None,
        "write_facts",
        None,
        (),
        (),
        # A batch holds many facts per entity and several per event: one Entity, Event and
        # Evidence lookup per group instead of per fact (a small gain on the fact write,
        # within the graph benchmark's run-to-run spread).
        group_by=("entity_id", "event_id", "evidence_id"),
    ),
}
"""Tables with many rows per batch: no MERGE, but one indexed lookup of the stored ids, then
CREATE for the rest (idempotent all the same). Each row's id occurs once (``_unique_rows``)."""

EXISTING_QUERIES: Final[dict[str, str]] = {
    kind: f"existing_{kind}_ids" for kind in ("session", "turn", "entity", "evidence", "event")
}
"""Per reference kind, the query returning which of ``$ids`` are stored."""

TEMPORAL_QUERIES: Final[tuple[str, ...]] = (
    "temporal_current",
    "temporal_as_of",
    "temporal_history",
    "temporal_facts_between",
    "temporal_known_as_of",
    "temporal_known_as_of_at",
)
"""The read queries behind the seven temporal methods (before/changes reuse as_of/history)."""

ERASE_KINDS: Final = ("session", "turn", "evidence", "event", "fact", "entity", "property")
DEFAULT_CHUNK_ROWS: Final = 5000


_DISCONNECTED: Final = (neo4j_errors.ServiceUnavailable, neo4j_errors.SessionExpired)
_SCHEMA_RACE_CODES: Final = frozenset(
    {
        "Neo.ClientError.Schema.EquivalentSchemaRuleAlreadyExists",
        "Neo.ClientError.Schema.ConstraintAlreadyExists",
        "Neo.ClientError.Schema.IndexAlreadyExists",
    }
)
INDEX_WAIT_SECONDS: Final = 300
KEEP_PLAN: Final = "CYPHER replan=skip\n"
"""Prefix of the write path's queries: Neo4j keeps their cached plans when the store's
statistics move. It re-plans a cached query once the counts it was planned on have changed
enough (at first by 75%, at most every 10 s), which a store filling from empty does again
and again (and the graph benchmark's wipe before each load too); each re-plan of a write
query costs its transaction time for nothing, since every node these queries find is
found by a unique key, whatever the counts (``benchmarks.graph.write_ab --variant
replan``)."""
PLANNED_BY_STATISTICS: Final = frozenset({"link_turns"})
"""Write queries left to re-plan: their lookups are not by a unique key, so the best plan
depends on the counts (link_turns finds a turn's neighbours by session)."""
MIGRATIONS: Final[tuple[tuple[str, str | None], ...]] = (
    ("migrate_property_ids", None),
    ("migrate_fact_ids", None),
    ("migrate_drop_of_property", "OF_PROPERTY"),
)
"""(query, the relationship type it deletes) bringing stores of earlier versions to today's
graph, in batches: ids before the short prefixes (ontology/ids.py), the
(Fact)-[:OF_PROPERTY]->(Property) edges no longer kept. A migration deleting a type runs only
where that type was ever held: Neo4j warns about a pattern naming a type it has never seen."""
MIGRATION_BATCH: Final = 20_000
T = TypeVar("T")


def run_schema_statement(driver: Driver, database: str | None, statement: str) -> None:
    """Run one idempotent schema statement (``CREATE ... IF NOT EXISTS``); ``StoreError``
    if it fails for another reason than a concurrent caller having made it first."""
    try:
        driver.execute_query(Query(statement), database_=database)
    except neo4j_errors.ClientError as exc:
        # Two callers racing past IF NOT EXISTS: the other one created it; that is fine.
        if exc.code not in _SCHEMA_RACE_CODES:
            raise StoreError(f"Neo4j schema statement failed: {exc.message}") from exc


class Neo4jGraphStore(StoreBackend):
    """GraphStore on Neo4j through an explicit ``neo4j.Driver``.

    ``database`` None means the server's home database. ``clock`` stamps ``recorded_at`` on
    rows that carry none. ``chunk_rows`` bounds the rows of one UNWIND (a batch may need
    several; they all run in the batch's one transaction). ``uri`` only names the server in
    error messages (default: ``bolt://<driver address>``).
    """

    concurrent_writes: ClassVar[bool] = True
    """``write`` is safe from several threads at once (a session per call; the driver is
    thread-safe): ``store.bulk.write_batches`` may keep several transactions in flight."""

    def __init__(
        self,
        driver: Driver,
        database: str | None = None,
        *,
        clock: Clock | None = None,
        chunk_rows: int = DEFAULT_CHUNK_ROWS,
        uri: str | None = None,
    ) -> None:
        if chunk_rows < 1:
            raise ValueError(f"chunk_rows must be positive, got {chunk_rows}")
        self.driver = driver
        self.database = database
        self.chunk_rows = chunk_rows
        self.uri = uri or _driver_uri(driver)
        self._clock = clock or utc_now
        self._ready = False
        self.query_timer: Callable[[str, float], None] | None = None
        """Called with (query name, seconds) after each query of the write path has run to
        its end, inside its transaction (the commit is not in it): where a load spends its
        time (``benchmarks.graph.write_ab --query-times``)."""

    # ---- lifecycle ----

    def init_schema(self) -> None:
        """Create the constraints and indexes of ``cypher/schema`` and drop those earlier
        versions made that today's store must not have (idempotent, race-safe)."""
        with self._connection("init_schema"):
            retired = cypher_files.schema_statements(cypher_files.STORE_RETIRED)
            for statement in (*cypher_files.schema_statements(), *retired):
                run_schema_statement(self.driver, self.database, statement)
            self._run_read("CALL db.awaitIndexes($seconds)", {"seconds": INDEX_WAIT_SECONDS})
            self._migrate()
        self._ready = True

    def _migrate(self) -> None:
        """Run ``MIGRATIONS``, a batch per transaction so a large store never holds one huge
        transaction; a migrated store costs one index lookup each."""
        listed = self._run_read(cypher_files.query("relationship_types"), {})
        known_types = {row["relationshipType"] for row in listed}
        for name, deletes_type in MIGRATIONS:
            if deletes_type is not None and deletes_type not in known_types:
                continue
            self._run_migration(name)
        if self._predates_scopes():
            self._run_migration("migrate_scopes")
            self._run_migration("migrate_scopes_participants")

    def _predates_scopes(self) -> bool:
        """Whether a session or entity lacks a scope. Asked with notifications off: on a new
        database the property ``scope`` is unknown and Neo4j would warn about it."""
        with self.driver.session(
            database=self.database, notifications_min_severity="OFF"
        ) as session:
            record = session.run(Query(cypher_files.query("migrate_scopes_needed"))).single()
        return bool(record is not None and record["needed"])

    def _run_migration(self, name: str) -> None:
        """Run migration query ``name`` batch after batch until it changes nothing."""
        statement = Query(cypher_files.query(name))
        params = {"limit": MIGRATION_BATCH, "label": scope_label(DEFAULT_SCOPE)}
        while True:
            try:
                records, _, _ = self.driver.execute_query(
                    statement, params, database_=self.database
                )
            except neo4j_errors.Neo4jError as exc:
                raise StoreError(f"Neo4j migration {name} failed: {exc.message}") from exc
            if records[0]["changed"] == 0:
                break

    def close(self) -> None:
        """Mark the store closed; the driver is the caller's to close."""
        self._ready = False

    def _require_ready(self) -> None:
        if not self._ready:
            raise StoreNotReadyError("Neo4jGraphStore: call init_schema() first")

    @contextmanager
    def _connection(self, action: str) -> Iterator[None]:
        """Turn a lost or refused connection into ``ServiceUnavailableError`` naming the URI."""
        try:
            yield
        except _DISCONNECTED as exc:
            raise ServiceUnavailableError(
                "neo4j", self.uri, f"{action} failed, connection lost or refused ({exc})"
            ) from exc

    # ---- writing ----

    def write(self, batch: GraphBatch) -> None:
        """Commit ``batch`` in one transaction (all or nothing); re-writing adds nothing."""
        self._require_ready()
        default = batch.recorded_at or normalize_time(self._clock())
        table_rows = _unique_rows(columns.batch_columns(batch, default))
        with self._connection("write"), self._session() as session:
            try:
                try:
                    session.execute_write(self._write_tx, batch, table_rows, False)
                except neo4j_errors.ConstraintError:
                    # A concurrent writer created some of the same facts or events between
                    # our existence check and CREATE; our transaction rolled back whole.
                    # Re-run it with MERGE, which waits for and respects the other writer.
                    session.execute_write(self._write_tx, batch, table_rows, True)
            except neo4j_errors.Neo4jError as exc:
                raise StoreError(f"Neo4jGraphStore.write rolled back: {exc.message}") from exc

    def reserve_turn_seqs(self, session_id: str, count: int) -> int:
        """The first of ``count`` turn numbers of the session, reserved on its counter node
        in one write transaction (``reserve_turn_seqs.cypher`` locks the node before it reads
        it), so concurrent writers get distinct numbers. Notifications are off: on a new
        database the counter's property keys are not known yet and Neo4j would warn."""
        self._require_ready()
        if count < 1:
            raise ValueError(f"count must be positive, got {count}")

        def reserve(tx: ManagedTransaction) -> int:
            (record,) = self._run_write(tx, "reserve_turn_seqs", session_id=session_id, count=count)
            return int(record["first"])

        with (
            self._connection("reserve_turn_seqs"),
            self.driver.session(
                database=self.database, notifications_min_severity="OFF"
            ) as session,
        ):
            try:
                return session.execute_write(reserve)
            except neo4j_errors.Neo4jError as exc:
                raise StoreError(
                    f"Neo4jGraphStore.reserve_turn_seqs failed: {exc.message}"
                ) from exc

    def _write_tx(
        self,
        tx: ManagedTransaction,
        batch: GraphBatch,
        table_rows: Mapping[str, list[dict[str, Any]]],
        merge: bool,
    ) -> None:
        scoped = {"scope": batch.scope, "label": scope_label(batch.scope)}

        def existing(kind: str, wanted: Collection[str]) -> set[str]:
            found = self._run_write(tx, EXISTING_QUERIES[kind], ids=sorted(wanted), **scoped)
            return {record["id"] for record in found}

        # Inside the transaction, so the ids cannot vanish between the check and the write.
        ensure_references(batch, existing)
        created_events: set[str] = set()
        for table in TABLES:
            rows = table_rows[table]
            if merge:
                self._run_chunks(tx, MERGE_QUERIES.get(table, WRITE_QUERIES[table]), rows, scoped)
            elif table in CREATE_NEW:
                created = self._create_new(tx, CREATE_NEW[table], rows, scoped)
                created_events |= created if table == "events" else set()
            elif table == "event_participants":
                fresh = [row for row in rows if row["event_id"] in created_events]
                known = [row for row in rows if row["event_id"] not in created_events]
                self._run_chunks(tx, "write_participants_new", fresh, scoped)
                self._run_chunks(tx, WRITE_QUERIES[table], known, scoped)
            else:
                self._run_chunks(tx, WRITE_QUERIES[table], rows, scoped)
        self._run_chunks(tx, "link_turns", table_rows["turns"], scoped)

    def _create_new(
        self,
        tx: ManagedTransaction,
        plan: CreatePlan,
        rows: Sequence[dict[str, Any]],
        scoped: Mapping[str, str],
    ) -> set[str]:
        """CREATE the rows whose id is not stored yet, then their relationships; the new ids."""
        stored = self._stored_ids(tx, plan.existing, [row[plan.key] for row in rows], scoped)
        new = [row for row in rows if row[plan.key] not in stored]
        for chunk in _chunks(new, self.chunk_rows):
            payload = _grouped(chunk, plan.group_by) if plan.group_by else chunk
            self._run_write(tx, plan.create, rows=payload, **scoped)
        if plan.links is None:
            return {row[plan.key] for row in new}
        links = [
            {column: row[column] for column in plan.link_columns}
            for row in new
            if any(row[column] is not None for column in plan.link_when)
        ]
        self._run_chunks(tx, plan.links, links, scoped)
        return {row[plan.key] for row in new}

    def _stored_ids(
        self, tx: ManagedTransaction, query: str | None, ids: list[str], scoped: Mapping[str, str]
    ) -> set[str]:
        """Which of ``ids`` the store holds, by ``query`` (None: assume none, see CreatePlan)."""
        stored: set[str] = set()
        if query is None:
            return stored
        for chunk in _chunks(ids, self.chunk_rows):
            found = self._run_write(tx, query, ids=chunk, **scoped)
            stored.update(record["id"] for record in found)
        return stored

    def _run_chunks(
        self, tx: ManagedTransaction, name: str, rows: Sequence[Any], scoped: Mapping[str, str]
    ) -> None:
        """Run ``name`` over ``rows`` in chunks; ``scoped`` gives the batch's scope and the
        label its new nodes take."""
        for chunk in _chunks(rows, self.chunk_rows):
            self._run_write(tx, name, rows=chunk, **scoped)

    def _run_write(self, tx: ManagedTransaction, name: str, **params: Any) -> list[Record]:
        """Run write query ``name`` in ``tx`` to the end; its records (the write path's
        queries return ids at most). Reports the time to ``query_timer`` when set."""
        start = time.perf_counter()
        quiet = {key: RowList(v) if isinstance(v, list) else v for key, v in params.items()}
        try:
            records = list(tx.run(write_query(name), quiet))
        except neo4j_errors.ResultFailedError as exc:
            error = server_error(exc)
            if error is exc:
                raise
            raise error from exc
        if self.query_timer is not None:
            self.query_timer(name, time.perf_counter() - start)
        return records

    def _session(self) -> Session:
        return self.driver.session(database=self.database)

    # ---- erasure ----

    def erase(self, target: ErasureTarget) -> Erasure:
        """Delete what ``target`` names (``apexmem_neo.store.erasure``) and record it, in one
        write transaction."""
        self._require_ready()
        with self._connection("erase"), self._session() as session:
            try:
                return session.execute_write(self._erase_tx, target)
            except neo4j_errors.Neo4jError as exc:
                raise StoreError(f"Neo4jGraphStore.erase rolled back: {exc.message}") from exc

    def _erase_tx(self, tx: ManagedTransaction, target: ErasureTarget) -> Erasure:
        params = {
            "scope": target.scope,
            "label": scope_label(target.scope),
            "sessions": list(target.sessions),
            "entities": list(target.entities),
        }
        (found,) = self._run_write(tx, f"erase_select_{target.kind}", **params)
        ids = {kind: sorted(found[kind]) for kind in ERASE_KINDS}
        erasure = Erasure(
            scope=target.scope, kind=target.kind, targets=target.sessions or target.entities
        )
        erasure.erased_ids = ids
        erasure.touched_entities = sorted(set(found["touched"]) - set(ids["entity"]))
        (counts,) = self._run_write(tx, "erase_delete", ids=ids, scope=target.scope)
        erasure.counts = {table: int(counts[table]) for table in TABLES}
        record = erasure.record()
        record["targets"] = list(erasure.targets)
        record["counts_json"] = json.dumps(record.pop("counts"), sort_keys=True)
        self._run_write(tx, "erase_record", record=record)
        return erasure

    def compact(self) -> None:
        """Nothing to do here: deleted nodes are unreachable through the server at once."""

    # ---- lookups ----

    def counts(self, scope: str | None = None) -> StoreCounts:
        if scope is None:
            (row,) = self._read("counts", {})
        else:
            (row,) = self._read("counts_scoped", {"label": scope_label(scope)}, quiet=True)
        return StoreCounts(**{table: row[table] for table in TABLES})

    def scopes(self) -> list[str]:
        return [row["scope"] for row in self._read("scopes", {}, quiet=True)]

    def _page_rows(self, request: PageRequest[Item]) -> list[dict[str, Any]]:
        name, params = neo4j_pages.page_query(request)
        return self._read(name, params, quiet=True)

    def get_entity(self, entity_id: str, scope: str | None = None) -> Entity | None:
        row = in_scope(self._read_first("get_entity", {"entity_id": entity_id}), scope)
        return None if row is None else columns.entity_from_row(row)

    def find_entities(
        self, name: str, entity_type: EntityType | None = None, *, scope: str = DEFAULT_SCOPE
    ) -> list[Entity]:
        wanted_type = None if entity_type is None else EntityType(entity_type).value
        params = {"norm_name": normalize_text(name), "entity_type": wanted_type, "scope": scope}
        return [columns.entity_from_row(r) for r in self._read("find_entities", params)]

    def list_entities(self, *, scope: str = DEFAULT_SCOPE) -> list[Entity]:
        rows = self._read("list_entities", {"scope": scope})
        return [columns.entity_from_row(r) for r in rows]

    def get_event(self, event_id: str, scope: str | None = None) -> Event | None:
        row = in_scope(self._read_first("get_event", {"event_id": event_id}), scope)
        return None if row is None else columns.event_from_row(row)

    # ---- temporal queries ----

    def _latest(self, entity_id: str, property: str) -> FactRecord | None:
        return self._one("temporal_current", entity_id, property)

    def as_of(self, entity_id: str, property: str, t: TimeLike) -> FactRecord | None:
        return self._one("temporal_as_of", entity_id, property, t=normalize_time(t))

    def history(self, entity_id: str, property: str) -> list[FactRecord]:
        params = {"entity_id": entity_id, "property": property}
        return [columns.fact_from_row(r) for r in self._read("temporal_history", params)]

    def facts_between(self, entity_id: str, t1: TimeLike, t2: TimeLike) -> list[FactRecord]:
        start, end = check_interval(t1, t2)
        params = {"entity_id": entity_id, "t1": start, "t2": end}
        return [columns.fact_from_row(r) for r in self._read("temporal_facts_between", params)]

    def _known(
        self, entity_id: str, property: str, cutoff: str, at: str | None
    ) -> FactRecord | None:
        if at is None:
            return self._one("temporal_known_as_of", entity_id, property, recorded_at=cutoff)
        return self._one("temporal_known_as_of_at", entity_id, property, recorded_at=cutoff, t=at)

    def _one(self, name: str, entity_id: str, property: str, **params: Any) -> FactRecord | None:
        row = self._read_first(name, {"entity_id": entity_id, "property": property, **params})
        return None if row is None else columns.fact_from_row(row)

    def _read_first(self, name: str, params: dict[str, Any]) -> dict[str, Any] | None:
        """The first row read query ``name`` returns, None when it returns none."""
        rows = self._read(name, params)
        return rows[0] if rows else None

    # ---- plumbing ----

    def _read(
        self, name: str, params: dict[str, Any], *, quiet: bool = False
    ) -> list[dict[str, Any]]:
        """Run read query ``name``; ``quiet`` turns the server's notifications off (a scope
        with no node yet has an unknown label, and an empty store unknown property keys)."""
        self._require_ready()
        with self._connection(name):
            if not quiet:
                return self._run_read(cypher_files.query(name), params)
            with self.driver.session(
                database=self.database,
                default_access_mode=READ_ACCESS,
                notifications_min_severity="OFF",
            ) as session:
                return [r.data() for r in session.run(Query(cypher_files.query(name)), params)]

    def _run_read(self, text: str, params: dict[str, Any]) -> list[dict[str, Any]]:
        records, _, _ = self.driver.execute_query(
            Query(text), params, routing_=RoutingControl.READ, database_=self.database
        )
        return [record.data() for record in records]

    def plan(self, name: str, params: dict[str, Any], *, profile: bool = False) -> list[str]:
        """The operators of the EXPLAIN (or PROFILE) plan of query ``name``, root first.

        Each entry is ``"<operator> <details>"``; benchmarks and tests use it to check that
        the temporal queries seek an index rather than scan a label.
        """
        self._require_ready()
        prefix = "PROFILE " if profile else "EXPLAIN "
        with self._connection(f"plan {name}"):
            _, summary, _ = self.driver.execute_query(
                Query(prefix + cypher_files.query(name)),
                params,
                routing_=RoutingControl.READ,
                database_=self.database,
            )
        tree = summary.profile if profile else summary.plan
        return list(_operators(tree or {}))


class RowList(list[Any]):
    """A query parameter's rows, whose repr is their count. The driver (neo4j 6.4) formats
    ``repr`` of every RUN's parameters for its debug log even when debug logging is off,
    which for a batch's rows took more CPU than packing them, on a machine whose two cores
    the server needs too. It packs like a plain list (the same bytes); a driver debug log
    shows "<n rows>" instead of the rows."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"<{len(self)} rows>"


def server_error(exc: neo4j_errors.ResultFailedError) -> Exception:
    """The server's own error behind the driver's generic "the result has failed", which the
    driver never retries: raised instead, a transient one (two writers deadlocked) is retried
    by ``execute_write`` and a constraint clash reaches ``write``'s MERGE fallback."""
    cause = exc.__cause__
    return cause if isinstance(cause, neo4j_errors.Neo4jError) else exc


def write_query(name: str) -> str:
    """The text of write query ``name``, with ``KEEP_PLAN`` unless it is planned by the
    statistics (``PLANNED_BY_STATISTICS``)."""
    text = cypher_files.query(name)
    return text if name in PLANNED_BY_STATISTICS else KEEP_PLAN + text


def _unique_rows(table_rows: dict[str, list[dict[str, Any]]]) -> dict[str, list[dict[str, Any]]]:
    """Drop rows repeating an earlier row's primary key (the first wins, as with MERGE)."""
    out: dict[str, list[dict[str, Any]]] = {}
    for table, rows in table_rows.items():
        key = columns.PRIMARY_KEYS[table]
        seen: set[tuple[Any, ...]] = set()
        kept = []
        for row in rows:
            k = tuple(row[c] for c in key)
            if k not in seen:
                seen.add(k)
                kept.append(row)
        out[table] = kept
    return out


def _grouped(rows: Sequence[dict[str, Any]], by: tuple[str, ...]) -> list[dict[str, Any]]:
    """``rows`` as ``{by columns..., "rows": [rows sharing them]}`` groups, in first-seen order."""
    groups: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for row in rows:
        groups.setdefault(tuple(row[column] for column in by), []).append(row)
    return [{**dict(zip(by, key, strict=True)), "rows": members} for key, members in groups.items()]


def _chunks(rows: Sequence[T], size: int) -> Iterator[Sequence[T]]:
    for start in range(0, len(rows), size):
        yield rows[start : start + size]


def _operators(plan: Mapping[str, Any]) -> Iterator[str]:
    args = plan.get("args", {})
    details = args.get("Details", "") if isinstance(args, Mapping) else ""
    operator = str(plan.get("operatorType", "?")).split("@")[0]
    yield f"{operator} {details}".strip()
    for child in plan.get("children", []):
        yield from _operators(child)


def _driver_uri(driver: Driver) -> str:
    address = getattr(driver, "address", None)  # BoltDriver has it; routing drivers may not
    return f"bolt://{address}" if address is not None else "neo4j (driver address unknown)"


__all__ = ["EXISTING_QUERIES", "TEMPORAL_QUERIES", "WRITE_QUERIES", "Neo4jGraphStore"]
