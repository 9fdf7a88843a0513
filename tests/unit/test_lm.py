"""make_lm defaults and the adapter that always sends a response_format (no server needed)."""

from __future__ import annotations

import asyncio
from typing import Any

import dspy
import pydantic
import pytest
from dspy.utils import DummyLM

from apexmem_neo.llm import SchemaJSONAdapter, make_lm
from apexmem_neo.llm.coerce import NAME_CHARS, QUOTE_CHARS, VALUE_CHARS
from apexmem_neo.llm.lm import DEFAULT_MAX_TOKENS

LOCAL_MODEL = "openai/qwen2.5-coder-1.5b-instruct"


class City(pydantic.BaseModel):
    name: str
    population: int


class Describe(dspy.Signature):  # type: ignore[misc]
    """Describe the city."""

    text: str = dspy.InputField()
    city: City = dspy.OutputField()


class Loose(dspy.Signature):  # type: ignore[misc]
    """Anything goes."""

    text: str = dspy.InputField()
    facts: dict[str, str] = dspy.OutputField()


def test_make_lm_defaults_to_deterministic_and_uncached() -> None:
    lm = make_lm(LOCAL_MODEL, "http://127.0.0.1:8080/v1", "local")
    assert lm.kwargs["temperature"] == 0.0
    assert lm.kwargs["max_tokens"] == DEFAULT_MAX_TOKENS
    assert lm.cache is False
    assert lm.kwargs["api_base"] == "http://127.0.0.1:8080/v1"
    assert lm.kwargs["api_key"] == "local"


def test_make_lm_lets_callers_override_and_omits_unset_client_settings() -> None:
    lm = make_lm(LOCAL_MODEL, None, None, temperature=0.7, cache=True, max_tokens=64)
    assert lm.kwargs["temperature"] == 0.7
    assert lm.cache is True
    assert "api_base" not in lm.kwargs
    assert "api_key" not in lm.kwargs


class RecordingLM(dspy.LM):  # type: ignore[misc]
    """The local model's ``dspy.LM`` (so its real capabilities), answering without a server."""

    def __call__(self, prompt: Any = None, messages: Any = None, **kwargs: Any) -> list[str]:
        self.sent = kwargs
        return ['{"city": {"name": "Oslo", "population": 717710}}']


def sent_by(adapter: dspy.Adapter) -> dict[str, Any]:
    """What ``adapter`` passes to the local model's LM for ``Describe``."""
    lm = RecordingLM(LOCAL_MODEL, api_base="http://127.0.0.1:8080/v1", api_key="local")
    with dspy.context(lm=lm, adapter=adapter):
        dspy.Predict(Describe)(text="Norway's capital")
    sent: dict[str, Any] = lm.sent
    return sent


def test_plain_json_adapter_sends_no_response_format_for_an_unknown_local_model() -> None:
    """The gap SchemaJSONAdapter closes; if dspy starts sending one, this tells us."""
    assert "response_format" not in sent_by(dspy.JSONAdapter())


def test_schema_adapter_sends_the_output_models_json_schema() -> None:
    response_format = sent_by(SchemaJSONAdapter())["response_format"]
    assert isinstance(response_format, type)
    assert issubclass(response_format, pydantic.BaseModel)
    schema = response_format.model_json_schema()
    assert schema["required"] == ["city"]
    assert schema["additionalProperties"] is False
    city = schema["$defs"]["City"]
    assert set(city["required"]) == {"name", "population"}


def test_schema_adapter_falls_back_to_json_object_for_open_mappings() -> None:
    assert SchemaJSONAdapter().response_format(Loose) == {"type": "json_object"}


def test_schema_adapter_parses_a_pydantic_output() -> None:
    adapter = SchemaJSONAdapter()
    lm = dspy.utils.DummyLM([{"city": {"name": "Oslo", "population": 717710}}], adapter=adapter)
    with dspy.context(lm=lm, adapter=adapter):
        result = dspy.Predict(Describe)(text="Norway's capital")
    assert result.city == City(name="Oslo", population=717710)


