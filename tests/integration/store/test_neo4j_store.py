"""What only the Neo4j backend has: schema, graph shape, plans, failures, packaging.

Runs against the real server from ``neo4j_driver``; the connection-loss tests put a real TCP
proxy (``tcp_proxy.CuttingProxy``) between the driver and that server.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest
from neo4j import Driver, GraphDatabase

from apexmem_neo.errors import ServiceUnavailableError
from apexmem_neo.ontology import Entity, Fact, GraphBatch, Session, Turn
from apexmem_neo.store import StoreCounts, StoreError, StoreNotReadyError, columns
from apexmem_neo.store.bulk import write_batches
from apexmem_neo.store.columns import COLUMNS
from apexmem_neo.store.neo4j import Neo4jGraphStore, cypher_files
from apexmem_neo.store.neo4j import store as neo4j_store_module
from apexmem_neo.store.neo4j.pages import PAGE_QUERIES, page_query
from apexmem_neo.store.neo4j.store import (
    CREATE_NEW,
    EXISTING_QUERIES,
    MERGE_QUERIES,
    TEMPORAL_QUERIES,
    WRITE_QUERIES,
    _unique_rows,
)
from apexmem_neo.store.pages import FACTS, KINDS, SESSIONS, TURNS, Kind, PageRequest
from benchmarks.graph.generate import Spec, generate
from tests.integration.store.conftest import wipe
from tests.integration.store.tcp_proxy import CuttingProxy
from tests.unit.store import old_ids
from tests.unit.store.backends import FakeClock
from tests.unit.store.test_contract import ALICE, conversation_batch, fact
from tests.unit.store.test_contract_pages import paged_batch

pytestmark = [pytest.mark.integration, pytest.mark.neo4j]

LABEL_OF_TABLE = {
    "sessions": "Session",
    "turns": "Turn",
    "entities": "Entity",
    "properties": "Property",
    "evidence": "Evidence",
    "events": "Event",
    "facts": "Fact",
}


def rows(driver: Driver, query: str, **params: Any) -> list[dict[str, Any]]:
    records, _, _ = driver.execute_query(query, params)
    return [r.data() for r in records]


def big_batch(n_facts: int) -> GraphBatch:
    facts = [
        fact(f"city {i}", f"2020-01-01T00:00:{i % 60:02d}", prop=f"p_{i % 7}")
        for i in range(n_facts)
    ]
    return GraphBatch(entities=[ALICE], facts=facts)


# ---- schema ----


def drop_store_schema(driver: Driver) -> None:
    for statement in cypher_files.schema_statements():
        kind, name = statement.split()[
            1:3
        ]  # "CREATE CONSTRAINT <name> ..." / "CREATE INDEX <name>"
        driver.execute_query(f"DROP {kind} {name} IF EXISTS")


def init_concurrently(stores: list[Neo4jGraphStore]) -> list[Exception]:
    """Call ``init_schema()`` on every store at once, one thread each; return the errors."""
    start, errors = threading.Barrier(len(stores)), []

    def init(store: Neo4jGraphStore) -> None:
        start.wait()
        try:
            store.init_schema()
        except Exception as exc:  # collected and asserted by the caller
            errors.append(exc)

    threads = [threading.Thread(target=init, args=(s,)) for s in stores]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return errors


def test_init_schema_is_idempotent_under_concurrent_calls(neo4j_driver: Driver) -> None:
    wipe(neo4j_driver)
    for _ in range(3):
        drop_store_schema(neo4j_driver)
        assert init_concurrently([Neo4jGraphStore(neo4j_driver) for _ in range(2)]) == []
    assert init_concurrently([Neo4jGraphStore(neo4j_driver) for _ in range(2)]) == []
    online = rows(neo4j_driver, "SHOW INDEXES YIELD name, state WHERE state = 'ONLINE'")
    names = {r["name"] for r in online}
    assert {"fact_timeline", "fact_entity_time", "participant_key_unique"} <= names


def test_constructor_does_no_io_and_queries_need_init_schema() -> None:
    driver = GraphDatabase.driver("bolt://127.0.0.1:1", auth=None)  # nothing listens there
    store = Neo4jGraphStore(driver, database="neo4j")
    with pytest.raises(StoreNotReadyError):
        store.counts()
    with pytest.raises(StoreNotReadyError):
        store.write(GraphBatch())
    driver.close()


def test_unreachable_server_is_a_service_error_naming_the_uri() -> None:
    with socket_port() as port:
        driver = GraphDatabase.driver(
            f"bolt://127.0.0.1:{port}",
            auth=None,
            connection_timeout=2.0,
            max_transaction_retry_time=0.5,
        )
    store = Neo4jGraphStore(driver)
    with pytest.raises(ServiceUnavailableError, match=f"127.0.0.1:{port}"):
        store.init_schema()
    driver.close()


# ---- graph shape: the SQL mirror and the traversal relationships ----


NULLABLE = {
    "sessions": {"started_at"},
    "turns": {"listener"},
    "evidence": {"turn_id", "span_start", "span_end"},
    "events": {"location", "turn_id", "evidence_id"},
    "facts": {"t_to", "event_id", "evidence_id"},
}


def test_node_properties_mirror_the_sql_columns(neo4j_store: Neo4jGraphStore) -> None:
    neo4j_store.write(conversation_batch())
    driver = neo4j_store.driver
    for table, label in LABEL_OF_TABLE.items():
        for row in rows(driver, f"MATCH (n:{label}) RETURN keys(n) AS keys"):
            keys, wanted = set(row["keys"]), set(COLUMNS[table])
            assert wanted - NULLABLE.get(table, set()) <= keys <= wanted, table  # NULL = absent
    (rel,) = rows(driver, "MATCH (:Event)-[r:PARTICIPANT]->(:Entity) RETURN properties(r) AS p")
    assert sorted(rel["p"]) == sorted(COLUMNS["event_participants"])
    (f,) = rows(driver, "MATCH (f:Fact) RETURN properties(f) AS p")
    assert set(f["p"]) == set(COLUMNS["facts"]) - {"t_to"}  # t_to is NULL (open-ended)


def test_traversal_relationships(neo4j_store: Neo4jGraphStore) -> None:
    neo4j_store.write(conversation_batch())
    found = rows(
        neo4j_store.driver,
        "MATCH (a)-[r]->(b) RETURN labels(a)[0] AS a, type(r) AS r, labels(b)[0] AS b "
        "ORDER BY a, r, b",
    )
    assert [(x["a"], x["r"], x["b"]) for x in found] == [
        ("Event", "ASSERTS", "Fact"),
        ("Event", "FROM_TURN", "Turn"),
        ("Event", "PARTICIPANT", "Entity"),
        ("Event", "SUPPORTED_BY", "Evidence"),
        ("Evidence", "FROM_TURN", "Turn"),
        ("Fact", "ABOUT", "Entity"),
        ("Fact", "SUPPORTED_BY", "Evidence"),
        ("Turn", "IN_SESSION", "Session"),
    ]


def test_turns_form_one_next_chain_whatever_the_write_order(neo4j_store: Neo4jGraphStore) -> None:
    session = Session(conversation_id="conv-next", seq=1)
    turns = [
        Turn(session_id=session.session_id, seq=i, speaker="A", text=f"t{i}", anchor="2023-01-01")
        for i in range(5)
    ]
    neo4j_store.write(GraphBatch(sessions=[session], turns=[turns[0], turns[4]]))
    neo4j_store.write(GraphBatch(turns=[turns[3], turns[1]]))
    neo4j_store.write(GraphBatch(turns=[turns[2]]))
    neo4j_store.write(GraphBatch(turns=turns))  # a re-write changes nothing
    chain = rows(
        neo4j_store.driver,
        "MATCH (a:Turn)-[:NEXT]->(b:Turn) RETURN a.seq AS a, b.seq AS b ORDER BY a",
    )
    assert [(x["a"], x["b"]) for x in chain] == [(0, 1), (1, 2), (2, 3), (3, 4)]


# ---- idempotence and atomicity ----


def test_rewriting_a_large_batch_adds_nothing(neo4j_driver: Driver) -> None:
    wipe(neo4j_driver)
    store = Neo4jGraphStore(neo4j_driver, clock=FakeClock(), chunk_rows=100)
    store.init_schema()
    batch = big_batch(1000)
    store.write(batch)
    first = store.counts()
    store.write(batch)
    assert store.counts() == first
    assert first.facts == 1000
    (rels,) = rows(neo4j_driver, "MATCH (:Fact)-[r]->() RETURN count(r) AS n")
    assert rels["n"] == 1000  # ABOUT, once each (no edge to the Property node)


def _fact_ids(driver: Driver) -> list[tuple[str, str]]:
    found = rows(driver, "MATCH (f:Fact) RETURN f.fact_id AS f, f.property_id AS p")
    return sorted((r["f"], r["p"]) for r in found)


def test_init_schema_gives_old_fact_and_property_ids_the_short_prefixes(
    neo4j_driver: Driver, monkeypatch: pytest.MonkeyPatch
) -> None:
    wipe(neo4j_driver)
    old_ids.use_old_prefixes(monkeypatch)
    old = Neo4jGraphStore(neo4j_driver, clock=FakeClock())
    old.init_schema()
    old.write(old_ids.timeline_batch())
    before, old_facts = old.counts(), _fact_ids(neo4j_driver)
    history = old.history(ALICE.entity_id, "attr_1")
    assert all(len(f) == len(p) == old_ids.OLD_ID_LENGTH for f, p in old_facts)
    old_ids.restore_prefixes(monkeypatch)

    monkeypatch.setattr(neo4j_store_module, "MIGRATION_BATCH", 4)  # several batches
    store = Neo4jGraphStore(neo4j_driver, clock=FakeClock())
    store.init_schema()
    assert _fact_ids(neo4j_driver) == sorted(
        (old_ids.new_form(f), old_ids.new_form(p)) for f, p in old_facts
    )
    properties = rows(neo4j_driver, "MATCH (p:Property) RETURN p.property_id AS id")
    assert {r["id"] for r in properties} == {p for _, p in _fact_ids(neo4j_driver)}
    store.write(old_ids.timeline_batch())  # today's ids: the rewritten nodes, nothing new
    assert store.counts() == before
    assert store.history(ALICE.entity_id, "attr_1") == [
        f.model_copy(update={"fact_id": old_ids.new_form(f.fact_id)}) for f in history
    ]
    store.init_schema()  # a migrated store: nothing left to rewrite
    assert store.counts() == before


def test_init_schema_removes_the_property_edges_of_older_stores(
    neo4j_driver: Driver, monkeypatch: pytest.MonkeyPatch
) -> None:
    wipe(neo4j_driver)
    store = Neo4jGraphStore(neo4j_driver, clock=FakeClock())
    store.init_schema()
    store.write(big_batch(30))
    before, facts = store.counts(), _fact_ids(neo4j_driver)
    # What a store written before 2026-12-03 also held: one edge per fact to its Property.
    (made,) = rows(
        neo4j_driver,
        "MATCH (f:Fact), (p:Property {property_id: f.property_id}) "
        "CREATE (f)-[:OF_PROPERTY]->(p) RETURN count(*) AS n",
    )
    assert made["n"] == 30
    monkeypatch.setattr(neo4j_store_module, "MIGRATION_BATCH", 7)  # several batches
    store.init_schema()
    (left,) = rows(neo4j_driver, "MATCH ()-[r:OF_PROPERTY]->() RETURN count(r) AS n")
    assert left["n"] == 0
    assert (store.counts(), _fact_ids(neo4j_driver)) == (before, facts)


SESSION_BY_ID: dict[str, dict[str, Any]] = {
    "write_turns": {"rows": []},
    "existing_session_ids": {"ids": []},
    "erase_delete": {"ids": {kind: [] for kind in neo4j_store_module.ERASE_KINDS}},
}
"""Queries that find a Session by its id and check its scope, with their parameters."""


def test_init_schema_drops_the_session_scope_index_so_sessions_are_found_by_id(
    neo4j_driver: Driver,
) -> None:
    """With an index on Session(scope) (stores of the first scoped versions had one) the
    planner sought every session of the scope and filtered them by id, per row."""
    wipe(neo4j_driver)
    store = Neo4jGraphStore(neo4j_driver, clock=FakeClock())
    store.init_schema()
    neo4j_driver.execute_query(
        "CREATE INDEX session_scope IF NOT EXISTS FOR (n:Session) ON (n.scope)"
    )
    store.write(conversation_batch())
    store.init_schema()
    assert not rows(neo4j_driver, "SHOW INDEXES YIELD name WHERE name = 'session_scope'")
    neo4j_driver.execute_query("CALL db.clearQueryCaches()")
    for name, params in SESSION_BY_ID.items():
        operators = store.plan(name, {**params, "scope": "default", "label": "Scope_x"})
        on_session = [op for op in operators if ":Session(" in op]
        assert on_session, (name, operators)
        assert all(op.startswith("NodeUniqueIndexSeek") for op in on_session), (name, operators)


def test_server_side_failure_mid_batch_leaves_nothing(neo4j_store: Neo4jGraphStore) -> None:
    batch = conversation_batch()
    part = batch.participants[0]
    # A PARTICIPANT with the batch's key between other nodes: the batch's MERGE creates a
    # second one, the uniqueness constraint fails, after sessions..events were written.
    neo4j_store.driver.execute_query(
        "CREATE (:Event {event_id: 'ev_other'})-[:PARTICIPANT {event_id: $ev, entity_id: $en, "
        "role: $role}]->(:Entity {entity_id: 'ent_other'})",
        {"ev": part.event_id, "en": part.entity_id, "role": part.role.value},
    )
    before = neo4j_store.counts()
    with pytest.raises(StoreError, match="rolled back"):
        neo4j_store.write(batch)
    assert neo4j_store.counts() == before


@pytest.fixture
def proxy(neo4j_driver: Driver) -> Iterator[CuttingProxy]:
    host, port = str(neo4j_driver.address).rsplit(":", 1)  # type: ignore[attr-defined]
    with CuttingProxy(host, int(port)) as p:
        yield p


def test_lost_connection_mid_batch_is_clear_and_a_retry_adds_no_duplicates(
    neo4j_store: Neo4jGraphStore, proxy: CuttingProxy
) -> None:
    uri = f"bolt://127.0.0.1:{proxy.port}"
    driver = GraphDatabase.driver(uri, auth=None, max_transaction_retry_time=0.5)
    cut_store = Neo4jGraphStore(driver, clock=FakeClock(), chunk_rows=50)
    cut_store.init_schema()
    batch = big_batch(2000)  # 40 UNWIND chunks of ~20 KB each
    proxy.cut_after(100_000)
    with pytest.raises(ServiceUnavailableError, match=f"127.0.0.1:{proxy.port}") as info:
        cut_store.write(batch)
    assert "connection lost" in str(info.value)
    assert proxy.cut.is_set()
    driver.close()
    assert neo4j_store.counts() == StoreCounts()  # the half-sent transaction never committed
    neo4j_store.write(batch)
    written = neo4j_store.counts()
    neo4j_store.write(batch)
    assert neo4j_store.counts() == written
    assert written.facts == 2000


# ---- plans: the temporal queries seek an index ----


def test_temporal_queries_seek_indexes(neo4j_store: Neo4jGraphStore) -> None:
    others = [Entity(name=f"other {i}", entity_type="Person") for i in range(50)]
    facts = [
        Fact(
            entity_id=e.entity_id,
            property="home_city",
            value="x",
            dtype="str",
            t_from=f"20{10 + i % 10}-01-01",
        )
        for i, e in enumerate(others)
    ]
    neo4j_store.write(
        GraphBatch(entities=[ALICE, *others], facts=[*facts, fact("Boston", "2023-01-01")])
    )
    params = {
        "entity_id": ALICE.entity_id,
        "property": "home_city",
        "t": "2023-06-01",
        "t1": "2020-01-01",
        "t2": "2024-01-01",
        "recorded_at": "2024-06-01",
    }
    # A freshly (re)created index has no statistics yet (the concurrency test drops them);
    # the server samples them in the background. Sample now so the plan is the steady one.
    for index in ("fact_timeline", "fact_entity_time"):
        neo4j_store.driver.execute_query("CALL db.resampleIndex($name)", {"name": index})
    neo4j_store.driver.execute_query("CALL db.clearQueryCaches()")
    for name in TEMPORAL_QUERIES:
        operators = neo4j_store.plan(name, params, profile=True)
        kinds = [op.split()[0] for op in operators]
        assert any(op.startswith("NodeIndexSeek") for op in operators), (name, kinds)
        assert not any("Scan" in op for op in operators), (name, operators)
        expected = (  # plans name an index by its properties
            "f:Fact(entity_id, t_from)"
            if name == "temporal_facts_between"
            else "f:Fact(entity_id, property, t_from)"
        )
        assert any(expected in op for op in operators), (name, operators)


def test_page_queries_seek_an_index_and_sort_at_most_a_key_group(
    neo4j_store: Neo4jGraphStore,
) -> None:
    """Every page query starts from an index seek (no label or type scan) and sorts no more
    than the rows sharing the index's columns (Limit or PartialTop, never a whole Top)."""
    for scope in ("alice", "bob", "carol"):
        neo4j_store.write(paged_batch(scope))
    (mom,) = neo4j_store.find_entities("Mom", scope="alice")
    session = paged_batch("alice").sessions[0].session_id
    reads: list[tuple[Kind[Any], dict[str, str]]] = [(kind, {}) for kind in KINDS]
    reads += [(SESSIONS, {"session_id": session}), (TURNS, {"session_id": session})]
    reads += [(FACTS, {"entity_id": mom.entity_id}), (FACTS, {"property": "job"})]
    reads += [(FACTS, {"entity_id": mom.entity_id, "property": "job"})]
    neo4j_store.driver.execute_query("CALL db.clearQueryCaches()")
    for kind, filters in reads:
        first = neo4j_store.page(kind, scope="alice", limit=1, filters=filters)
        name, params = page_query(PageRequest.checked(kind, "alice", first.next, 1, filters))
        operators = neo4j_store.plan(name, params, profile=True)
        assert any("IndexSeek" in op for op in operators), (name, operators)
        assert not any("Scan" in op or op.startswith("Top ") for op in operators), (name, operators)


