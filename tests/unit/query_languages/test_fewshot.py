"""The compiled few-shot programs: chosen from the train split only, regenerated exactly by the
code, refused when they touch the test split, and reaching each DSPy arm's prompt (DummyLM).
The text2cypher arm's prompt needs Neo4j and is checked in the integration tests."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import dspy
import pytest
from dspy.utils import DummyLM
from neo4j import GraphDatabase

from apexmem_neo.agent import build_tools
from apexmem_neo.agent.query_loop import QueryLoop
from apexmem_neo.errors import ApexMemError
from apexmem_neo.llm import SchemaJSONAdapter
from apexmem_neo.ontology import GraphBatch
from apexmem_neo.query.backend import Language
from apexmem_neo.store.neo4j import Neo4jGraphStore
from apexmem_neo.tools import Neo4jQueryBackend, SQLiteQueryBackend
from benchmarks.query_languages.arms import AGENT_CONFIG, Stores, build_agent_arm, open_stores
from benchmarks.query_languages.fewshot import (
    AGENT_LANGUAGES,
    FILES,
    Demo,
    LeakError,
    agent_inputs,
    check_train_only,
    compiled_dir,
    demo_strings,
    read_examples,
    read_manifest,
    select_demos,
    text2cypher_examples,
    words_in,
)
from benchmarks.query_languages.generate import generate_seeds, load_gold, load_questions
from benchmarks.query_languages.questions import OPS, Question
from benchmarks.query_languages.reference import reference_query, value_json
from benchmarks.query_languages.split import held_out_subjects, select, subjects
from benchmarks.query_languages.text2sql import Text2SQLArm, text2sql_program

SEED_SETS = ([7], [7, 8])


def study(seeds: list[int]) -> tuple[GraphBatch, list[Question]]:
    """The gold graph and questions of a seed set, as the run loads them."""
    return (load_gold(), load_questions()) if seeds == [7] else generate_seeds(seeds)


def names_of(gold: GraphBatch) -> dict[str, str]:
    return {e.entity_id: e.name for e in gold.entities}


def shipped_demos(seeds: list[int]) -> list[Demo]:
    gold, questions = study(seeds)
    return select_demos(questions, names_of(gold))


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stores]:
    path = tmp_path_factory.mktemp("fewshot") / "gold.sqlite"
    with open_stores(load_gold(), path, None) as opened:
        yield opened


def prompt_of(history: dict[str, Any]) -> str:
    return "\n".join(m["content"] for m in history["messages"])


def as_shown(query: str) -> str:
    """A query as a demo's JSON reply shows it (quotes escaped)."""
    return json.dumps(query)[1:-1]


def test_reference_queries_carry_literals_in_each_language() -> None:
    gold, questions = load_gold(), load_questions()
    q = next(q for q in questions if q.spec.op == "as_of")
    name = names_of(gold)[q.spec.entity_id]
    sql, cypher = (reference_query(q, lang, names_of(gold)) for lang in ("sql", "cypher"))
    assert f"e.name = '{name}'" in sql and f"<= '{q.spec.at}T23:59:59'" in sql
    assert f"{{name: '{name}'}}" in cypher and f"<= '{q.spec.at}T23:59:59'" in cypher
    assert value_json("salary", "90000") == "90000" and value_json("city", "Oslo") == '"Oslo"'


@pytest.mark.parametrize("seeds", SEED_SETS)
def test_one_demo_per_op_from_train_questions_deterministically(seeds: list[int]) -> None:
    gold, questions = study(seeds)
    demos = select_demos(questions, names_of(gold))
    assert demos == select_demos(questions, names_of(gold))
    ops = [d.question.spec.op for d in demos]
    train = select(questions, "train")
    assert ops == [op for op in OPS if any(q.spec.op == op for q in train)]
    assert {d.question.qid for d in demos} <= {q.qid for q in train}


@pytest.mark.parametrize("seeds", SEED_SETS)
def test_no_test_split_entity_or_question_appears_in_any_shipped_demo(seeds: list[int]) -> None:
    gold, questions = study(seeds)
    test = select(questions, "test")
    held_out = held_out_subjects(questions)
    entity_names = {names_of(gold)[k] for k in held_out if k in names_of(gold)}
    cities = {q.spec.value or "" for q in test if subjects(q)[0] not in names_of(gold)}
    directory = compiled_dir(seeds)
    manifest = read_manifest(directory)
    assert manifest.gold_seeds == seeds and set(manifest.files) == set(FILES)
    assert not {d.qid for d in manifest.demos} & {q.qid for q in test}
    assert all(not set(d.subjects) & held_out for d in manifest.demos)
    for arm in FILES:
        texts = demo_strings(directory, arm)
        assert len(texts) == len(manifest.demos), arm
        for text in texts:
            assert not words_in(text, entity_names | cities), (arm, text)
            assert not [q.qid for q in test if q.text in text], (arm, text)
    check_train_only(directory, questions, names_of(gold))


