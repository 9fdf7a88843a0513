"""The local LLM server through DSPy: a pydantic output comes back valid and schema-conforming."""

from __future__ import annotations

from typing import Literal

import dspy
import httpx
import pydantic
import pytest

from apexmem_neo.llm import SchemaJSONAdapter, make_lm
from apexmem_neo.services.llama_server import MODEL_ALIAS

pytestmark = [pytest.mark.integration, pytest.mark.llm]


class Person(pydantic.BaseModel):
    name: str
    age: int
    city: str
    mood: Literal["happy", "sad", "neutral"]


class ExtractPerson(dspy.Signature):
    """Extract the one person the text describes."""

    text: str = dspy.InputField()
    person: Person = dspy.OutputField()


TEXT = "Maria Lopez, 34, lives in Lisbon. She just won a prize and is thrilled about it."


@pytest.fixture(scope="module")
def lm(lm_api_base: str) -> dspy.LM:
    return make_lm(f"openai/{MODEL_ALIAS}", lm_api_base, "local", max_tokens=256)


def test_server_lists_the_model_alias(lm_api_base: str) -> None:
    models = httpx.get(f"{lm_api_base.rstrip('/')}/models", timeout=10).json()
    assert MODEL_ALIAS in [entry["id"] for entry in models["data"]]


def test_predict_returns_a_schema_conforming_pydantic_instance(lm: dspy.LM) -> None:
    adapter = SchemaJSONAdapter()
    with dspy.context(lm=lm, adapter=adapter):
        result = dspy.Predict(ExtractPerson)(text=TEXT)
    person = result.person
    assert isinstance(person, Person)
    assert Person.model_validate_json(person.model_dump_json()) == person
    assert "Maria" in person.name
    assert person.age == 34
    assert person.city == "Lisbon"
    sent = lm.history[-1]["kwargs"]["response_format"]
    assert issubclass(sent, pydantic.BaseModel)  # the schema went to the server
    assert sent.model_json_schema()["$defs"]["Person"]["properties"]["mood"]["enum"] == [
        "happy",
        "sad",
        "neutral",
    ]


class ListTurnIds(dspy.Signature):
    """List every turn id of the transcript that mentions a city."""

    transcript: str = dspy.InputField()
    turn_ids: list[str] = dspy.OutputField(max_length=3)


def test_the_server_grammar_holds_a_list_to_its_max_length(lm: dspy.LM) -> None:
    """Twelve turns name a city; the schema's maxItems stops the list at three."""
    cities = ["Lisbon", "Oslo", "Rome", "Paris", "Cairo", "Lima"] * 2
    transcript = "\n".join(f"[D1:{i}] I flew to {city}." for i, city in enumerate(cities, 1))
    with dspy.context(lm=lm, adapter=SchemaJSONAdapter()):
        result = dspy.Predict(ListTurnIds)(transcript=transcript)
    assert 1 <= len(result.turn_ids) <= 3
    assert all(t.startswith("D1:") for t in result.turn_ids)
    assert lm.history[-1]["usage"]["completion_tokens"] < 60