# ---- Cypher files: loader and allow-list ----


def test_every_store_query_file_loads_and_is_allow_listed() -> None:
    store_queries = {
        *WRITE_QUERIES.values(),
        *EXISTING_QUERIES.values(),
        *TEMPORAL_QUERIES,
        *MERGE_QUERIES.values(),
        *(plan.existing for plan in CREATE_NEW.values() if plan.existing),
        *(plan.links for plan in CREATE_NEW.values() if plan.links),
        *("link_turns", "get_entity", "find_entities", "get_event", "write_participants_new"),
        *PAGE_QUERIES.values(),
    }
    assert store_queries | {"scopes"} <= set(cypher_files.query_names())
    for name in store_queries:
        assert "$" in cypher_files.query(name)
    statements = cypher_files.schema_statements()
    assert all(" IF NOT EXISTS" in s for s in statements)
    names = {s.split()[2] for s in statements}
    assert len(names) == len(statements)
    assert {"session_id_unique", "event_id_unique", "erasure_scope"} <= names
    retired = cypher_files.schema_statements(cypher_files.STORE_RETIRED)
    assert retired and all(s.startswith("DROP ") and s.endswith(" IF EXISTS") for s in retired)
    assert not names & {s.split()[2] for s in retired}


def test_allow_list_rejects_unknown_labels_and_names() -> None:
    with pytest.raises(cypher_files.CypherFileError, match="Secret"):
        cypher_files.check_allowed("x", "MATCH (n:Secret) RETURN n")
    with pytest.raises(cypher_files.CypherFileError, match="OWNS"):
        cypher_files.check_allowed("x", "MATCH (:Fact)-[:OWNS]->(n) RETURN n")
    with pytest.raises(cypher_files.CypherFileError, match="snake_case"):
        cypher_files.query("../schema/store_constraints")