@pytest.mark.parametrize("seeds", SEED_SETS)
def test_the_shipped_demos_are_what_the_code_makes(seeds: list[int]) -> None:
    """Re-running compile would change no demo (its SQL and Cypher are those verified by the
    integration tests); the programs' instructions are checked when they load."""
    demos, directory = shipped_demos(seeds), compiled_dir(seeds)
    assert read_examples(directory / FILES["text2cypher"]) == text2cypher_examples(demos)
    text2sql = json.loads((directory / FILES["text2sql"]).read_text())
    assert [d["sql_query"] for d in text2sql["write_sql"]["demos"]] == [d.sql for d in demos]
    assert text2sql["answer"]["demos"] == []
    for arm, language in AGENT_LANGUAGES.items():
        state = json.loads((directory / FILES[arm]).read_text())
        shipped = state["write"]["demos"]
        assert [d["query"] for d in shipped] == [d.query(language) for d in demos]
        assert {d["language"] for d in shipped} == {language}
        assert [d["question"] for d in shipped] == [d.question.text for d in demos]
        assert state["answer"]["demos"] == []


def test_demos_of_another_seed_set_or_naming_a_test_entity_are_refused(tmp_path: Path) -> None:
    gold, questions = generate_seeds([7, 8])
    with pytest.raises(LeakError, match="not train questions of this set"):
        check_train_only(compiled_dir([7]), questions, names_of(gold))
    planted = tmp_path / "s7"
    shutil.copytree(compiled_dir([7]), planted)
    names = names_of(load_gold())
    test_name = names[min(k for k in held_out_subjects(load_questions()) if k in names)]
    examples = read_examples(planted / FILES["text2cypher"])
    examples[0] = examples[0].replace("Greta Holm", test_name)
    (planted / FILES["text2cypher"]).write_text(json.dumps({"examples": examples}))
    with pytest.raises(LeakError, match="names test subjects"):
        check_train_only(planted, load_questions(), names)


def test_the_agent_demo_inputs_are_the_agents_own(stores: Stores) -> None:
    arm = build_agent_arm("sqlite-sql", None, stores)
    for demo in shipped_demos([7]):
        q = demo.question
        inputs = arm.agent.answer_inputs(q.text, q.question_date)
        assert {k: v for k, v in inputs.items() if k != "context"} == agent_inputs(q)


def one_query_lm() -> DummyLM:
    """A model that writes one query, then answers: enough to see the loop's first prompt."""
    answer = {"answer": "unknown", "evidence_turn_ids": []}
    return DummyLM([{"query": "SELECT 1"}, answer], adapter=dspy.JSONAdapter())


def test_the_sqlite_sql_arm_carries_its_demos(stores: Stores) -> None:
    question = select(load_questions(), "test")[0]
    lm = one_query_lm()
    arm = build_agent_arm("sqlite-sql", lm, stores, compiled_dir([7]) / FILES["sqlite-sql"])
    arm.ask(question)
    step, extract = (prompt_of(h) for h in lm.history)
    demos = shipped_demos([7])
    assert all(as_shown(d.sql) in step and d.question.text in step for d in demos)
    assert step.count("This is an example of the task") == len(demos)
    assert as_shown(demos[0].sql) not in extract
    zero = one_query_lm()
    build_agent_arm("sqlite-sql", zero, stores).ask(question)
    assert "This is an example of the task" not in prompt_of(zero.history[0])


@pytest.mark.parametrize("arm", ["neo4j-sql", "neo4j-cypher"])
def test_the_neo4j_agent_programs_load_into_their_loop(arm: str) -> None:
    """The query loop over the arm's own GraphQuery takes the arm's file; the model then sees
    its demos. The one query fails (a driver that never connects is enough) and the budget
    of one call ends the loop."""
    language: Language = AGENT_LANGUAGES[arm]
    driver = GraphDatabase.driver("bolt://127.0.0.1:1", auth=None)
    backend = Neo4jQueryBackend(driver)
    tools = build_tools(Neo4jGraphStore(driver), backend, None, ("GraphQuery",), language=language)
    directory = compiled_dir([7])
    config = AGENT_CONFIG.model_copy(update={"query_program": str(directory / FILES[arm]),
                                             "max_tool_calls": 1})  # fmt: skip
    loop, lm = QueryLoop(tools, config, language), one_query_lm()
    question = select(load_questions(), "test")[0]
    inputs = {**agent_inputs(question), "context": "schema"}
    with dspy.context(lm=lm, adapter=SchemaJSONAdapter()), dspy.track_usage() as tracker:
        loop.run(inputs, tracker)
    step = prompt_of(lm.history[0])
    assert all(as_shown(d.query(language)) in step for d in shipped_demos([7]))
    driver.close()


def test_the_text2sql_arm_carries_its_demos_on_the_sql_step(stores: Stores) -> None:
    backend = stores.sqlite_backend
    assert isinstance(backend, SQLiteQueryBackend)
    compiled = compiled_dir([7]) / FILES["text2sql"]
    program = text2sql_program(backend, backend.schema(), compiled)
    lm = DummyLM([{"sql_query": shipped_demos([7])[0].sql}, {"answer": "curry"}],
                 adapter=dspy.JSONAdapter())  # fmt: skip
    question = select(load_questions(), "test")[0]
    Text2SQLArm(lm, backend, backend.schema(), program=program).ask(question)
    write, answer = (prompt_of(h) for h in lm.history)
    assert all(as_shown(d.sql) in write for d in shipped_demos([7]))
    assert "This is an example of the task" not in answer
    with pytest.raises(ApexMemError, match="is not a compiled program of this kind"):
        text2sql_program(backend, backend.schema(), compiled_dir([7]) / FILES["sqlite-sql"])
