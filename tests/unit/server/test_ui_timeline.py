"""The timeline's geometry without a server: how long each fact's bar runs, and where the
plot puts times (the stretch to a distant now drawn shorter past a break)."""

from __future__ import annotations

import re
from datetime import datetime

from apexmem_neo.ontology import Entity
from apexmem_neo.server.timeline import Bar, Row, Said, Timeline, bars, moment
from apexmem_neo.server.ui_html import MAX_TICKS, Scale, ticks
from apexmem_neo.store.protocol import FactRecord

NOW = datetime(2026, 1, 1)


def fact(n: int, value: object, t_from: str, t_to: str | None = None) -> FactRecord:
    return FactRecord(
        fact_id=f"f{n}", entity_id="e", property="city", value=value, value_json="",
        dtype="str", t_from=t_from, t_to=t_to, confidence=1.0, event_id=None,
        evidence_id=None, recorded_at="2024-01-01T00:00:00",
    )  # fmt: skip


def spans(drawn: tuple[Bar, ...]) -> list[tuple[str, str, bool]]:
    return [(b.start.date().isoformat(), b.end.date().isoformat(), b.open) for b in drawn]


def test_a_value_holds_until_its_t_to_the_next_fact_or_now() -> None:
    facts = [
        fact(1, "Boston", "2024-01-01", "2024-02-01"),  # its own end comes first
        fact(2, "Paris", "2024-03-01", "2024-09-01"),  # the next fact comes first
        fact(3, None, "2024-05-01"),  # an end, open until now
    ]
    drawn = bars(facts, NOW, {"f2": Said("Alice", "Paris!", "2024-03-01T10:00:00")})
    assert spans(drawn) == [
        ("2024-01-01", "2024-02-01", False),
        ("2024-03-01", "2024-05-01", False),
        ("2024-05-01", "2026-01-01", True),
    ]
    assert [b.ended for b in drawn] == [False, False, True]
    assert drawn[1].said == Said("Alice", "Paris!", "2024-03-01T10:00:00")
    assert drawn[0].said is None


def test_a_fact_dated_after_now_is_a_point() -> None:
    (drawn,) = bars([fact(1, "Mars", "2030-01-01")], NOW, {})
    assert drawn.start == drawn.end == datetime(2030, 1, 1) and drawn.open


def timeline(facts: list[FactRecord], at: str, now: datetime = NOW) -> Timeline:
    person = Entity(name="Alice", entity_type="Person")
    row = Row("city", bars(facts, now, {}))
    return Timeline(person, (row,), (), (), moment(at), now)


def test_a_distant_now_is_drawn_past_a_break() -> None:
    facts = [fact(1, "Boston", "2024-01-15"), fact(2, "Seattle", "2024-06-10")]
    scale = Scale.of(timeline(facts, "2024-04-01"))
    assert 0 < scale.split < 1
    assert scale.at(datetime(2024, 1, 15)) < scale.at(datetime(2024, 6, 10)) < scale.split
    assert scale.split < scale.at(NOW) < 1
    assert "⋯" in ticks(scale)


def test_a_near_now_is_plotted_on_one_scale() -> None:
    facts = [fact(1, "Boston", "2025-01-15"), fact(2, "Seattle", "2025-09-10")]
    scale = Scale.of(timeline(facts, "2025-04-01"))
    assert scale.split == 1.0 and 0.9 < scale.at(NOW) < 1
    labels = re.findall(r">([^<]+)</span>", ticks(scale))
    assert 3 <= len(labels) <= MAX_TICKS and "⋯" not in labels


def test_ticks_stay_few_over_decades() -> None:
    facts = [fact(1, "Boston", "1990-01-01"), fact(2, "Seattle", "2024-01-01")]
    labels = re.findall(r">([^<]+)</span>", ticks(Scale.of(timeline(facts, "2000-01-01"))))
    assert 2 <= len(labels) <= MAX_TICKS + 1
