"""Questions over a real memory, on a small hand-made store with a real one's mess (no LLM,
no service): the graph keeps no conversation text, each rule of ``real_questions`` admits and
refuses what it says, every gold agrees with the SQLite store and its reference SQL, and the
CLI writes its files or stops with one line."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections import Counter
from pathlib import Path

import pytest

from apexmem_neo.ontology import GraphBatch
from apexmem_neo.store.sqlite import SQLiteGraphStore
from benchmarks.query_languages.generate import load_gold, load_questions
from benchmarks.query_languages.gold import PREFIX
from benchmarks.query_languages.questions import KINDS, Question, answer_for
from benchmarks.query_languages.real_memory import (
    SOURCE,
    NotAStoreError,
    build,
    check_store,
    main,
    sql_disagreements,
)
from benchmarks.query_languages.real_questions import TAG, humanise, real_drafts
from tests.unit.query_languages.messy_store import FACTS, messy_store


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[GraphBatch, list[Question]]:
    path = messy_store(tmp_path_factory.mktemp("messy") / "store.sqlite")
    batch, questions, _ = build(path, per_kind=50)
    return batch, questions


def asked(questions: list[Question], op: str) -> dict[str, str]:
    """Question text -> gold, of the questions of ``op``."""
    return {q.text: q.gold for q in questions if q.spec.op == op}


def test_the_graph_holds_no_conversation_text_and_keeps_fact_ids_and_ends(
    built: tuple[GraphBatch, list[Question]],
) -> None:
    batch, _ = built
    assert not batch.sessions and not batch.turns and not batch.evidence
    assert all(e.turn_id is None and e.evidence_id is None for e in batch.events)
    assert all(f.evidence_id is None for f in batch.facts)
    ids = [e.entity_id for e in batch.entities] + [e.event_id for e in batch.events]
    ids += [f.entity_id for f in batch.facts] + [p.event_id for p in batch.participants]
    assert all(i.startswith(PREFIX) for i in ids)
    assert len(batch.facts) == len(FACTS) and batch.scope == "default"
    assert sum(f.value is None for f in batch.facts) == 1
    assert "turn " not in batch.model_dump_json()


def test_current_and_since_only_where_the_last_step_is_clear(
    built: tuple[GraphBatch, list[Question]],
) -> None:
    _, questions = built
    now = asked(questions, "current")
    assert now["What is Ann's place of residence now?"] == "Austin"
    assert now["What is Ann's mood now?"] == "happy"
    assert not any("favourite restaurant" in t for t in now)  # it ended
    assert not any("Lisbon" in t for t in now)  # its value is its own name
    since = asked(questions, "since")
    assert since["Since when has Ann had the current occupation?"] == "2023-03-05"
    assert not any("place of residence" in t for t in since)  # Austin began a step earlier


def test_as_of_between_fact_days_of_a_clear_step(built: tuple[GraphBatch, list[Question]]) -> None:
    _, questions = built
    then = asked(questions, "as_of")
    assert then["What was Ann's favourite restaurant on 2023-02-02?"] == "Noodle Bar"
    assert then["What was Ann's place of residence on 2023-01-21?"] == "Denver"
    assert "What was Ann's place of residence on 2023-02-15?" not in then  # two values then
    assert not any("mood" in t or "hobby" in t for t in then)  # markup, "true", "art"


def test_changes_only_to_a_value_of_one_day_after_the_first(
    built: tuple[GraphBatch, list[Question]],
) -> None:
    _, questions = built
    changed = asked(questions, "changed_to")
    assert changed["When did Ann's place of residence change to Boston?"] == "2023-02-01"
    assert changed["When did Ann's occupation change to teacher?"] == "2023-02-05"
    texts = " ".join(changed)
    assert "Austin" not in texts and "nurse" not in texts and "Denver" not in texts
    days = asked(questions, "days_until_change")
    assert days == {
        "For how many days was Ann's occupation teacher before it changed?": "28",
        "For how many days was Ann's favourite restaurant Noodle Bar before it changed?": "26",
    }


def test_counts_only_over_readable_values(built: tuple[GraphBatch, list[Question]]) -> None:
    _, questions = built
    distinct = asked(questions, "count_distinct")
    assert distinct["How many different values of place of residence has Ann had?"] == "3"
    assert not any("mood" in t or "favourite restaurant" in t for t in distinct)
    changes = asked(questions, "count_changes")
    assert changes["How many times did Ann's occupation change?"] == "2"
    assert not any("place of residence" in t for t in changes)  # two values at one time
    people = asked(questions, "count_current")
    assert people["How many people have nurse as their occupation now?"] == "2"
    assert not any("location" in t for t in people)  # a place holds it too


def test_joins_follow_a_value_that_names_another_entity(
    built: tuple[GraphBatch, list[Question]],
) -> None:
    _, questions = built
    joins = asked(questions, "named_current")
    text = "What is the current place of residence of the one who was Bo's partner on 2023-02-05?"
    assert joins[text] == "Austin"
    assert len(joins) == 4  # Ann's clear current values; Cy Lane names no entity


def test_no_question_asks_about_mess(built: tuple[GraphBatch, list[Question]]) -> None:
    _, questions = built
    said = " ".join(q.text + " " + q.gold for q in questions)
    assert "[" not in said and "true" not in said and " art" not in said and "None" not in said
    assert all(q.qid.startswith(TAG) for q in questions)
    assert set(Counter(q.kind for q in questions)) == set(KINDS)


def test_every_gold_agrees_with_sqlite_and_its_reference_sql(
    built: tuple[GraphBatch, list[Question]], tmp_path: Path
) -> None:
    batch, questions = built
    store = SQLiteGraphStore(tmp_path / "gold.sqlite")
    store.init_schema()
    store.write(batch)
    try:
        assert all(answer_for(store, q.spec) == q.gold for q in questions)
    finally:
        store.close()
    assert sql_disagreements(batch, questions, tmp_path / "refq.sqlite") == []


def test_the_draws_depend_on_the_seed_only(tmp_path: Path) -> None:
    path = messy_store(tmp_path / "store.sqlite")
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    first, again, other = (build(path, seed, per_kind=3)[1] for seed in (7, 7, 8))
    assert [q.model_dump() for q in first] == [q.model_dump() for q in again]
    assert [q.text for q in first] != [q.text for q in other]
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before


def test_humanise() -> None:
    assert humanise("favourite_restaurant") == "favourite restaurant"
    assert humanise("lives_in") == "place of residence"


def test_the_cli_writes_the_graph_questions_and_source(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = messy_store(tmp_path / "store.sqlite")
    out = tmp_path / "out"
    main(["--store", str(path), "--out-dir", str(out), "--seed", "3"])
    printed = capsys.readouterr().out
    source = json.loads((out / SOURCE).read_text())
    assert source["store_sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    assert source["store_sha256"] in printed and "  join: 4" in printed
    questions = load_questions(out / "questions.jsonl")
    assert len(questions) == source["questions"] and source["seed"] == 3
    assert len(load_gold(out / "gold_graph.json").facts) == len(FACTS)


def test_a_path_that_is_no_store_stops_the_cli_with_one_line(tmp_path: Path) -> None:
    text = tmp_path / "notes.txt"
    text.write_text("not a database " * 100)
    empty = tmp_path / "other.sqlite"
    sqlite3.connect(empty).execute("CREATE TABLE t (x)").connection.close()
    cases = [(tmp_path / "missing.sqlite", "no such file"), (text, "not a SQLite database"),
             (empty, "not an apexmem store")]  # fmt: skip
    for path, says in cases:
        with pytest.raises(SystemExit) as stop:
            main(["--store", str(path), "--out-dir", str(tmp_path / "out")])
        message = str(stop.value.code)
        assert message.startswith("error: ") and says in message and "\n" not in message
        with pytest.raises(NotAStoreError):
            check_store(path)
    assert not (tmp_path / "out").exists()


def test_drafts_never_repeat_a_question(built: tuple[GraphBatch, list[Question]]) -> None:
    batch, _ = built
    texts = [d[2] for d in real_drafts(batch)]
    assert len(texts) == len(set(texts))
