"""The eager overwrite baseline loses exactly what append-only keeps."""

from __future__ import annotations

from apexmem_neo.ontology import Entity, Fact, GraphBatch
from apexmem_neo.store.eager import EagerOverwriteStore
from apexmem_neo.store.reference import InMemoryGraphStore

ANN = Entity(name="Ann", entity_type="Person")


def city(value: str, t_from: str, recorded_at: str, t_to: str | None = None) -> Fact:
    return Fact(
        entity_id=ANN.entity_id,
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


def test_the_fact_with_the_latest_own_time_survives() -> None:
    inner, eager = stores()
    e = ANN.entity_id
    assert inner.current(e, "city").value == "Rome"  # type: ignore[union-attr]
    assert eager.current(e, "city").value == "Rome"  # type: ignore[union-attr]
    assert [f.value for f in eager.history(e, "city")] == ["Rome"]
    assert eager.changes(e, "city") == []
    assert len(inner.changes(e, "city")) == 2


def test_eager_as_of_and_before_only_know_the_survivor() -> None:
    inner, eager = stores()
    e = ANN.entity_id
    assert eager.as_of(e, "city", "2021-01-01") is None
    assert inner.as_of(e, "city", "2021-01-01").value == "Oslo"  # type: ignore[union-attr]
    assert eager.before(e, "city", "2019-03-01") is None
    assert inner.before(e, "city", "2019-03-01").value == "Lima"  # type: ignore[union-attr]
    assert eager.current(e, "city", now="2024-01-01").value == "Rome"  # type: ignore[union-attr]
    assert eager.current(e, "city", now="2021-01-01") is None
    assert [f.value for f in eager.facts_between(e, "2018-01-01", "2030-01-01")] == ["Rome"]


def survivor(facts: list[Fact]) -> str:
    """The value the overwrite baseline keeps after ``facts`` are written in this order."""
    inner = InMemoryGraphStore()
    inner.init_schema()
    eager = EagerOverwriteStore(inner)
    eager.write(GraphBatch(entities=[ANN], facts=facts))
    kept = eager.current(ANN.entity_id, "city")
    assert kept is not None
    return str(kept.value)


def test_a_recorded_at_tie_within_a_second_is_settled_by_own_time() -> None:
    """One ingest stamps many facts in the same second; the fact id, a hash, must not decide."""
    same_second = "2024-05-01T10:00:00"
    names = ("Oslo", "Rome", "Lima", "Kyiv", "Pune", "Baku")
    pairs = [
        (city(old, "2024-01-01", same_second), city(new, "2024-03-01", same_second))
        for old in names
        for new in names
        if old != new
    ]
    # pairs whose older fact has the greater id: (recorded_at, fact_id) would keep the older
    against = [(old, new) for old, new in pairs if old.fact_id > new.fact_id]
    assert against
    for old, new in against[:3]:
        assert survivor([old, new]) == survivor([new, old]) == new.value


def test_a_later_recorded_fact_with_an_earlier_own_time_does_not_survive() -> None:
    facts = [city("Rome", "2022-01-01", "2022-01-02"), city("Lima", "2019-01-01", "2023-01-01")]
    assert survivor(facts) == "Rome"
    assert survivor(facts[::-1]) == "Rome"  # nor does the order of writing decide


def test_equal_own_times_are_settled_by_recorded_at_then_fact_id() -> None:
    t = "2024-01-01"
    assert survivor([city("Oslo", t, "2024-02-01"), city("Rome", t, "2024-01-02")]) == "Oslo"
    tied = [city("Oslo", t, "2024-02-01"), city("Rome", t, "2024-02-01")]
    assert survivor(tied) == max(tied, key=lambda f: f.fact_id).value
    assert survivor(tied[::-1]) == survivor(tied)
