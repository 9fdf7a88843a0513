"""The few-shot demos' reference queries against real SQLite and Neo4j, and the compiled
programs in the Neo4j arms (no LLM server: DSPy's DummyLM, and a scripted reply in place of
the text2cypher arm's OpenAI client).

* every reference query of every train question, of the data files and of seeds 7 and 8,
  answers its gold by the study's judge, in SQL on SQLite, in SQL through the shim on Neo4j
  and in Cypher on Neo4j, run as the arms run theirs;
* the neo4j-sql, neo4j-cypher and text2cypher arms built with their compiled programs show
  the demos to the model and answer through the real graph.

The gold graph's nodes (ids prefixed ``ql_``) are deleted from Neo4j at the end.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import dspy
import pytest
from dspy.utils import DummyLM
from neo4j import Driver
from neo4j_graphrag.llm.types import LLMResponse

from apexmem_neo.ontology import GraphBatch
from apexmem_neo.query.backend import Language, QueryBackend
from benchmarks.query_languages.arms import Stores, build_agent_arm, delete_gold, open_stores
from benchmarks.query_languages.fewshot import (
    AGENT_LANGUAGES,
    FILES,
    compiled_dir,
    read_examples,
)
from benchmarks.query_languages.generate import generate_seeds, load_gold, load_questions
from benchmarks.query_languages.gold import PREFIX, PROPERTY_VALUES
from benchmarks.query_languages.questions import Question
from benchmarks.query_languages.reference import judged_correct, reference_query
from benchmarks.query_languages.split import select
from benchmarks.query_languages.text2cypher import Text2CypherArm

pytestmark = [pytest.mark.integration, pytest.mark.neo4j]

STUDY_PROPERTIES = [*PROPERTY_VALUES, "salary", "headquarters_city"]
FOREIGN_FACTS = (
    "MATCH (f:Fact) WHERE f.property IN $props AND NOT f.entity_id STARTS WITH $prefix "
    "RETURN count(f) AS n"
)


def study(seeds: list[int]) -> tuple[GraphBatch, list[Question]]:
    return (load_gold(), load_questions()) if seeds == [7] else generate_seeds(seeds)


@pytest.fixture(scope="module", params=[[7], [7, 8]], ids=["data-files", "seeds-7-8"])
def loaded(
    request: pytest.FixtureRequest, neo4j_driver: Driver, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[list[int], GraphBatch, list[Question], Stores]]:
    """The gold graph of a seed set in SQLite and Neo4j, with its questions."""
    records, _, _ = neo4j_driver.execute_query(FOREIGN_FACTS, props=STUDY_PROPERTIES, prefix=PREFIX)
    assert int(records[0]["n"]) == 0, "Neo4j holds other facts of the study's properties"
    seeds: list[int] = request.param
    gold, questions = study(seeds)
    path: Path = tmp_path_factory.mktemp("refq") / "gold.sqlite"
    with open_stores(gold, path, neo4j_driver) as stores:
        yield seeds, gold, questions, stores
    delete_gold(neo4j_driver, gold)


def test_every_train_reference_query_answers_its_gold(
    loaded: tuple[list[int], GraphBatch, list[Question], Stores],
) -> None:
    _, gold, questions, stores = loaded
    assert stores.sqlite_backend is not None and stores.neo4j_backend is not None
    names = {e.entity_id: e.name for e in gold.entities}
    paths: list[tuple[str, QueryBackend, Language]] = [
        ("sqlite", stores.sqlite_backend, "sql"),
        ("shim", stores.neo4j_backend, "sql"),
        ("neo4j", stores.neo4j_backend, "cypher"),
    ]
    train = select(questions, "train")
    wrong = []
    for q in train:
        for label, backend, language in paths:
            query = reference_query(q, language, names)
            ok, answer = judged_correct(backend, query, language, q)
            if not ok:
                wrong.append(f"{q.qid} {label}: {answer!r} != {q.gold!r}: {query}")
    assert not wrong, "\n".join(wrong)
    assert {q.spec.op for q in train} >= {"current", "as_of", "employer_city", "salary_diff"}


def prompt_of(history: dict[str, Any]) -> str:
    return "\n".join(m["content"] for m in history["messages"])


@pytest.mark.parametrize("arm", ["neo4j-sql", "neo4j-cypher"])
def test_the_neo4j_agent_arms_show_their_demos_and_query_the_graph(
    loaded: tuple[list[int], GraphBatch, list[Question], Stores], arm: str
) -> None:
    seeds, gold, questions, stores = loaded
    language = AGENT_LANGUAGES[arm]
    question = select(questions, "test")[0]
    query = reference_query(question, language, {e.entity_id: e.name for e in gold.entities})
    lm = DummyLM([{"query": query}, {"answer": question.gold, "evidence_turn_ids": []}],
                 adapter=dspy.JSONAdapter())  # fmt: skip
    compiled = compiled_dir(seeds) / FILES[arm]
    record = build_agent_arm(arm, lm, stores, compiled).ask(question)
    assert record.correct and record.calls[0].ok and record.calls[0].error_class is None
    demos = json.loads(compiled.read_text())["write"]["demos"]
    first = prompt_of(lm.history[0])
    assert all(json.dumps(d["query"])[1:-1] in first for d in demos)
    assert question.text in first


def test_the_text2cypher_arm_shows_its_compiled_examples(
    loaded: tuple[list[int], GraphBatch, list[Question], Stores],
    neo4j_driver: Driver,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seeds, gold, questions, stores = loaded
    assert stores.neo4j_backend is not None
    question = select(questions, "test")[0]
    query = reference_query(question, "cypher", {e.entity_id: e.name for e in gold.entities})
    examples = read_examples(compiled_dir(seeds) / FILES["text2cypher"])
    arm = Text2CypherArm(neo4j_driver, stores.neo4j_backend.schema(), "openai/none",
                         "http://127.0.0.1:1/v1", "none", examples)  # fmt: skip
    prompts: list[str] = []
    replies = [query, f"It is {question.gold}."]

    def scripted(input: str, *args: Any, **kwargs: Any) -> LLMResponse:
        prompts.append(input)
        return LLMResponse(content=replies[len(prompts) - 1])

    monkeypatch.setattr(arm.llm, "invoke", scripted)
    record = arm.ask(question)
    assert record.correct, record
    assert all(example in prompts[0] for example in examples)
    assert "Every fact about Alice" in prompts[0]  # the worked example every arm is shown