class socket_port:
    """A local port with nothing listening on it (bound, then released on exit)."""

    def __enter__(self) -> int:
        import socket

        self._sock = socket.socket()
        self._sock.bind(("127.0.0.1", 0))
        port: int = self._sock.getsockname()[1]
        return port

    def __exit__(self, *exc: object) -> None:
        self._sock.close()


def _graph_shape(driver: Driver) -> list[dict[str, Any]]:
    return rows(
        driver,
        "MATCH (a)-[r]->(b) RETURN labels(a)[0] AS a, type(r) AS r, labels(b)[0] AS b, "
        "count(*) AS n ORDER BY a, r, b",
    )


def test_partly_stored_batch_creates_only_the_new_rows(neo4j_driver: Driver) -> None:
    """The CREATE fast path: a batch overlapping the store adds exactly the missing rows."""
    wipe(neo4j_driver)
    store = Neo4jGraphStore(neo4j_driver, clock=FakeClock(), chunk_rows=7)
    store.init_schema()
    full = conversation_batch()
    store.write(full)
    expected_counts, expected_shape = store.counts(), _graph_shape(neo4j_driver)
    wipe(neo4j_driver)
    first = full.model_copy(update={"facts": full.facts[:1], "participants": []})
    store.write(first)  # events without participants, one fact
    repeated = full.model_copy(
        update={"facts": full.facts + full.facts, "events": full.events + full.events}
    )
    store.write(repeated)  # duplicate rows in one batch, some already stored
    assert store.counts() == expected_counts
    assert _graph_shape(neo4j_driver) == expected_shape


