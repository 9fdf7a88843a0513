"""Publishing a LOCOMO run with hand grades (``--hand``): sheets joined to the records by
system and qid with the same answer, every unlike sheet refused in one line, hand figures
beside the judge's, and a pooled publish with hand grades."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from benchmarks.locomo.publish import hand_grades, main, published, with_hand
from benchmarks.memory import REPO, repo_path
from benchmarks.published_results import results_table
from tests.unit.bench.test_locomo_publish import four, run_summary, write_run


def answered(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{**r, "answer": f"{r['system']} says {r['qid']}"} for r in records]


def sheet(records: list[dict[str, Any]], human: Any = None) -> list[dict[str, Any]]:
    """A blind sheet of ``records``, graded by ``human(record)``: by default the hand agrees
    with the judge except that full context's answers are all right by hand."""
    grade = human or (lambda r: r["system"] == "full_context" or r["correct"] is True)
    return [{"system": r["system"], "qid": r["qid"], "category": r["category"],
             "answer": r["answer"], "human": grade(r), "reason": "r"}
            for r in records]  # fmt: skip


def write_sheet(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_the_sheets_grades_join_by_system_and_qid() -> None:
    records = answered(four("conv-a"))
    half = len(records) // 2
    rows = sheet(records)
    grades = hand_grades([("s1.jsonl", rows[:half]), ("s2.jsonl", rows[half:])], records)
    assert isinstance(grades, dict) and len(grades) == len(records)
    assert grades[("full_context", "conv-a:q0")] is True
    assert grades[("agent_fast", "conv-a:q5")] is False
    joined = with_hand(records, grades)
    assert all(r["human"] == grades[(r["system"], r["qid"])] for r in joined)
    assert (
        repo_path(REPO / "benchmarks" / "judge_check" / "s.jsonl")
        == "benchmarks/judge_check/s.jsonl"
    )


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (lambda rows: rows[1:], "published answers have no sheet row, the first agent conv-a:q0"),
        (lambda rows: [*rows, {**rows[0], "qid": "conv-z:q1"}], "no published record"),
        (lambda rows: [{**rows[0], "answer": "other"}, *rows[1:]], "answer differs"),
        (lambda rows: [{**rows[0], "human": None}, *rows[1:]], "human is None, not true"),
        (lambda rows: [{**rows[0], "human": "yes"}, *rows[1:]], "not true or false"),
        (lambda rows: [*rows, rows[0]], "graded twice"),
        (lambda rows: [{**rows[0], "judge": True}, *rows[1:]], "was not graded blind"),
    ],
)
def test_unlike_sheets_are_refused_in_one_line(
    tmp_path: Path, capsys: Any, change: Any, said: str
) -> None:
    records = answered(four("conv-a"))
    path = write_run(tmp_path, "conv-a", records)
    hand = write_sheet(tmp_path / "sheet.jsonl", change(sheet(records)))
    out = tmp_path / "pub.json"
    args = [str(path), "--tuned-on", "t", "--evaluated-on", "e", "--out", str(out)]
    assert main([*args, "--hand", str(hand)]) == 2
    err = capsys.readouterr().err
    assert said in err and err.count("\n") == 1 and err.startswith("error: ")
    assert not out.exists()


def test_hand_figures_stand_beside_the_judges(tmp_path: Path) -> None:
    records = answered(four("conv-a"))
    path = write_run(tmp_path, "conv-a", records)
    hand = write_sheet(tmp_path / "sheet.jsonl", sheet(records))
    out = tmp_path / "published" / "locomo_conv-a.json"
    out.parent.mkdir()
    args = [str(path), "--tuned-on", "t", "--evaluated-on", "e", "--out", str(out)]
    assert main([*args, "--hand", str(hand)]) == 0
    result = json.loads(out.read_text())
    figures = result["figures"]
    full, agent = figures["full_context"], figures["agent"]
    assert (full["judge_accuracy"], full["hand_accuracy"], full["judge_hand_agreement"]) == (
        0.0, 1.0, 0.0
    )  # fmt: skip
    assert full["hand_ci95"] == [1.0, 1.0] and full["categories"]["temporal"]["hand_accuracy"] == 1
    assert (agent["hand_accuracy"], agent["judge_hand_agreement"]) == (1.0, 1.0)
    assert figures["differences"]["agent_minus_full_context_overall_1_4"]["difference"] == 1.0
    by_hand = figures["differences_by_hand"]
    assert by_hand["agent_minus_full_context_overall_1_4"]["difference"] == 0.0
    assert (
        by_hand["agent_minus_rag_overall_1_4"]
        == figures["differences"]["agent_minus_rag_overall_1_4"]
    )
    assert result["hand_grades"]["sheets"] == [str(hand)]  # outside the repo: as given
    assert "blind to the judge's verdict" in result["hand_grades"]["note"]
    assert "judge_check.py's docstring" in result["notes"]
    figure = result["table"][3]["figure"].format_map(figures)
    assert figure == "judge 0.0%, by hand 100.0%; temporal judge 0.0%, by hand 100.0% (n=1); " \
        "F1 0.50; p50 4.5 s"  # fmt: skip
    table = results_table(out.parent)
    assert "full context, judge and hand accuracy (n=6) | judge 0.0%, by hand 100.0%" in table
    without = published(run_summary("conv-a"), records, "t", "e", order=1)
    assert "hand_accuracy" not in without["figures"]["agent"]
    assert "differences_by_hand" not in without["figures"]


def test_a_pooled_publish_joins_hand_grades_over_all_runs(tmp_path: Path) -> None:
    a, b = answered(four("conv-a", 6)), answered(four("conv-b", 4))
    paths = [write_run(tmp_path, "conv-a", a), write_run(tmp_path, "conv-b", b)]
    sheets = [
        write_sheet(tmp_path / "a.jsonl", sheet(a)),
        write_sheet(tmp_path / "b.jsonl", sheet(b)),
    ]
    out = tmp_path / "pooled.json"
    base = ["--pool", *map(str, paths), "--tuned-on", "t", "--evaluated-on", "e", "--out", str(out)]
    assert main([*base, "--hand", str(sheets[0])]) == 2  # conv-b's answers ungraded
    assert main([*base, "--hand", *map(str, sheets)]) == 0
    result = json.loads(out.read_text())
    full = result["figures"]["full_context"]
    assert (full["n"], full["hand_accuracy"], full["judge_accuracy"]) == (10, 1.0, 0.0)
    assert result["figures"]["differences_by_hand"]["agent_minus_rag_overall_1_4"]["n"] == 10
    assert result["hand_grades"]["sheets"] == list(map(str, sheets))
    assert result["pooled_by"].endswith(f"--hand {sheets[0]} {sheets[1]}")
    union = published(run_summary("x"), with_hand(a + b, {
        (r["system"], r["qid"]): r["human"] for r in sheet(a) + sheet(b)
    }), "t", "e", order=1)  # fmt: skip
    assert result["figures"] == union["figures"]
