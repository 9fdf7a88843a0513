"""make_lm defaults and the adapter that always sends a response_format (no server needed)."""

from __future__ import annotations

import os

import dspy
import pydantic

from apexmem_neo.llm import SchemaJSONAdapter, make_lm
from apexmem_neo.llm.lm import DEFAULT_MAX_TOKENS

LOCAL_MODEL = "openai/qwen2.5-coder-1.5b-instruct"


class City(pydantic.BaseModel):
    name: str
    population: int


class Describe(dspy.Signature):
    """Describe the city."""

    text: str = dspy.InputField()
    city: City = dspy.OutputField()


class Loose(dspy.Signature):
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
    assert os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] == "True"


def test_make_lm_lets_callers_override_and_omits_unset_client_settings() -> None:
    lm = make_lm(LOCAL_MODEL, None, None, temperature=0.7, cache=True, max_tokens=64)
    assert lm.kwargs["temperature"] == 0.7
    assert lm.cache is True
    assert "api_base" not in lm.kwargs
    assert "api_key" not in lm.kwargs


def test_plain_json_adapter_sends_no_response_format_for_an_unknown_local_model() -> None:
    """The gap SchemaJSONAdapter closes; if dspy starts sending one, this tells us."""
    lm = make_lm(LOCAL_MODEL, "http://127.0.0.1:8080/v1", "local")
    lm_kwargs: dict[str, object] = {}
    dspy.JSONAdapter()._prepare_response_format(lm, lm_kwargs, Describe)
    assert "response_format" not in lm_kwargs


def test_schema_adapter_sends_the_output_models_json_schema() -> None:
    lm = make_lm(LOCAL_MODEL, "http://127.0.0.1:8080/v1", "local")
    lm_kwargs: dict[str, object] = {}
    SchemaJSONAdapter()._prepare_response_format(lm, lm_kwargs, Describe)
    response_format = lm_kwargs["response_format"]
    assert isinstance(response_format, type)
    assert issubclass(response_format, pydantic.BaseModel)
    schema = response_format.model_json_schema()
    assert schema["required"] == ["city"]
    assert schema["additionalProperties"] is False
    city = schema["$defs"]["City"]
    assert set(city["required"]) == {"name", "population"}


def test_schema_adapter_falls_back_to_json_object_for_open_mappings() -> None:
    lm_kwargs: dict[str, object] = {}
    SchemaJSONAdapter()._prepare_response_format(None, lm_kwargs, Loose)
    assert lm_kwargs["response_format"] == {"type": "json_object"}


def test_schema_adapter_parses_a_pydantic_output() -> None:
    adapter = SchemaJSONAdapter()
    lm = dspy.utils.DummyLM([{"city": {"name": "Oslo", "population": 717710}}], adapter=adapter)
    with dspy.context(lm=lm, adapter=adapter):
        result = dspy.Predict(Describe)(text="Norway's capital")
    assert result.city == City(name="Oslo", population=717710)