def test_merge_fallback_path_is_idempotent_too(neo4j_driver: Driver) -> None:
    """The path taken after a concurrent writer's constraint clash: MERGE for every table."""
    wipe(neo4j_driver)
    store = Neo4jGraphStore(neo4j_driver, clock=FakeClock())
    store.init_schema()
    batch = conversation_batch()
    store.write(batch)
    expected_counts, expected_shape = store.counts(), _graph_shape(neo4j_driver)
    wipe(neo4j_driver)
    table_rows = _unique_rows(columns.batch_columns(batch, "2024-01-01T00:00:00"))
    with neo4j_driver.session() as session:
        for _ in range(2):
            session.execute_write(store._write_tx, batch, table_rows, True)
    assert store.counts() == expected_counts
    assert _graph_shape(neo4j_driver) == expected_shape


# ---- bulk loading with concurrent writers ----


def _facts_missing_a_link(driver: Driver) -> int:
    (row,) = rows(
        driver,
        "MATCH (f:Fact) WHERE NOT ((f)-[:ABOUT]->(:Entity) AND (:Event)-[:ASSERTS]->(f)"
        " AND EXISTS { MATCH (p:Property {property_id: f.property_id}) }) RETURN count(f) AS n",
    )
    return int(row["n"])


def test_two_writers_bulk_load_every_fact_once_with_its_links(neo4j_driver: Driver) -> None:
    wipe(neo4j_driver)
    store = Neo4jGraphStore(neo4j_driver)
    store.init_schema()
    batches = list(generate(Spec(n_facts=6000, n_entities=60, batch_facts=500)))
    report = write_batches(store, batches, writers=2)
    counts = store.counts()
    assert (report.facts, counts.facts) == (6000, 6000)
    assert counts.events == sum(len(b.events) for b in batches)
    assert _facts_missing_a_link(neo4j_driver) == 0
    (rels,) = rows(neo4j_driver, "MATCH (:Fact)-[r]-() RETURN count(r) AS n")
    assert rels["n"] == 2 * 6000  # ABOUT, ASSERTS: once each
    write_batches(store, batches, writers=2)
    assert store.counts() == counts


