"""The eager overwrite baseline loses exactly what append-only keeps."""

from __future__ import annotations

from apexmem_neo.ontology import Entity, Fact, GraphBatch
from apexmem_neo.store.eager import EagerOverwriteStore
from apexmem_neo.store.reference import InMemoryGraphStore

ANN = Entity(name="Ann", entity_type="Person")


def city(value: str, t_from: str, recorded_at: str, t_to: str | None = None) -> Fact:
    return Fact(
        subject=ANN.entity_id,
        property="city",
        value=value,
        dtype="str",
        t_from=t_from,
        t_to=t_to,
        recorded_at=recorded_at,
    )


def stores() -> tuple[InMemoryGraphStore, EagerOverwriteStore]:
    inner = InMemoryGraphStore()
    inner.init_schema()
    eager = EagerOverwriteStore(inner)
    eager.write(
        GraphBatch(
            entities=[ANN],
            facts=[
                city("Oslo", "2020-01-01", "2020-01-02"),
                city("Rome", "2022-01-01", "2022-01-02"),
                city("Lima", "2019-01-01", "2023-01-01", t_to="2019-06-01"),  # learned late
            ],
        )
    )
    return inner, eager


def test_the_last_written_fact_survives() -> None:
    inner, eager = stores()
    e = ANN.entity_id
    assert inner.current(e, "city").value == "Rome"  # type: ignore[union-attr]
    assert eager.current(e, "city").value == "Lima"  # type: ignore[union-attr]
    assert [f.value for f in eager.history(e, "city")] == ["Lima"]
    assert eager.changes(e, "city") == []
    assert len(inner.changes(e, "city")) == 2


def test_eager_as_of_and_before_only_know_the_survivor() -> None:
    inner, eager = stores()
    e = ANN.entity_id
    assert eager.as_of(e, "city", "2021-01-01") is None
    assert inner.as_of(e, "city", "2021-01-01").value == "Oslo"  # type: ignore[union-attr]
    assert eager.before(e, "city", "2019-03-01").value == "Lima"  # type: ignore[union-attr]
    assert eager.current(e, "city", now="2024-01-01") is None
    assert [f.value for f in eager.facts_between(e, "2018-01-01", "2030-01-01")] == ["Lima"]
