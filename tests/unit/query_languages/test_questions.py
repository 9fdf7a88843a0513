"""The SQL-vs-Cypher question set: deterministic, >= 100 questions of six kinds, gold answers
that the SQLite store computes identically to the reference store."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from apexmem_neo.store.sqlite import SQLiteGraphStore
from benchmarks.query_languages.generate import (
    GOLD_GRAPH,
    generate,
    load_gold,
    load_questions,
)
from benchmarks.query_languages.gold import PREFIX, gold_batch
from benchmarks.query_languages.questions import KINDS, answer_for


def test_generation_is_deterministic_and_matches_the_data_files() -> None:
    batch, questions = generate()
    again_batch, again = generate()
    assert [q.model_dump() for q in questions] == [q.model_dump() for q in again]
    assert batch.model_dump() == again_batch.model_dump()
    assert [q.model_dump() for q in load_questions()] == [q.model_dump() for q in questions]
    stored = json.loads(GOLD_GRAPH.read_text(encoding="utf-8"))
    assert len(stored["facts"]) == len(batch.facts)
    assert {f.fact_id for f in load_gold().facts} == {f.fact_id for f in batch.facts}


def test_question_set_covers_six_kinds() -> None:
    questions = load_questions()
    kinds = Counter(q.kind for q in questions)
    assert len(questions) >= 100 and set(kinds) == set(KINDS)
    assert min(kinds.values()) >= 15
    assert len({q.qid for q in questions}) == len(questions)
    assert [q.kind for q in questions[:6]] == list(KINDS)  # any prefix mixes kinds


def test_every_id_of_the_gold_graph_is_prefixed() -> None:
    batch = gold_batch()
    ids = [e.entity_id for e in batch.entities] + [e.event_id for e in batch.events]
    ids += [t.turn_id for t in batch.turns] + [e.evidence_id for e in batch.evidence]
    assert ids and all(i.startswith(PREFIX) for i in ids)
    assert all(f.entity_id.startswith(PREFIX) for f in batch.facts)


def test_gold_answers_agree_with_the_sqlite_store(tmp_path: Path) -> None:
    store = SQLiteGraphStore(tmp_path / "gold.sqlite")
    store.init_schema()
    store.write(load_gold())
    try:
        for q in load_questions():
            assert answer_for(store, q.spec) == q.gold, q.qid
    finally:
        store.close()