def _sent_schema(signature: type[dspy.Signature]) -> dict[str, object]:
    response_format = SchemaJSONAdapter().response_format(signature)
    assert isinstance(response_format, type) and issubclass(response_format, pydantic.BaseModel)
    schema: dict[str, object] = response_format.model_json_schema()
    return schema


def test_extraction_schema_caps_lists_and_strings_so_a_grammar_bounds_the_output() -> None:
    """llama-server compiles the schema into a grammar: maxItems / maxLength there are what
    stop a looping small model before max_tokens (a truncated reply fails and is retried)."""
    from apexmem_neo.llm.extract_event.models import MAX_FACTS, MAX_PARTICIPANTS
    from apexmem_neo.llm.extract_event.signatures import ExtractEventSignature

    schema = _sent_schema(ExtractEventSignature)
    defs = schema["$defs"]
    assert isinstance(defs, dict)
    event = defs["ExtractedEvent"]["properties"]
    assert event["facts"]["maxItems"] == MAX_FACTS
    assert event["participants"]["maxItems"] == MAX_PARTICIPANTS
    fact = defs["ExtractedFact"]["properties"]
    assert fact["evidence"]["maxLength"] == QUOTE_CHARS
    assert fact["subject"]["maxLength"] == NAME_CHARS
    assert {"maxLength": NAME_CHARS, "type": "string"} in fact["t_from"]["anyOf"]
    branches = fact["value"]["anyOf"]
    assert {"maxLength": VALUE_CHARS, "type": "string"} in branches
    assert all(
        "maxLength" in b or "maxItems" in b
        for b in branches
        if b.get("type") in ("string", "array")
    )


def test_over_long_model_output_is_cut_to_the_caps_not_rejected() -> None:
    """A model without a grammar can overrun the caps; the turn keeps what fits."""
    from apexmem_neo.llm.extract_event.models import MAX_FACTS, ExtractedEvent
    from apexmem_neo.llm.resolve_entity.models import EntityDecision

    fact = {
        "subject": "Caroline", "property": "favourite_food", "value": "x" * 500,
        "dtype": "str", "when": None, "t_from": "2023-05-08", "t_to": None,
        "confidence": 0.9, "evidence": "y" * 1000,
    }  # fmt: skip
    event = ExtractedEvent.model_validate(
        {"type": "statement", "facts": [fact] * (MAX_FACTS + 5), "participants": []}
    )
    assert len(event.facts) == MAX_FACTS
    assert event.facts[0].value == "x" * VALUE_CHARS
    assert event.facts[0].evidence == "y" * QUOTE_CHARS
    decision = EntityDecision.model_validate(
        {"decision": "none", "candidate": None, "name": "n" * 300, "aliases": ["a"] * 20,
         "type": "Person", "confidence": 1, "rationale": "r" * 900}
    )  # fmt: skip
    assert (len(decision.name), len(decision.aliases), len(decision.rationale)) == (
        NAME_CHARS, 6, QUOTE_CHARS,
    )  # fmt: skip


class ListCities(dspy.Signature):  # type: ignore[misc]
    """List the cities."""

    text: str = dspy.InputField()
    cities: list[str] = dspy.OutputField(max_length=3)
    summary: str = dspy.OutputField(max_length=40)
    count: int = dspy.OutputField()


def test_output_field_max_length_reaches_the_schema_dspy_builds() -> None:
    """DSPy's builder keeps only the bare annotation; the adapter writes the caps back."""
    properties = _sent_schema(ListCities)["properties"]
    assert isinstance(properties, dict)
    assert properties["cities"]["maxItems"] == 3
    assert properties["summary"]["maxLength"] == 40
    assert "maxItems" not in properties["count"] and "maxLength" not in properties["count"]


def test_the_caps_survive_litellms_conversion_to_the_request_body() -> None:
    """What the server receives: LiteLLM turns the pydantic model into a strict json_schema."""
    from litellm.llms.base_llm.base_utils import type_to_response_format_param

    sent = type_to_response_format_param(SchemaJSONAdapter().response_format(ListCities))
    assert sent is not None
    properties = sent["json_schema"]["schema"]["properties"]
    assert properties["cities"]["maxItems"] == 3
    assert properties["summary"]["maxLength"] == 40