def _load_twice_at_once(store: Neo4jGraphStore, batches: list[GraphBatch]) -> None:
    """Two bulk loads of the same batches in two threads, two writers each; both succeed."""
    errors: list[BaseException] = []

    def load() -> None:
        try:
            write_batches(store, batches, writers=2)
        except BaseException as exc:  # surfaced by the assertion below
            errors.append(exc)

    threads = [threading.Thread(target=load) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []


def test_two_bulk_loads_of_the_same_batches_at_once_store_each_fact_once(
    neo4j_driver: Driver,
) -> None:
    """Both loads race to CREATE the same facts: the loser's batch rolls back on the fact_id
    constraint and is re-run with MERGE, so nothing is duplicated and nothing is lost."""
    wipe(neo4j_driver)
    store = Neo4jGraphStore(neo4j_driver)
    store.init_schema()
    head, *rest = list(generate(Spec(n_facts=4000, n_entities=40, batch_facts=400)))
    store.write(head)
    _load_twice_at_once(store, rest)
    assert store.counts().facts == 4000
    assert _facts_missing_a_link(neo4j_driver) == 0
    (dupes,) = rows(
        neo4j_driver,
        "MATCH ()-[r:ASSERTS]->(f:Fact) WITH f, count(r) AS n WHERE n > 1 RETURN count(f) AS n",
    )
    assert dupes["n"] == 0


def test_two_loads_into_an_empty_store_create_each_entity_and_property_once(
    neo4j_driver: Driver,
) -> None:
    """Entities and properties take the CREATE path too: racing loads clash on entity_id or
    property_id, the loser re-runs with MERGE, and each node exists once with its facts."""
    wipe(neo4j_driver)
    store = Neo4jGraphStore(neo4j_driver)
    store.init_schema()
    batches = list(generate(Spec(n_facts=3000, n_entities=30, batch_facts=300)))
    _load_twice_at_once(store, batches)
    counts = store.counts()
    assert counts.facts == 3000
    assert counts.entities == len({e.entity_id for b in batches for e in b.entities})
    assert counts.properties == len({p.property_id for b in batches for p in b.properties})
    assert _facts_missing_a_link(neo4j_driver) == 0
