"""Every real-memory question's reference queries answer its gold, run as the arms run theirs:
SQL on SQLite, SQL through the shim on Neo4j and Cypher on Neo4j; and the Neo4j store's
temporal queries give the same gold.

The fixture's graph comes from a small synthetic store shaped like one construction builds
(``tests.unit.query_languages.messy_store``), so the test needs no LOCOMO build. A second test
does the same on the kept conv-30 graph when that store is on this machine (it skips
otherwise: CI has no LOCOMO build). The study's nodes (ids prefixed ``ql_``) are deleted from
Neo4j at the end.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from neo4j import Driver

from apexmem_neo.ontology import GraphBatch
from apexmem_neo.query.backend import Language, QueryBackend
from apexmem_neo.store.neo4j import Neo4jGraphStore
from benchmarks.query_languages.arms import delete_gold, open_stores
from benchmarks.query_languages.questions import Question, answer_for
from benchmarks.query_languages.real_memory import build
from benchmarks.query_languages.reference import judged_correct, reference_query
from tests.unit.query_languages.messy_store import messy_store

pytestmark = [pytest.mark.integration, pytest.mark.neo4j]

CONV30: Path = Path(__file__).parents[3] / "benchmarks/results/conv30/s10_f8300f9.sqlite"


def disagreements(
    batch: GraphBatch, questions: list[Question], driver: Driver, path: Path
) -> list[str]:
    """A line per (question, path) whose reference query's answer the judge refuses, and per
    question whose gold the Neo4j store's temporal queries do not give."""
    names = {e.entity_id: e.name for e in batch.entities}
    wrong = []
    with open_stores(batch, path, driver) as stores:
        assert stores.sqlite_backend and stores.neo4j_backend
        assert isinstance(stores.neo4j, Neo4jGraphStore)
        paths: list[tuple[str, QueryBackend, Language]] = [
            ("sqlite", stores.sqlite_backend, "sql"),
            ("shim", stores.neo4j_backend, "sql"),
            ("neo4j", stores.neo4j_backend, "cypher"),
        ]
        for q in questions:
            if answer_for(stores.neo4j, q.spec) != q.gold:
                wrong.append(f"{q.qid}: the Neo4j store does not give {q.gold!r}")
            for label, backend, language in paths:
                query = reference_query(q, language, names)
                ok, answer = judged_correct(backend, query, language, q)
                if not ok:
                    wrong.append(f"{q.qid} {label}: {answer!r} != {q.gold!r}: {query}")
    delete_gold(driver, batch)
    return wrong


def test_every_reference_query_of_a_messy_store_answers_its_gold(
    neo4j_driver: Driver, tmp_path: Path
) -> None:
    batch, questions, _ = build(messy_store(tmp_path / "store.sqlite"), per_kind=50)
    assert {q.spec.op for q in questions} >= {"days_until_change", "named_current", "since"}
    assert disagreements(batch, questions, neo4j_driver, tmp_path / "gold.sqlite") == []


@pytest.mark.skipif(not CONV30.is_file(), reason=f"no conv-30 store at {CONV30} (a LOCOMO build)")
def test_every_reference_query_of_the_conv30_graph_answers_its_gold(
    neo4j_driver: Driver, tmp_path: Path
) -> None:
    batch, questions, _ = build(CONV30)
    assert len(questions) >= 60
    assert disagreements(batch, questions, neo4j_driver, tmp_path / "gold.sqlite") == []
