"""The train / test split over entities, and the gold graph of several seeds."""

from __future__ import annotations

from pathlib import Path

import pytest

from apexmem_neo.store.sqlite import SQLiteGraphStore
from benchmarks.query_languages.arms import sqlite_gold
from benchmarks.query_languages.generate import (
    generate,
    generate_seeds,
    load_gold,
    load_questions,
)
from benchmarks.query_languages.gold import (
    COMPANIES,
    PEOPLE,
    PREFIX,
    entity_id,
    merged_gold,
    people_names,
)
from benchmarks.query_languages.questions import KINDS, Question, Spec, answer_for
from benchmarks.query_languages.split import (
    held_out_subjects,
    select,
    side,
    split_sizes,
    subjects,
)


def count_question(prop: str, value: str) -> Question:
    spec = Spec(op="count_current", property=prop, value=value)
    return Question(qid="c", kind="aggregate", text="?", answer_type="number", spec=spec, gold="1")


def test_the_split_is_deterministic_disjoint_and_about_half() -> None:
    questions = load_questions()
    test, train = select(questions, "test"), select(questions, "train")
    shuffled = select(list(reversed(questions)), "test")
    assert [q.qid for q in shuffled] == [q.qid for q in reversed(test)]  # order-independent
    assert {q.qid for q in test} | {q.qid for q in train} == {q.qid for q in questions}
    assert not {k for q in test for k in subjects(q)} & {k for q in train for k in subjects(q)}
    keys = {k for q in questions for k in subjects(q)}
    assert len(held_out_subjects(questions)) == len(keys) // 2
    assert select(questions, "all") == questions
    assert 0.3 < len(test) / len(questions) < 0.7


def test_subjects_of_timelines_companies_and_cities() -> None:
    q = load_questions()[0]
    assert subjects(q) == [q.spec.entity_id]
    company = count_question("employer", "Brightwave Labs")
    assert subjects(company) == [entity_id("Brightwave Labs")]
    assert subjects(count_question("city", "Rome")) == [f"{PREFIX}city_rome"]


def test_a_question_naming_two_entities_is_test_only_if_both_are() -> None:
    assert side(["a", "b"], {"a", "b"}) == "test"
    assert side(["a", "b"], {"a"}) == "train"
    assert side(["b"], {"a"}) == "train"


def test_split_sizes_count_questions_subjects_and_kinds() -> None:
    questions = load_questions()
    sizes = split_sizes(questions)
    assert sizes["test"]["questions"] == len(select(questions, "test"))
    assert sizes["test"]["questions"] + sizes["train"]["questions"] == len(questions)
    assert sum(sizes["train"]["by_kind"].values()) == sizes["train"]["questions"]


def test_people_of_other_seeds_have_other_names() -> None:
    assert people_names() == PEOPLE
    assert people_names(8) != PEOPLE and len(set(people_names(8))) == len(PEOPLE)
    assert not set(people_names(8)) & set(PEOPLE)
    assert people_names(7 + len(PEOPLE)) == PEOPLE
    with pytest.raises(ValueError, match="same people"):
        merged_gold([7, 7 + len(PEOPLE)])


def test_merged_gold_keeps_every_seed_and_shares_the_companies() -> None:
    merged = merged_gold([7, 8])
    ids = [e.entity_id for e in merged.entities]
    assert len(ids) == len(set(ids)) == 2 * len(PEOPLE) + len(COMPANIES)
    assert all(i.startswith(PREFIX) for i in ids)
    assert len({f.fact_id for f in merged.facts}) == len(merged.facts)
    hq = [f for f in merged.facts if f.property == "headquarters_city"]
    assert len(hq) == len(COMPANIES)


def test_several_seeds_give_more_questions_with_tagged_ids(tmp_path: Path) -> None:
    batch, questions = generate_seeds([7, 8])
    assert len(questions) == 2 * len(load_questions())
    assert all(q.qid.startswith("s7-8_q") for q in questions)
    test = select(questions, "test")
    assert all(sum(q.kind == k for q in test) >= 10 for k in KINDS)
    counts = [q for q in questions if q.spec.op == "count_current"]
    assert all(len(q.spec.entity_ids) == 2 * len(PEOPLE) for q in counts)
    store = SQLiteGraphStore(tmp_path / "gold.sqlite")
    store.init_schema()
    store.write(batch)
    try:
        for q in questions:
            assert answer_for(store, q.spec) == q.gold, q.qid
    finally:
        store.close()


def test_the_default_seed_alone_gives_the_data_files() -> None:
    batch, questions = generate_seeds([7])
    same_batch, same = generate()
    assert [q.model_dump() for q in questions] == [q.model_dump() for q in same]
    assert batch.model_dump() == same_batch.model_dump()
    assert all(q.qid.startswith("s8_") for q in generate_seeds([8])[1])


def test_a_sqlite_file_of_another_seed_set_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "gold.sqlite"
    sqlite_gold(path, merged_gold([7, 8])).close()
    with pytest.raises(ValueError, match="not in this gold graph"):
        sqlite_gold(path, load_gold())
    sqlite_gold(path, merged_gold([7, 8])).close()  # the same gold again is fine
