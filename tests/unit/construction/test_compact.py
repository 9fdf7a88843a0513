"""Compact extraction (the default) with DummyLM: conversion, evidence sentences, failures."""

from __future__ import annotations

from typing import Any

import dspy

from apexmem_neo.construction.calls import CompactJSONAdapter
from apexmem_neo.construction.checkpoint import Checkpoint
from apexmem_neo.construction.compact import as_extracted, sentence_from
from apexmem_neo.construction.loaders import TurnInput
from apexmem_neo.construction.pipeline import ConstructionPipeline, PipelineConfig
from apexmem_neo.llm.extract_compact import CompactEvent, ExtractCompact
from apexmem_neo.ontology import EntityType
from apexmem_neo.ontology.ids import entity_id
from apexmem_neo.store.sqlite import SQLiteGraphStore
from tests.unit.construction.conftest import turn

ADAPTER = CompactJSONAdapter()
SCOPE = "test"
ALICE = entity_id(EntityType.PERSON.value, "Alice", SCOPE)
DAY = "2024-03-20T19:00:00"
TEXTS = [
    "Hi Bob! How are you?",  # Alice
    "Great, thanks. And you?",  # Bob
    "Good! Now Sakura Sushi is my favorite restaurant. The fish is so fresh.",  # Alice
    "Nice. I adopted a dog last week, his name is Rex.",  # Bob
    "I moved to Denver yesterday, by the way.",  # Alice
]


def session_turns() -> list[TurnInput]:
    speakers = ["Alice", "Bob"]
    return [turn(text, DAY, seq, speaker=speakers[seq % 2]) for seq, text in enumerate(TEXTS)]


def compact_fact(
    subject: str, prop: str, value: Any, quote: str, when: str | None = None
) -> dict[str, Any]:
    return {"subject": subject, "property": prop, "value": value, "when": when, "quote": quote}


def compact(
    kind: str, mentions: list[tuple[str, str]], facts: list[dict[str, Any]]
) -> dict[str, Any]:
    named = [{"name": name, "type": type_} for name, type_ in mentions]
    return {"event": {"event": kind, "mentions": named, "facts": facts}}


def key(text: str) -> str:
    return f"[[ ## text ## ]]\n{text}"


ANSWERS = {
    key(TEXTS[0]): compact("greeting", [], []),
    key(TEXTS[1]): compact("small_talk", [], []),
    key(TEXTS[2]): compact("preference_stated", [("Sakura Sushi", "Corporation")], [
        compact_fact("Alice", "favourite_restaurant", "Sakura Sushi", "Now Sakura Sushi is"),
    ]),
    key(TEXTS[3]): compact("adopted_pet", [("Rex", "Animal")], [
        compact_fact("Bob", "has_pet", "Rex", "Nice. I adopted", "last week"),
    ]),
    key(TEXTS[4]): compact("moved_city", [("Denver", "Place")], [
        compact_fact("Alice", "lives_in", "Denver", "I moved to Denver", "yesterday"),
    ]),
}  # fmt: skip


def compact_pipeline(
    store: SQLiteGraphStore, checkpoint: Checkpoint, answers: Any
) -> ConstructionPipeline:
    lm = dspy.utils.DummyLM(answers, adapter=ADAPTER)
    return ConstructionPipeline(store, checkpoint, lm, PipelineConfig(), ADAPTER)


def test_a_quote_becomes_the_text_to_the_end_of_its_sentence() -> None:
    text = "Oh no! I started at Orbit Labs last week. Version 2.5 is out."
    assert sentence_from("i started at", text) == "I started at Orbit Labs last week."
    assert sentence_from("Version 2.5", text) == "Version 2.5 is out."
    assert sentence_from("Oh no! I started", text) == "Oh no! I started at Orbit Labs last week."
    assert sentence_from("not in the text", text) == "not in the text"


