"""The published SQL-vs-Cypher file: the verdict's paired tests, and a table README can show."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.published_results import results_table
from benchmarks.query_languages.metrics import QuestionRecord
from benchmarks.query_languages.publish import (
    compare,
    holm,
    published,
    report_markdown,
    report_plot,
    verdict_line,
    verdicts,
)
from benchmarks.query_languages.stats import model_figures


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


def test_the_published_file_renders_in_the_results_table(tmp_path: Path) -> None:
    records = [*arm("neo4j-sql", set(range(15))), *arm("neo4j-cypher", set(range(12)))]
    by_arm = {"neo4j-sql": records[:20], "neo4j-cypher": records[20:]}
    summary = {
        "models": ["m"], "split_sizes": {"train": 30, "test": 20}, "questions": 20,
        "gold_seeds": [7], "few_shot": {"demos_per_arm": 9},
        "by_model": {"m": {"model_note": "a model", **model_figures(by_arm)}},
    }  # fmt: skip
    data = published(summary, records, "python -m x", "abc")
    assert data["figures"]["neo4j_sql"]["successes"] == 15
    assert data["figures"]["neo4j_cypher"]["rate"] == 0.6 and data["ci95"]["neo4j_cypher"][0] < 0.6
    (tmp_path / "query_languages.json").write_text(json.dumps(data))
    table = results_table(tmp_path)
    assert "agent, SQL on Neo4j (shim): answer accuracy (n=20) | 75.0% |" in table
    assert "SQL vs Cypher verdict: agent on Neo4j: no significant difference (Holm p=" in table

    text = report_markdown(data)
    assert "| agent, SQL on Neo4j (shim) | 20 | 75.0 [" in text
    assert "| agent on Neo4j (neo4j-sql vs neo4j-cypher) | all | 20 | 15 | 12 |" in text
    assert text.endswith(f"**Verdict:** {data['figures']['verdict']}")
    assert report_plot(data, tmp_path / "plot.png").stat().st_size > 1000
