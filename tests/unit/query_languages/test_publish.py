"""The published SQL-vs-Cypher file's verdict: paired tests per language pair, kind and program."""

from __future__ import annotations

import pytest

from benchmarks.query_languages.metrics import QuestionRecord
from benchmarks.query_languages.publish import compare, holm, verdict_line, verdicts


def record(arm: str, qid: int, correct: bool, kind: str = "as_of") -> QuestionRecord:
    return QuestionRecord(arm=arm, qid=f"q{qid:03d}", kind=kind, question="?", gold="x",
                          answer_type="name", correct=correct, model="m",
                          program="compiled")  # fmt: skip


def arm(name: str, right: set[int], n: int = 20, kind: str = "as_of") -> list[QuestionRecord]:
    return [record(name, i, i in right, kind) for i in range(n)]


def test_compare_counts_discordant_questions() -> None:
    sql, cypher = arm("neo4j-sql", set(range(4))), arm("neo4j-cypher", set(range(16)))
    result = compare(sql, cypher)
    assert (result["n"], result["sql_correct"], result["cypher_correct"]) == (20, 4, 16)
    assert (result["only_sql_correct"], result["only_cypher_correct"]) == (0, 12)
    assert result["p_value"] < 0.001
    close = compare(arm("neo4j-sql", {0, 1, 2}), arm("neo4j-cypher", {0, 1, 2, 3}))
    assert close["p_value"] == 1.0


def test_holm_adjusts_within_a_family() -> None:
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert holm([0.5]) == [0.5] and holm([0.6, 0.9]) == [1.0, 1.0]


def test_verdicts_per_pair_and_kind() -> None:
    records = [*arm("neo4j-sql", set(range(4))), *arm("neo4j-cypher", set(range(16))),
               *arm("text2sql", set(range(10))), *arm("text2cypher", set(range(10)))]  # fmt: skip
    comps = verdicts(records)
    assert set(comps) == {"agent on Neo4j", "one-shot"}  # no sqlite-sql arm: no native pair
    assert comps["agent on Neo4j"]["by_kind"]["as_of"]["better"] == "Cypher"
    line = verdict_line(comps)
    assert line.startswith("agent on Neo4j: Cypher better (Holm p=")
    assert "one-shot: no significant difference (Holm p=1.0)" in line


def test_zero_shot_rows_are_a_family_of_their_own() -> None:
    asked = [*arm("text2sql", set(range(2))), *arm("text2cypher", set(range(18)))]
    zero = [r.model_copy(update={"program": "zero-shot"}) for r in asked]
    comps = verdicts([*arm("text2sql", set(range(10))), *arm("text2cypher", set(range(10))), *zero])
    assert list(comps) == ["one-shot", "one-shot, zero-shot"]
    assert comps["one-shot"]["program"] == "compiled" and comps["one-shot"]["all"]["p_holm"] == 1.0
    assert comps["one-shot, zero-shot"]["all"]["better"] == "Cypher"
    assert "one-shot, zero-shot: Cypher better" in verdict_line(comps)