def test_compact_events_convert_with_inferred_dtypes_and_no_model_dates() -> None:
    event = CompactEvent.model_validate(
        compact("ran", [("Chicago marathon", "Event")], [
            compact_fact("Tom", "marathon_time_minutes", 252, "I ran", "last Sunday"),
            compact_fact("Tom", "finished", True, "I ran"),
            compact_fact("Tom", "race_day", "2023-10-08", "I ran"),
        ])["event"]
    )  # fmt: skip
    extracted = as_extracted(event, "I ran the marathon last Sunday. Tired now.")
    assert extracted.type == "ran" and extracted.when == "last Sunday"
    assert [(p.name, p.role.value) for p in extracted.participants] == [
        ("Chicago marathon", "Mentioned")
    ]
    assert [(f.dtype.value, f.t_from, f.t_to, f.evidence) for f in extracted.facts] == [
        ("int", None, None, "I ran the marathon last Sunday."),
        ("bool", None, None, "I ran the marathon last Sunday."),
        ("date", None, None, "I ran the marathon last Sunday."),
    ]


def test_the_default_pipeline_builds_facts_with_sentence_evidence_and_rule_dates(
    store: SQLiteGraphStore, checkpoint: Checkpoint
) -> None:
    stats = compact_pipeline(store, checkpoint, ANSWERS).ingest(session_turns())
    assert stats.llm_calls == 5 and stats.turns_done == 5 and stats.turns_failed == 0
    assert store.current(ALICE, "favourite_restaurant").value == "Sakura Sushi"  # type: ignore[union-attr]
    moved = store.current(ALICE, "lives_in")
    assert moved is not None and moved.t_from == "2024-03-19T00:00:00"  # "yesterday", by rule
    rows = store.connection.execute(
        "SELECT ev.text, ev.span_start, ev.span_end, t.text, t.seq FROM facts f "
        "JOIN evidence ev ON ev.evidence_id = f.evidence_id JOIN turns t ON t.turn_id = ev.turn_id "
        "ORDER BY t.seq"
    ).fetchall()
    assert [(quote, seq) for quote, *_, seq in rows] == [
        ("Now Sakura Sushi is my favorite restaurant.", 2),
        ("Nice. I adopted a dog last week, his name is Rex.", 3),  # a quote over two sentences
        ("I moved to Denver yesterday, by the way.", 4),
    ]
    assert all(text[start:end] == quote for quote, start, end, text, _ in rows)
    kinds = sorted(row[0] for row in store.connection.execute("SELECT event_type FROM events"))
    assert kinds == ["adopted_pet", "greeting", "moved_city", "preference_stated", "small_talk"]


def test_a_turn_whose_output_never_parses_fails_alone(
    store: SQLiteGraphStore, checkpoint: Checkpoint
) -> None:
    answers = {**ANSWERS, key(TEXTS[2]): {"event": "not an object"}}
    stats = compact_pipeline(store, checkpoint, answers).ingest(session_turns())
    assert (stats.turns_failed, stats.turns_done) == (1, 4)
    assert stats.llm["extract"]["calls"] == 7  # three attempts for the bad turn
    assert [f.source_key for f in checkpoint.failed()] == ["test:1:2"]
    assert store.current(ALICE, "lives_in") is not None
    assert store.counts().turns == 5  # the failed turn keeps its text


def test_the_prompt_puts_slow_changing_fields_first() -> None:
    lm = dspy.utils.DummyLM([ANSWERS[key(TEXTS[4])]], adapter=ADAPTER)
    with dspy.context(lm=lm, adapter=ADAPTER):
        event = ExtractCompact()(
            speaker="Alice",
            listener="Bob",
            text=TEXTS[4],
            anchor=DAY,
            known_properties=["lives_in"],
        )
    assert event.event == "moved_city"
    prompt = lm.history[-1]["messages"][-1]["content"]
    names = ("known_properties", "anchor", "context", "speaker", "listener", "text")
    order = [prompt.index(f"[[ ## {name} ## ]]") for name in names]
    assert order == sorted(order)
    assert "(start of conversation)" in prompt
    demos = [m["content"] for m in lm.history[-1]["messages"] if m["role"] == "assistant"]
    assert len(demos) == 8 and all("dtype" not in d and "t_from" not in d for d in demos)
