"""LLMRunner retries and accounting, the compact adapter, and the extractor's prompt inputs."""

from __future__ import annotations

import json

import dspy
import pytest

from apexmem_neo.construction.calls import CompactJSONAdapter, LLMRunner
from apexmem_neo.llm.extract_event import (
    ExtractedEvent,
    ExtractEvent,
    ExtractEventSignature,
    format_anchor,
    format_context,
)
from apexmem_neo.llm.extract_event.examples import DEMOS
from apexmem_neo.ontology import DType, EntityType, Role
from tests.unit.construction.conftest import event, fact


def test_demos_are_compact_json_and_cover_the_table_13_patterns() -> None:
    adapter = CompactJSONAdapter()
    messages = adapter.format(
        ExtractEventSignature,
        DEMOS,
        {
            "speaker": "A",
            "listener": "B",
            "text": "hi",
            "anchor": "x",
            "context": "",
            "known_properties": "",
        },
    )
    answers = [m["content"] for m in messages if m["role"] == "assistant"]
    assert len(answers) == len(DEMOS) == 8
    assert all("\n" not in a and json.loads(a)["event"] for a in answers)
    facts = [f for d in DEMOS for f in d.event.facts]
    kinds = {(f.property, f.dtype) for f in facts}
    assert {
        ("attended_event", DType.STR),
        ("emotional_state", DType.ENUM),
        ("has_children", DType.BOOL),
        ("event_date", DType.DATE),
        ("lives_in", DType.STR),  # a move: a lexicon name, not "moved_to"
    } <= kinds
    assert any(f.dtype == DType.INT for f in facts)
    assert any(d.speaker == "World" for d in DEMOS)  # environment condition, document stream
    assert any(not d.event.facts for d in DEMOS)  # greetings give no facts


def test_output_model_coerces_near_misses_instead_of_failing() -> None:
    parsed = ExtractedEvent.model_validate(
        {
            "type": "x",
            "participants": [
                {"name": "Rex", "type": "animal", "role": "speaker"},
                {"name": "Q", "type": "Alien", "role": "boss"},
            ],
            "facts": [
                {
                    "subject": "Rex",
                    "property": "age",
                    "value": "3",
                    "dtype": "integer",
                    "when": "null",
                    "t_from": "",
                    "t_to": None,
                    "confidence": 90,
                    "evidence": "3",
                }
            ],
        }
    )
    assert parsed.participants[0].type == EntityType.ANIMAL
    assert parsed.participants[0].role == Role.SPEAKER
    assert (parsed.participants[1].type, parsed.participants[1].role) == (
        EntityType.CONCEPT,
        Role.MENTIONED,
    )
    f = parsed.facts[0]
    assert (f.dtype, f.when, f.t_from, f.confidence) == (DType.INT, None, None, 0.9)


def test_prompt_inputs_carry_weekday_and_short_context() -> None:
    assert format_anchor("2023-05-08T13:56:00") == "2023-05-08T13:56:00 (Monday)"
    context = format_context([("A", "x" * 500), ("B", "ok")])
    assert context.splitlines()[0].endswith("...") and len(context.splitlines()[0]) < 250
    assert context.splitlines()[1] == "B: ok"


def test_runner_retries_a_bounded_number_of_times_and_keeps_the_raw_output() -> None:
    adapter = CompactJSONAdapter()
    lm = dspy.utils.DummyLM([{"event": "bad"}] * 3, adapter=adapter)
    runner = LLMRunner(lm, adapter, max_attempts=3)
    extractor = ExtractEvent()
    result = runner.run(
        "extract",
        lambda cfg: extractor(
            speaker="A", listener="B", text="hi", anchor="2024-01-01T00:00:00", config=cfg
        ),
    )
    assert result.value is None and result.calls == 3
    assert result.raw_output is not None and "bad" in result.raw_output
    assert runner.ledger.snapshot()["extract"]["failed_calls"] == 3


def test_runner_succeeds_on_first_try_with_one_call() -> None:
    adapter = CompactJSONAdapter()
    answer = event([("A", "Person", "Speaker")], [fact("A", "mood", "ok", "hi")])
    runner = LLMRunner(dspy.utils.DummyLM([answer], adapter=adapter), adapter)
    extractor = ExtractEvent(demos=False)
    result = runner.run(
        "extract",
        lambda cfg: extractor(
            speaker="A", listener="B", text="hi", anchor="2024-01-01T00:00:00", config=cfg
        ),
    )
    assert result.ok and result.calls == 1 and result.value is not None
    assert result.value.facts[0].property == "mood"


def test_runner_rejects_zero_attempts() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        LLMRunner(None, max_attempts=0)
