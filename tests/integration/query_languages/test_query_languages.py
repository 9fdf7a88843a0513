"""The SQL-vs-Cypher study against real Neo4j and the local LLM.

* the gold answers agree with the Neo4j store's temporal queries (no LLM);
* two questions per arm (sqlite-sql, neo4j-sql, neo4j-cypher, text2cypher, text2sql) through
  the local model: every arm returns a complete record, and the agent arms really queried;
* loading the gold graph replaces study nodes of another gold graph (other seeds).

The gold graph's nodes (ids prefixed ``ql_``) are deleted from Neo4j at the end.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from neo4j import Driver

from apexmem_neo.llm import make_lm
from apexmem_neo.query.backend import Language
from apexmem_neo.store.neo4j import Neo4jGraphStore
from apexmem_neo.tools.compact_schema import EXAMPLE_QUERIES, SchemaLink, linked_query
from apexmem_neo.tools.graph_query import run_graph_query
from benchmarks.query_languages.arms import (
    AGENT_ARMS,
    Stores,
    build_agent_arm,
    delete_gold,
    neo4j_gold,
    open_stores,
)
from benchmarks.query_languages.generate import load_gold, load_questions
from benchmarks.query_languages.metrics import QuestionRecord, aggregate
from benchmarks.query_languages.questions import answer_for
from benchmarks.query_languages.run import neo4j_driver as neo4j_driver_for_study
from benchmarks.query_languages.text2cypher import Text2CypherArm
from benchmarks.query_languages.text2sql import Text2SQLArm

pytestmark = [pytest.mark.integration, pytest.mark.neo4j]

MODEL = "openai/qwen2.5-coder-1.5b-instruct"


@pytest.fixture(scope="module")
def stores(neo4j_driver: Driver, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stores]:
    path: Path = tmp_path_factory.mktemp("ql") / "gold.sqlite"
    with open_stores(load_gold(), path, neo4j_driver) as opened:
        yield opened
    assert delete_gold(neo4j_driver, load_gold()) > 0


def test_gold_answers_agree_with_the_neo4j_store(stores: Stores) -> None:
    assert isinstance(stores.neo4j, Neo4jGraphStore)
    for q in load_questions():
        assert answer_for(stores.neo4j, q.spec) == q.gold, q.qid


@pytest.mark.parametrize(("arm", "language"), [("neo4j-sql", "sql"), ("neo4j-cypher", "cypher")])
def test_the_example_query_shown_to_the_arms_runs_on_neo4j(
    stores: Stores, arm: str, language: Language
) -> None:
    """Every arm is shown one worked query; on Neo4j it must run and find rows."""
    assert stores.neo4j_backend is not None
    name = load_gold().entities[0].name
    query = EXAMPLE_QUERIES[language].replace("Alice", name)
    answer = run_graph_query(stores.neo4j_backend, query, language)
    assert answer.ok and answer.rows, (arm, answer)


@pytest.mark.parametrize("language", ["sql", "cypher"])
def test_the_query_modes_linked_examples_run_on_neo4j(stores: Stores, language: Language) -> None:
    """The query mode's worked example for a question's entity and property (and day) runs
    on Neo4j in both languages: the property's history, oldest first, and its value then."""
    assert stores.neo4j_backend is not None
    name = load_gold().entities[0].name
    history = linked_query(SchemaLink(name, "employer"), language)
    rows = run_graph_query(stores.neo4j_backend, history, language)
    assert rows.ok and rows.rows >= 2, (language, rows)
    on_day = linked_query(SchemaLink(name, "employer", "2019-06-01"), language)
    held = run_graph_query(stores.neo4j_backend, on_day, language)
    assert held.ok and held.rows == 1, (language, held)


@pytest.mark.llm
@pytest.mark.timeout(3600)
def test_two_questions_per_arm_through_the_local_model(
    stores: Stores, neo4j_driver: Driver, lm_api_base: str
) -> None:
    lm = make_lm(MODEL, lm_api_base, "local", max_tokens=400, timeout=1500)
    arms: dict[str, object] = {name: build_agent_arm(name, lm, stores) for name in AGENT_ARMS}
    assert stores.neo4j_backend is not None
    arms["text2cypher"] = Text2CypherArm(
        neo4j_driver, stores.neo4j_backend.schema(), MODEL, lm_api_base, "local"
    )
    assert stores.sqlite_backend is not None
    arms["text2sql"] = Text2SQLArm(lm, stores.sqlite_backend, stores.sqlite_backend.schema())
    questions = load_questions()[:2]
    records: dict[str, list[QuestionRecord]] = {}
    for name, arm in arms.items():
        records[name] = [arm.ask(q) for q in questions]  # type: ignore[attr-defined]
    for name, recs in records.items():
        assert [r.qid for r in recs] == [q.qid for q in questions]
        assert all(r.arm == name and r.seconds > 0 and r.llm_calls >= 1 for r in recs), name
        figures = aggregate(recs)
        assert figures["questions"] == 2 and figures["accuracy_pct"] is not None
    for name in AGENT_ARMS:  # the agent arms reached their tools through the loop
        calls = [c for r in records[name] for c in r.calls]
        assert calls and all(c.tool in ("GraphQuery", "SchemaViewer") for c in calls), name
    t2c = [c for r in records["text2cypher"] for c in r.calls]
    assert len(t2c) == 2 and all(c.tool == "Text2Cypher" for c in t2c)
    assert all(c.args.get("query") or c.error_class for c in t2c)
    t2s = [c for r in records["text2sql"] for c in r.calls]
    assert len(t2s) == 2 and all(c.tool == "Text2SQL" and c.args.get("query") for c in t2s)


def test_the_runner_refuses_a_server_holding_other_entities(
    neo4j_driver: Driver, neo4j_uri: str
) -> None:
    """The study's arms count and scan the graph: someone else's entities would enter their
    answers and timings (a 1M-fact benchmark graph did, once), so the runner stops first."""
    neo4j_driver.execute_query("MERGE (:Entity {entity_id: 'tqx_qlguard_foreign'})")
    try:
        refused = pytest.raises(SystemExit, match="entities that are not the study's")
        with refused, neo4j_driver_for_study(neo4j_uri, True):
            pass
        with neo4j_driver_for_study(neo4j_uri, True, allow_foreign=True) as driver:
            assert driver is not None
    finally:
        neo4j_driver.execute_query("MATCH (e:Entity {entity_id: 'tqx_qlguard_foreign'}) DELETE e")


def test_loading_replaces_the_gold_of_other_seeds(stores: Stores, neo4j_driver: Driver) -> None:
    """A count question must not see another seed set's people, so they go before a load."""
    neo4j_driver.execute_query("MERGE (:Entity {entity_id: 'ql_ent_stale_person'})")
    neo4j_gold(neo4j_driver, load_gold())
    records, _, _ = neo4j_driver.execute_query(
        "MATCH (e:Entity) WHERE e.entity_id STARTS WITH 'ql_' RETURN count(e) AS n"
    )
    assert int(records[0]["n"]) == len(load_gold().entities)
