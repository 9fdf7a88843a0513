"""Ontology models: validation, normalisation and deterministic ids (no I/O)."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone
from typing import Any

import pytest
from pydantic import ValidationError

from apexmem_neo.ontology import (
    ENTITY_TYPE_DESCRIPTIONS,
    DType,
    Entity,
    EntityType,
    Event,
    EventParticipant,
    Evidence,
    Fact,
    GraphBatch,
    Property,
    Role,
    Session,
    Turn,
    normalize_time,
)

ANN = Entity(name="Ann", entity_type="Person")


def fact(**overrides: Any) -> Fact:
    data: dict[str, Any] = {
        "subject": ANN.entity_id,
        "property": "home_city",
        "value": "Oslo",
        "dtype": "str",
        "t_from": "2023-01-01",
    }
    return Fact(**(data | overrides))


def error_of(exc: ValidationError) -> tuple[tuple[Any, ...], Any, str]:
    (err,) = exc.errors()
    return err["loc"], err["input"], err["msg"]


def test_there_are_35_described_entity_types() -> None:
    assert len(EntityType) == 35
    assert set(ENTITY_TYPE_DESCRIPTIONS) == set(EntityType)
    assert all(t.description for t in EntityType)
    for name in ("Person", "Corporation", "Taxonomy", "CreativeWork", "Medication", "Task"):
        assert EntityType(name).value == name


def test_roles_and_dtypes() -> None:
    assert [r.value for r in Role] == ["Speaker", "Listener", "Agent", "Mentioned"]
    assert {d.value for d in DType} == {
        "str", "int", "float", "bool", "date", "datetime", "enum", "url", "list"
    }  # fmt: skip


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("2023-05-08", "2023-05-08T00:00:00"),
        (date(2023, 5, 8), "2023-05-08T00:00:00"),
        ("2023-05-08T13:56:12.789", "2023-05-08T13:56:12"),
        ("2023-05-08T13:56:00Z", "2023-05-08T13:56:00"),
        ("2023-05-08T01:00:00+02:00", "2023-05-07T23:00:00"),
        (datetime(2023, 5, 8, 1, tzinfo=timezone(timedelta(hours=-5))), "2023-05-08T06:00:00"),
        (datetime(9, 1, 2, tzinfo=UTC), "0009-01-02T00:00:00"),
    ],
)
def test_times_normalise_to_utc_seconds(given: Any, expected: str) -> None:
    assert normalize_time(given) == expected


@pytest.mark.parametrize("bad", ["yesterday", "2023-13-01", 1683554160, None])
def test_bad_times_are_rejected_by_name(bad: Any) -> None:
    with pytest.raises(ValidationError) as info:
        fact(t_from=bad)
    loc, value, msg = error_of(info.value)
    assert loc == ("t_from",) and value == bad
    assert repr(bad) in msg


@pytest.mark.parametrize(
    ("dtype", "value", "extra"),
    [
        ("int", "3", {}),
        ("int", True, {}),
        ("int", 3.0, {}),
        ("float", "1.5", {}),
        ("float", float("nan"), {}),
        ("bool", 1, {}),
        ("str", 3, {}),
        ("date", "2023-02-30", {}),
        ("date", "last week", {}),
        ("date", datetime(2023, 1, 1, 10), {}),
        ("datetime", "noon", {}),
        ("enum", "purple", {"enum_values": ("red", "green")}),
        ("url", "not a url", {}),
        ("url", "example.org/x", {}),
        ("list", "a,b", {}),
        ("list", [object()], {}),
    ],
)
def test_value_must_match_dtype(dtype: str, value: Any, extra: dict[str, Any]) -> None:
    with pytest.raises(ValidationError) as info:
        fact(dtype=dtype, value=value, **extra)
    loc, got, _ = error_of(info.value)
    assert loc == ("value",)
    assert got is value or got == value


@pytest.mark.parametrize(
    ("dtype", "value", "stored", "extra"),
    [
        ("int", -4, -4, {}),
        ("float", 2, 2.0, {}),
        ("bool", True, True, {}),
        ("date", "2023-02-28", "2023-02-28", {}),
        ("date", datetime(2023, 2, 28), "2023-02-28", {}),
        ("datetime", date(2023, 2, 28), "2023-02-28T00:00:00", {}),
        ("enum", "red", "red", {"enum_values": ("red", "green")}),
        ("url", "mailto:ann@example.org", "mailto:ann@example.org", {}),
        ("list", ("a", 2), ["a", 2], {}),
    ],
)
def test_valid_values_are_normalised(dtype: str, value: Any, stored: Any, extra: Any) -> None:
    f = fact(dtype=dtype, value=value, **extra)
    assert f.value == stored and type(f.value) is type(stored)


def test_enum_needs_its_values_and_others_must_not_have_them() -> None:
    with pytest.raises(ValidationError, match="enum_values"):
        fact(dtype="enum", value="red")
    with pytest.raises(ValidationError, match="enum_values"):
        fact(enum_values=("a",))
    with pytest.raises(ValidationError, match="duplicates"):
        Property(name="level", dtype="enum", enum_values=("a", "a"))


def test_interval_and_confidence_are_checked() -> None:
    with pytest.raises(ValidationError) as info:
        fact(t_from="2023-02-01", t_to="2023-01-01")
    assert error_of(info.value)[:2] == (("t_to",), "2023-01-01")
    assert fact(t_from="2023-01-01", t_to="2023-01-01").t_to == "2023-01-01T00:00:00"
    for bad in (-0.1, 1.01, float("inf")):
        with pytest.raises(ValidationError) as info:
            fact(confidence=bad)
        assert error_of(info.value)[:2] == (("confidence",), bad)


@pytest.mark.parametrize("name", ["HomeCity", "home-city", "home city", "_x", "x__y", "1st", ""])
def test_property_names_are_snake_case(name: str) -> None:
    with pytest.raises(ValidationError) as info:
        fact(property=name)
    assert error_of(info.value)[:2] == (("property",), name)
    with pytest.raises(ValidationError):
        Property(name=name, dtype="str")


def test_unknown_fields_and_types_are_rejected() -> None:
    with pytest.raises(ValidationError) as info:
        Entity(name="Ann", entity_type="Wizard")
    assert error_of(info.value)[:2] == (("entity_type",), "Wizard")
    with pytest.raises(ValidationError, match="colour"):
        fact(colour="red")


def test_ids_are_deterministic_content_hashes() -> None:
    assert Entity(name="  ann ", entity_type="Person").entity_id == ANN.entity_id
    assert Entity(name="Ann", entity_type="Animal").entity_id != ANN.entity_id
    assert fact().fact_id == fact(t_from=date(2023, 1, 1)).fact_id == fact(confidence=0.3).fact_id
    assert fact().fact_id != fact(value="Rome").fact_id
    assert fact().fact_id != fact(t_to="2024-01-01").fact_id
    assert fact(event_id="ev_a").fact_id != fact(event_id="ev_b").fact_id
    assert fact().fact_id.startswith("fct_") and ANN.entity_id.startswith("ent_")
    assert Entity(name="Ann", entity_type="Person", entity_id="ent_given").entity_id == "ent_given"


def test_fact_and_property_ids_fit_neo4j_inline_strings() -> None:
    """Neo4j keeps a string of up to 36 [a-z0-9_] characters inline in the node record."""
    assert len(fact().fact_id) == 36
    assert len(Property(name="favourite_colour", dtype="str").property_id) == 36


def test_ids_with_the_old_prefixes_are_upgraded_where_models_are_built() -> None:
    """Old checkpoints and data files carry fact_/prop_ ids; they must not re-enter a store."""
    hex32 = fact().fact_id[-32:]
    assert fact(fact_id=f"fact_{hex32}").fact_id == f"fct_{hex32}"
    assert fact(fact_id="fact_given").fact_id == "fact_given"  # not an old hashed id
    prop = Property(name="favourite_colour", dtype="str")
    old = Property(
        name="favourite_colour", dtype="str", property_id=f"prop_{prop.property_id[-32:]}"
    )
    assert old.property_id == prop.property_id


def test_turn_event_evidence_ids_follow_the_turn() -> None:
    session = Session(conversation_id="conv-26", seq=1)
    t1 = Turn(
        session_id=session.session_id, seq=0, speaker="Ann", text="Hi  there", anchor="2023-05-08"
    )
    t2 = Turn(
        session_id=session.session_id, seq=0, speaker="ann", text="hi there", anchor="2023-05-08"
    )
    assert t1.turn_id == t2.turn_id
    ev1 = Event(type="greeting", timestamp="2023-05-08", turn_id=t1.turn_id)
    ev2 = Event(type="greeting", timestamp="2023-05-08", turn_id="turn_other")
    assert ev1.event_id != ev2.event_id and ev1.anchor_datetime == "2023-05-08T00:00:00"
    a = Evidence(text="Hi there", turn_id=t1.turn_id, span=(0, 8))
    assert (
        a.span == (0, 8)
        and a.evidence_id
        == Evidence(text="hi there", turn_id=t1.turn_id, span_start=0, span_end=8).evidence_id
    )
    with pytest.raises(ValidationError, match="span_end"):
        Evidence(text="x", span=(5, 2))


def test_batch_derives_missing_properties_and_lists_external_references() -> None:
    enum_fact = fact(property="mood", dtype="enum", value="ok", enum_values=("ok", "bad"))
    part = EventParticipant(event_id="ev_x", entity_id=ANN.entity_id, role="Speaker")
    batch = GraphBatch(
        properties=[Property(name="home_city", dtype="str", description="where they live")],
        facts=[fact(), enum_fact, fact(value="Rome")],
        participants=[part],
    )
    assert [(p.name, p.description) for p in batch.properties] == [
        ("home_city", "where they live"),
        ("mood", ""),
    ]
    assert batch.properties[1].enum_values == ("ok", "bad")
    assert batch.external_references() == {"entity": {ANN.entity_id}, "event": {"ev_x"}}
    assert GraphBatch(entities=[ANN], facts=[fact()]).external_references() == {}


def test_an_end_has_no_value_in_any_dtype_and_reads_as_ended() -> None:
    from apexmem_neo.ontology import ENDED, value_text

    for dtype in ("str", "int", "date"):
        end = Fact(entity_id="e1", property="p", dtype=dtype, value=None, t_from="2024-01-01")
        assert end.value is None and end.value_json == "null"
    assert value_text(None) == ENDED and value_text(3) == "3"