def test_every_answer_signature_caps_its_evidence_list_and_answer() -> None:
    """The 1.5B model once listed turn ids (and once books) until max_tokens."""
    from apexmem_neo.agent.signatures import (
        MAX_ANSWER_CHARS,
        MAX_EVIDENCE_TURNS,
        AnswerFromContext,
        AnswerWithTools,
    )
    from benchmarks.locomo.baselines import AnswerFromTranscript

    for signature in (AnswerFromContext, AnswerWithTools, AnswerFromTranscript):
        properties = _sent_schema(signature)["properties"]
        assert isinstance(properties, dict)
        assert properties["evidence_turn_ids"]["maxItems"] == MAX_EVIDENCE_TURNS, signature
        assert properties["answer"]["maxLength"] == MAX_ANSWER_CHARS, signature


class ResponseFormatLM(DummyLM):  # type: ignore[misc]
    """A DummyLM that, like a known hosted model, lists ``response_format`` and schema support,
    so dspy.JSONAdapter would pick a format of its own for it."""

    @property
    def supported_params(self) -> set[str]:
        return {"response_format"}

    @property
    def supports_response_schema(self) -> bool:
        return True


def sent_format(lm: DummyLM, signature: type[dspy.Signature], run_async: bool = False) -> Any:
    """Run ``signature`` through SchemaJSONAdapter on ``lm``; the response_format it sent."""
    adapter = SchemaJSONAdapter()
    lm.adapter = adapter  # DummyLM words its scripted answers the adapter's way
    with dspy.context(lm=lm, adapter=adapter):
        predict = dspy.Predict(signature)
        if run_async:
            asyncio.run(predict.acall(text="x"))
        else:
            predict(text="x")
    return lm.history[-1]["kwargs"]["response_format"]


LIST_ANSWER = {"cities": ["Oslo"], "summary": "one", "count": 1}


@pytest.mark.parametrize("lm_class", [DummyLM, ResponseFormatLM])
@pytest.mark.parametrize("run_async", [False, True])
def test_the_adapter_sends_a_strict_json_schema_with_the_caps(
    lm_class: type[DummyLM], run_async: bool
) -> None:
    """Whatever the LM lists (JSONAdapter would replace the format for ResponseFormatLM),
    what reaches the LM is this adapter's schema, caps included."""
    from litellm.llms.base_llm.base_utils import type_to_response_format_param

    response_format = sent_format(lm_class([LIST_ANSWER]), ListCities, run_async)
    sent = type_to_response_format_param(response_format)
    assert sent is not None and sent["type"] == "json_schema"
    schema = sent["json_schema"]["schema"]
    assert schema["required"] == ["cities", "summary", "count"]
    assert schema["additionalProperties"] is False
    assert schema["properties"]["cities"]["maxItems"] == 3
    assert schema["properties"]["summary"]["maxLength"] == 40


@pytest.mark.parametrize("lm_class", [DummyLM, ResponseFormatLM])
def test_the_adapter_sends_json_object_for_a_dict_output(lm_class: type[DummyLM]) -> None:
    response_format = sent_format(lm_class([{"facts": {"a": "b"}}]), Loose)
    assert response_format == {"type": "json_object"}


class Nested(dspy.Signature):  # type: ignore[misc]
    """Nested outputs."""

    text: str = dspy.InputField()
    cities: list[City] = dspy.OutputField()
    note: str | None = dspy.OutputField()


def test_every_nested_object_schema_is_closed() -> None:
    schema = _sent_schema(Nested)
    assert schema["required"] == ["cities", "note"]
    properties = schema["properties"]
    assert isinstance(properties, dict)
    assert properties["cities"]["items"] == {"$ref": "#/$defs/City"}
    defs = schema["$defs"]
    assert isinstance(defs, dict)
    assert defs["City"]["required"] == ["name", "population"]
    assert defs["City"]["additionalProperties"] is False
    assert all("json_schema_extra" not in prop for prop in properties.values())
