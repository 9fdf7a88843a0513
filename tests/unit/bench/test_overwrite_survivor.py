"""The materialised overwrite memory keeps the same survivor as EagerOverwriteStore."""

from __future__ import annotations

from pathlib import Path

from apexmem_neo.ontology import Entity, Fact, GraphBatch
from apexmem_neo.store.eager import EagerOverwriteStore
from apexmem_neo.store.sqlite import SQLiteGraphStore
from benchmarks.temporal.overwrite import materialise_overwrite

ANN = Entity(name="Ann", entity_type="Person")
SAME_SECOND = "2024-05-01T10:00:00"


def city(value: str, t_from: str, recorded_at: str) -> Fact:
    return Fact(
        entity_id=ANN.entity_id,
        property="city",
        value=value,
        dtype="str",
        t_from=t_from,
        recorded_at=recorded_at,
    )


def _tie_against_time() -> list[Fact]:
    """Two facts recorded in one second whose fact ids order them against their own times."""
    names = ("Oslo", "Rome", "Lima", "Kyiv", "Pune", "Baku")
    for old_name in names:
        for new_name in names:
            old = city(old_name, "2024-01-01", SAME_SECOND)
            new = city(new_name, "2024-03-01", SAME_SECOND)
            if old_name != new_name and old.fact_id > new.fact_id:
                return [old, new]
    raise AssertionError("no pair of names orders its fact ids against time")


def _kept(path: Path) -> list[str]:
    store = SQLiteGraphStore(path)
    store.init_schema()
    try:
        return [str(f.value) for f in store.history(ANN.entity_id, "city")]
    finally:
        store.close()


def test_materialised_survivor_is_the_latest_by_own_time(tmp_path: Path) -> None:
    old, new = _tie_against_time()
    late = city("Lima", "2019-01-01", "2024-06-01T00:00:00")  # recorded last, oldest own time
    source = SQLiteGraphStore(tmp_path / "append.sqlite")
    source.init_schema()
    source.write(GraphBatch(entities=[ANN], facts=[new, old, late]))
    eager = EagerOverwriteStore(source).history(ANN.entity_id, "city")
    source.close()
    counts = materialise_overwrite(tmp_path / "append.sqlite", tmp_path / "over.sqlite")
    assert counts["facts_kept"] == 1
    assert _kept(tmp_path / "over.sqlite") == [f.value for f in eager] == [new.value]
