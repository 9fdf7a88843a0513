"""Publishing a LOCOMO run: per-system figures with bootstrap intervals, and the agent's
paired gap to each baseline."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from benchmarks.locomo.publish import (
    answers_path,
    bootstrap_interval,
    main,
    paired_difference,
    portable_command,
    published,
)
from benchmarks.published_results import REQUIRED


def record(system: str, qid: int, category: int, correct: bool, f1: float) -> dict[str, Any]:
    return {"system": system, "qid": f"c:q{qid}", "category": category, "correct": correct,
            "f1": f1, "seconds": 2.0 + qid, "evidence_hit": True,
            "tokens": {"prompt_tokens": 100, "completion_tokens": 10}}  # fmt: skip


RECORDS = [
    *(record("agent", i, 2 if i < 4 else 4, True, 0.8) for i in range(8)),
    *(record("rag", i, 2 if i < 4 else 4, i >= 4, 0.4) for i in range(8)),
    record("rag", 9, 5, True, 1.0),  # adversarial: not among the published categories
]
SUMMARY = {"command": "python -m benchmarks.locomo.run --data /x/dev5.json", "commit": "abc",
           "model": "m", "started_at": "2026-12-05T01:00:00",
           "setup": {"conversation": "conv-x"}}  # fmt: skip


def test_the_bootstrap_interval_holds_the_mean_and_is_degenerate_for_constants() -> None:
    lo, hi = bootstrap_interval([0.0, 1.0] * 20)
    assert lo < 0.5 < hi
    assert bootstrap_interval([1.0] * 5) == [1.0, 1.0]


def test_the_agents_gap_to_a_baseline_is_paired_by_question() -> None:
    overall = paired_difference(RECORDS, "agent", "rag")
    assert overall is not None and overall["n"] == 8 and overall["difference"] == 0.5
    temporal = paired_difference(RECORDS, "agent", "rag", category=2)
    assert temporal is not None and temporal["difference"] == 1.0
    assert paired_difference(RECORDS, "agent", "full_context") is None


def test_a_published_run_names_its_provenance_and_reads_into_the_table() -> None:
    result = published(SUMMARY, RECORDS, "tuned here", "evaluated there", order=2)
    assert set(REQUIRED) <= set(result) and result["commit"] == "abc"
    assert result["command"] == "python -m benchmarks.locomo.run --data locomo10.json"
    assert portable_command("run --data=/x/dev5.json --tag t") == "run --data=locomo10.json --tag t"
    agent, rag = result["figures"]["agent"], result["figures"]["rag"]
    assert (agent["n"], agent["judge_accuracy"], rag["judge_accuracy"]) == (8, 1.0, 0.5)
    assert rag["categories"]["temporal"]["judge_accuracy"] == 0.0
    assert agent["p50_seconds"] == 5.5 and agent["prompt_tokens_mean"] == 100
    assert result["figures"]["differences"]["agent_minus_rag_temporal"]["difference"] == 1.0
    row = result["table"][1]
    figure = row["figure"].format_map(result["figures"])
    assert figure == "50.0%; temporal 0.0% (n=4); F1 0.40; p50 5.5 s"


def test_a_missing_summary_is_one_clear_error(tmp_path: Path, capsys: Any) -> None:
    assert main([str(tmp_path / "none.json"), "--tuned-on", "t", "--evaluated-on", "e"]) == 2
    assert "no run summary at" in capsys.readouterr().err
    summary = tmp_path / "run.json"
    summary.write_text(json.dumps(SUMMARY))
    assert main([str(summary), "--tuned-on", "t", "--evaluated-on", "e"]) == 2
    assert "no judged answers in" in capsys.readouterr().err


def test_rejudged_records_publish_their_verdicts(tmp_path: Path) -> None:
    summary = tmp_path / "locomo_x.json"
    summary.write_text(json.dumps(SUMMARY))
    (tmp_path / "locomo_x.jsonl").write_text("".join(json.dumps(r) + "\n" for r in RECORDS))
    rejudged = tmp_path / "again.jsonl"
    rejudged.write_text("".join(json.dumps({**r, "correct": True}) + "\n" for r in RECORDS))
    out = tmp_path / "pub.json"
    args = [str(summary), "--tuned-on", "t", "--evaluated-on", "e", "--out", str(out)]
    assert main([*args, "--records", str(rejudged)]) == 0
    figures = json.loads(out.read_text())["figures"]
    assert all(figures[s]["judge_accuracy"] == 1.0 for s in ("agent", "rag"))


def test_a_published_run_keeps_its_answers_without_locomo_text(tmp_path: Path) -> None:
    summary = tmp_path / "locomo_x.json"
    summary.write_text(json.dumps(SUMMARY))
    judged = [{**r, "question": "When?", "gold": "11 April 2023", "answer": f"answer {i}"}
              for i, r in enumerate(RECORDS)]  # fmt: skip
    (tmp_path / "locomo_x.jsonl").write_text("".join(json.dumps(r) + "\n" for r in judged))
    out = tmp_path / "published" / "locomo_conv-x.json"
    out.parent.mkdir()
    assert main([str(summary), "--tuned-on", "t", "--evaluated-on", "e", "--out", str(out)]) == 0
    assert json.loads(out.read_text())["answers"] == "locomo_conv-x.answers.jsonl"
    rows = [json.loads(line) for line in answers_path(out).read_text().splitlines()]
    assert len(rows) == len(RECORDS)
    assert rows[0] == {"qid": "c:q0", "system": "agent", "category": 2, "answer": "answer 0",
                       "correct": True}  # fmt: skip
