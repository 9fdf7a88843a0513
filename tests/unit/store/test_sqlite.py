"""What only the SQLite backend has: migrations, pragmas, triggers, query plans."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from apexmem_neo.ontology import Entity, Fact, GraphBatch
from apexmem_neo.store import StoreError, StoreNotReadyError, columns
from apexmem_neo.store.sqlite import SQLiteGraphStore
from apexmem_neo.store.sqlite import store as store_module
from apexmem_neo.store.sqlite.store import QUERIES, explain, migrations
from tests.unit.store import old_ids
from tests.unit.store.backends import FakeClock
from tests.unit.store.test_contract import ALICE

ANN = Entity(name="Ann", entity_type="Person")
ALICE_ID = ALICE.entity_id


def opened(path: Path | str) -> SQLiteGraphStore:
    store = SQLiteGraphStore(path, clock=FakeClock())
    store.init_schema()
    return store


def test_constructor_does_no_io(tmp_path: Path) -> None:
    store = SQLiteGraphStore(tmp_path / "never.sqlite3")
    assert not (tmp_path / "never.sqlite3").exists()
    with pytest.raises(StoreNotReadyError):
        store.counts()


def test_migrations_are_numbered_and_recorded(tmp_path: Path) -> None:
    numbers = [number for number, _, _ in migrations()]
    assert numbers == sorted(numbers) and numbers[0] == 1
    store = opened(tmp_path / "g.sqlite3")
    assert store.schema_version() == numbers[-1]
    store.close()
    again = opened(tmp_path / "g.sqlite3")  # re-opening applies nothing twice
    rows = again.connection.execute("SELECT version, name FROM schema_version").fetchall()
    assert [r[0] for r in rows] == numbers
    assert rows[0][1].startswith("0001_")
    again.close()


def test_wal_and_foreign_keys_are_on(tmp_path: Path) -> None:
    store = opened(tmp_path / "g.sqlite3")
    conn = store.connection
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    store.close()


def test_checkpoint_empties_the_wal_into_the_database_file(tmp_path: Path) -> None:
    store = opened(tmp_path / "g.sqlite3")
    store.write(GraphBatch(entities=[ANN]))
    wal = tmp_path / "g.sqlite3-wal"
    assert wal.stat().st_size > 0
    store.checkpoint()
    assert wal.stat().st_size == 0  # TRUNCATE: the file holds everything
    assert store.counts().entities == 1
    store.close()


def test_new_files_get_64k_pages_and_no_event_index_on_facts(tmp_path: Path) -> None:
    store = opened(tmp_path / "g.sqlite3")
    conn = store.connection
    assert conn.execute("PRAGMA page_size").fetchone()[0] == 65536
    indexes = {r[1] for r in conn.execute("PRAGMA index_list(facts)")}
    assert "facts_event" not in indexes
    assert {"facts_timeline", "facts_entity_time"} <= indexes
    store.close()


def test_migration_0003_drops_facts_event_of_an_existing_file(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE schema_version (version INTEGER PRIMARY KEY, name TEXT, at TEXT)")
    for number, name, sql in migrations():
        if number <= 2:
            conn.executescript(sql)
            conn.execute("INSERT INTO schema_version VALUES (?, ?, 'x')", (number, name))
    conn.commit()
    conn.close()
    store = opened(path)  # an existing 4 KiB-page file keeps its page size
    conn2 = store.connection
    assert conn2.execute("PRAGMA page_size").fetchone()[0] == 4096
    assert "facts_event" not in {r[1] for r in conn2.execute("PRAGMA index_list(facts)")}
    store.write(GraphBatch(entities=[ANN]))
    assert store.counts().entities == 1
    store.close()


def test_facts_cannot_be_updated_or_deleted() -> None:
    store = opened(":memory:")
    fact = Fact(subject=ANN.entity_id, property="age", value=3, dtype="int", t_from="2020-01-01")
    store.write(GraphBatch(entities=[ANN], facts=[fact]))
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        store.connection.execute("UPDATE facts SET value_json = '4'")
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        store.connection.execute("DELETE FROM facts")
    assert store.counts().facts == 1


def test_a_failing_statement_rolls_the_whole_batch_back() -> None:
    store = opened(":memory:")
    # Entities insert before facts; a fact insert that fails must take the entity with it.
    store.connection.execute(
        "CREATE TEMP TRIGGER fail_facts BEFORE INSERT ON facts "
        "BEGIN SELECT RAISE(ABORT, 'injected failure'); END"
    )
    fact = Fact(subject=ANN.entity_id, property="age", value=3, dtype="int", t_from="2020-01-01")
    with pytest.raises(StoreError, match="rolled back: injected failure"):
        store.write(GraphBatch(entities=[ANN], facts=[fact]))
    assert store.counts().entities == 0
    assert not store.connection.in_transaction


@pytest.mark.parametrize("name", sorted(QUERIES))
def test_every_temporal_query_uses_an_index(name: str) -> None:
    store = opened(":memory:")
    params = {"e": "ent_x", "p": "age", "t": "2020-01-01T00:00:00", "r": "2020-01-01T00:00:00"}
    params |= {"t1": "2020-01-01T00:00:00", "t2": "2021-01-01T00:00:00"}
    sql = QUERIES[name]
    plan = explain(store.connection, sql, {k: v for k, v in params.items() if f":{k}" in sql})
    assert "INDEX facts_" in plan, plan
    assert "SCAN facts" not in plan


LATER_COLUMNS = ("scope", "metadata_json")
"""Columns that migrations from 0005 on added."""


def writes_without_scope(monkeypatch: pytest.MonkeyPatch, all_migrations: Any, upto: int) -> None:
    """Make the store write as it did before migration ``upto + 1``, which added scopes
    (without the columns later migrations added too: a turn's metadata)."""
    monkeypatch.setattr(store_module, "migrations", lambda: list(all_migrations())[:upto])
    kept = {
        table: [i for i, c in enumerate(cols) if c not in LATER_COLUMNS]
        for table, cols in columns.COLUMNS.items()
    }
    inserts = {
        table: (
            f"INSERT OR IGNORE INTO {table} ({', '.join(cols[i] for i in kept[table])}) "
            f"VALUES ({', '.join('?' * len(kept[table]))})"
        )
        for table, cols in columns.COLUMNS.items()
    }
    monkeypatch.setattr(store_module, "INSERTS", inserts)
    tuples = columns.batch_tuples

    def unscoped(batch: GraphBatch, default: str) -> dict[str, list[tuple[Any, ...]]]:
        return {
            t: [tuple(row[i] for i in kept[t]) for row in rows]
            for t, rows in tuples(batch, default).items()
        }

    monkeypatch.setattr(columns, "batch_tuples", unscoped)
    monkeypatch.setattr(store_module.SQLiteGraphStore, "_existing_in", _unscoped_existing)


def _unscoped_existing(store: SQLiteGraphStore, scope: str) -> Any:
    def existing(kind: str, wanted: Any) -> set[str]:
        table, column = store_module.ID_COLUMNS[kind]
        marks = ",".join("?" * len(wanted))
        sql = f"SELECT {column} FROM {table} WHERE {column} IN ({marks})"
        return {r[0] for r in store.connection.execute(sql, list(wanted))}

    return existing


def test_migration_0005_puts_old_rows_in_the_default_scope(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    with pytest.MonkeyPatch.context() as before_scopes:
        writes_without_scope(before_scopes, store_module.migrations, 4)
        old = opened(path)
        old.write(old_ids.timeline_batch())
        before = old.counts()
        old.close()
    store = opened(path)
    assert store.schema_version() >= 5
    scopes = {
        t: {r[0] for r in store.connection.execute(f"SELECT DISTINCT scope FROM {t}")}
        for t in ("sessions", "turns", "entities", "properties", "facts")
    }
    assert all(found <= {"default"} for found in scopes.values())
    store.write(old_ids.timeline_batch())  # the default scope's ids are the old ones
    assert store.counts() == before
    assert store.find_entities(ALICE.name, scope="default")
    assert store.find_entities(ALICE.name, scope="alice") == []
    store.close()


def test_migration_0004_gives_old_fact_and_property_ids_the_short_prefixes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "old.sqlite3"
    with monkeypatch.context() as before_scopes:
        writes_without_scope(before_scopes, store_module.migrations, 3)
        old_ids.use_old_prefixes(before_scopes)
        old = opened(path)
        old.write(old_ids.timeline_batch())
        before = old.counts()
        old_facts = old.connection.execute("SELECT fact_id, property_id FROM facts").fetchall()
        history = old.history(ALICE_ID, "attr_1")
        old.close()
    assert all(len(f) == len(p) == old_ids.OLD_ID_LENGTH for f, p in old_facts)

    store = opened(path)  # applies 0004
    conn = store.connection
    facts = conn.execute("SELECT fact_id, property_id FROM facts").fetchall()
    assert sorted(map(tuple, facts)) == sorted(
        (old_ids.new_form(f), old_ids.new_form(p)) for f, p in old_facts
    )
    properties = {r[0] for r in conn.execute("SELECT property_id FROM properties")}
    assert properties == {p for _, p in facts}
    assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
    store.write(old_ids.timeline_batch())  # today's ids: the rewritten rows, nothing new
    assert store.counts() == before
    assert [(f.value, f.t_from) for f in store.history(ALICE_ID, "attr_1")] == [
        (f.value, f.t_from) for f in history
    ]
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        conn.execute("UPDATE facts SET fact_id = 'x'")
    store.close()
