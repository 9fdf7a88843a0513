"""Compact extraction (the default) with DummyLM: conversion, evidence sentences, failures."""

from __future__ import annotations

from typing import Any

import dspy

from apexmem_neo.construction.calls import CompactJSONAdapter
from apexmem_neo.construction.checkpoint import Checkpoint
from apexmem_neo.construction.compact import as_extracted, sentence_holding, sentences
from apexmem_neo.construction.loaders import TurnInput
from apexmem_neo.construction.pipeline import ConstructionPipeline, PipelineConfig
from apexmem_neo.llm.extract_compact import CompactEvent, CompactFact, ExtractCompact
from apexmem_neo.llm.extract_compact.examples import DEMOS
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


def compact_fact(subject: str, prop: str, value: Any, when: str | None = None) -> dict[str, Any]:
    return {"subject": subject, "property": prop, "value": value, "when": when}


def compact(kind: str, facts: list[dict[str, Any]]) -> dict[str, Any]:
    return {"event": {"event": kind, "facts": facts}}


def key(text: str) -> str:
    return f"[[ ## text ## ]]\n{text}"


ANSWERS = {
    key(TEXTS[0]): compact("greeting", []),
    key(TEXTS[1]): compact("small_talk", []),
    key(TEXTS[2]): compact("preference_stated", [
        compact_fact("Alice", "favourite_restaurant", "Sakura Sushi"),
    ]),
    key(TEXTS[3]): compact("adopted_pet", [compact_fact("Bob", "has_pet", "Rex", "last week")]),
    key(TEXTS[4]): compact("moved_city", [
        compact_fact("Alice", "lives_in", "Denver", "yesterday"),
    ]),
}  # fmt: skip


def compact_pipeline(
    store: SQLiteGraphStore, checkpoint: Checkpoint, answers: Any
) -> ConstructionPipeline:
    lm = dspy.utils.DummyLM(answers, adapter=ADAPTER)
    return ConstructionPipeline(store, checkpoint, lm, PipelineConfig(), ADAPTER)


def test_a_text_splits_into_sentences_with_their_punctuation() -> None:
    text = "Oh no! I started at Orbit Labs last week. Version 2.5 is out"
    assert sentences(text) == ["Oh no!", "I started at Orbit Labs last week.", "Version 2.5 is out"]
    assert sentences("") == []


def test_the_evidence_is_the_sentence_holding_the_value() -> None:
    text = "Oh no! I started at Orbit Labs last week. Version 2.5 is out. Labs are fun!"

    def held(subject: str, prop: str, value: Any, when: str | None = None) -> str:
        fact = CompactFact(subject=subject, property=prop, value=value, when=when)
        return sentence_holding(fact, text)

    assert held("Tom", "employer", "orbit labs") == "I started at Orbit Labs last week."
    assert held("App", "version", 2.5) == "Version 2.5 is out."
    assert held("Tom", "started_job", True, "last week") == "I started at Orbit Labs last week."
    one = CompactFact(subject="Tom", property="mood", value="glad")
    assert sentence_holding(one, "  Glad to hear it, thanks  ") == "Glad to hear it, thanks"


def test_compact_events_convert_with_inferred_dtypes_and_no_model_dates() -> None:
    event = CompactEvent.model_validate(
        compact("ran", [
            compact_fact("Tom", "marathon_time_minutes", 252, "last Sunday"),
            compact_fact("Tom", "ran_marathon", True),
            compact_fact("Tom", "race_day", "2023-10-08", "last Sunday"),
        ])["event"]
    )  # fmt: skip
    extracted = as_extracted(event, "I ran the marathon last Sunday. Tired now.")
    assert extracted.type == "ran" and extracted.when == "last Sunday"
    assert extracted.participants == []  # the facts' subjects are the entities
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
        ("I adopted a dog last week, his name is Rex.", 3),
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
    assert len(demos) == len(DEMOS) and all("dtype" not in d and "t_from" not in d for d in demos)


def test_a_turn_whose_facts_were_all_copied_is_extracted_again_without_context(
    store: SQLiteGraphStore, checkpoint: Checkpoint
) -> None:
    turns = [
        turn("My favourite restaurant is Italian Garden.", "2024-01-15T19:00:00", 0),
        turn("Sakura Sushi is my favourite restaurant now.", "2024-03-20T19:00:00", 1),
    ]
    answers = [
        compact("preference", [compact_fact("Alice", "favourite_restaurant", "Italian Garden")]),
        compact("preference", [compact_fact("Alice", "favourite_restaurant", "Italian Garden")]),
        compact("preference", [compact_fact("Alice", "favourite_restaurant", "Sakura Sushi")]),
    ]
    lm = dspy.utils.DummyLM(answers, adapter=ADAPTER)
    stats = ConstructionPipeline(store, checkpoint, lm, PipelineConfig(), ADAPTER).ingest(turns)
    history = store.history(ALICE, "favourite_restaurant")
    assert [f.value for f in history] == ["Italian Garden", "Sakura Sushi"]
    assert stats.llm_calls == 3
    retry_prompt = lm.history[-1]["messages"][-1]["content"]
    assert "(start of conversation)" in retry_prompt


def test_small_talk_whose_facts_were_all_copied_is_not_extracted_again(
    store: SQLiteGraphStore, checkpoint: Checkpoint
) -> None:
    turns = [
        turn("My favourite restaurant is Italian Garden.", "2024-01-15T19:00:00", 0),
        turn("Thanks, Bob! That means a lot to me.", "2024-03-20T19:00:00", 1),
    ]
    answers = [
        compact("preference", [compact_fact("Alice", "favourite_restaurant", "Italian Garden")]),
        compact("thanks", [compact_fact("Alice", "favourite_restaurant", "Italian Garden")]),
    ]
    lm = dspy.utils.DummyLM(answers, adapter=ADAPTER)
    stats = ConstructionPipeline(store, checkpoint, lm, PipelineConfig(), ADAPTER).ingest(turns)
    assert stats.llm_calls == 2
    assert [f.value for f in store.history(ALICE, "favourite_restaurant")] == ["Italian Garden"]
