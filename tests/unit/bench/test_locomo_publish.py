"""Publishing a LOCOMO run: per-system figures with bootstrap intervals, and the agent's
paired gap to each baseline (both agent systems, auto and fast, when a run has both); several
runs pooled into one file, and unlike runs refused."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from benchmarks.locomo.data import portable_command
from benchmarks.locomo.publish import (
    answers_path,
    bootstrap_interval,
    main,
    paired_difference,
    published,
)
from benchmarks.memory import REPO
from benchmarks.published_results import REQUIRED, results_table


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
    inside = f"run --db {REPO}/benchmarks/results/c/s.sqlite --out-dir /elsewhere/out"
    assert (
        portable_command(inside)
        == "run --db benchmarks/results/c/s.sqlite --out-dir /elsewhere/out"
    )
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


# Both agent systems (auto and fast) beside the baselines, and several runs pooled.


def four(conversation: str, n: int = 6) -> list[dict[str, Any]]:
    """A run's records: agent right on all, agent_fast on the first half, rag on the even
    ones, full context on none; question 0 is temporal, the rest single-hop."""
    rows = []
    for i in range(n):
        for system, correct in (("agent", True), ("agent_fast", i < n // 2),
                                ("rag", i % 2 == 0), ("full_context", False)):  # fmt: skip
            rows.append({**record(system, i, 2 if i == 0 else 4, correct, 0.5),
                         "qid": f"{conversation}:q{i}"})  # fmt: skip
    return rows


def run_summary(conversation: str, commit: str = "abc", **setup: Any) -> dict[str, Any]:
    return {**SUMMARY, "command": f"python -m benchmarks.locomo.run --conversation {conversation}",
            "commit": commit, "judge_model": "m",
            "setup": {"conversation": conversation, "mode": "auto", **setup}}  # fmt: skip


def write_run(directory: Path, conversation: str, records: list[dict[str, Any]],
              **summary: Any) -> Path:  # fmt: skip
    path = directory / f"locomo_{conversation}.json"
    path.write_text(json.dumps(run_summary(conversation, **summary)))
    path.with_suffix(".jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def test_both_agent_systems_are_published_with_their_gaps_to_each_baseline() -> None:
    result = published(run_summary("conv-x"), four("conv-x"), "t", "e", order=1)
    assert list(result["ci95"]) == ["agent", "agent_fast", "rag", "full_context"]
    assert result["name"].endswith(": agent, auto mode; agent, fast mode; RAG top-10 turns; "
                                   "full context")  # fmt: skip
    gaps = result["figures"]["differences"]
    assert [k.removesuffix("_overall_1_4") for k in gaps if k.endswith("overall_1_4")] == [
        "agent_minus_rag", "agent_minus_full_context", "agent_fast_minus_rag",
        "agent_fast_minus_full_context", "agent_minus_agent_fast",
    ]  # fmt: skip
    assert gaps["agent_fast_minus_full_context_overall_1_4"]["difference"] == 0.5
    assert gaps["agent_minus_agent_fast_overall_1_4"]["difference"] == 0.5
    assert gaps["agent_fast_minus_rag_temporal"]["n"] == 1
    labels = [row["result"].format_map(result["figures"]) for row in result["table"]]
    assert labels[:2] == ["LOCOMO conv-x, agent, auto mode, judge accuracy (n=6)",
                          "LOCOMO conv-x, agent, fast mode, judge accuracy (n=6)"]  # fmt: skip
    fast = result["table"][1]["figure"].format_map(result["figures"])
    assert fast == "50.0%; temporal 100.0% (n=1); F1 0.50; p50 4.5 s"


def test_a_run_without_agent_fast_publishes_as_before() -> None:
    result = published(SUMMARY, RECORDS, "t", "e", order=1)
    assert list(result["figures"]["differences"]) == [
        "agent_minus_rag_overall_1_4", "agent_minus_rag_temporal"
    ]  # fmt: skip
    assert result["table"][0]["result"] == "LOCOMO conv-x, agent, judge accuracy (n={agent[n]})"
    assert (
        result["name"]
        == "LOCOMO conv-x question answering, categories 1-4: agent, RAG top-10 turns"
    )


def test_pooled_figures_are_a_single_runs_figures_over_the_union(tmp_path: Path) -> None:
    a, b = four("conv-a", 6), four("conv-b", 4)
    paths = [write_run(tmp_path, "conv-a", a), write_run(tmp_path, "conv-b", b)]
    out = tmp_path / "published" / "locomo_pooled_eval.json"
    out.parent.mkdir()
    args = ["--pool", *map(str, paths), "--tuned-on", "t", "--evaluated-on", "e",
            "--out", str(out), "--order", "3"]  # fmt: skip
    assert main(args) == 0
    result = json.loads(out.read_text())
    union = published(run_summary("conv-a + conv-b pooled"), a + b, "t", "e", order=3)
    assert result["figures"] == union["figures"]  # the same computation over all records
    assert result["figures"]["agent_fast"]["n"] == 10
    assert result["figures"]["differences"]["agent_minus_agent_fast_overall_1_4"]["n"] == 10
    assert set(REQUIRED) <= set(result) and result["commit"] == "abc"
    assert [s["conversation"] for s in result["sources"]] == ["conv-a", "conv-b"]
    assert [s["questions_1_4"] for s in result["sources"]] == [6, 4]
    assert "--conversation conv-a ; " in result["command"]
    assert result["pooled_by"].startswith(".venv/bin/python -m benchmarks.locomo.publish --pool")
    assert result["table"][0]["result"].startswith("LOCOMO conv-a + conv-b pooled, agent, auto")
    assert result["answers"] == "locomo_pooled_eval.answers.jsonl"
    rows = answers_path(out).read_text().splitlines()
    assert len(rows) == len(a) + len(b)
    table = results_table(out.parent)
    assert "LOCOMO conv-a + conv-b pooled, agent, fast mode, judge accuracy (n=10) | 50.0%" in table


@pytest.mark.parametrize(
    ("second", "said"),
    [
        (
            {"conversation": "conv-b", "commit": "def"},
            "different commits (conv-a: abc; conv-b: def)",
        ),
        ({"conversation": "conv-b", "drop": "agent_fast"}, "different systems"),
        ({"conversation": "conv-b", "mode": "fast"}, "different mode"),
        ({"conversation": "conv-a"}, "cannot pool conv-a twice"),
    ],
)
def test_unlike_runs_are_refused_in_one_line(
    tmp_path: Path, capsys: Any, second: dict[str, Any], said: str
) -> None:
    (tmp_path / "a").mkdir()
    first = write_run(tmp_path / "a", "conv-a", four("conv-a"))
    conversation, drop = second.pop("conversation"), second.pop("drop", None)
    records = [r for r in four(conversation) if r["system"] != drop]
    (tmp_path / "b").mkdir()
    other = write_run(tmp_path / "b", conversation, records, **second)
    out = tmp_path / "pooled.json"
    args = ["--pool", str(first), str(other), "--tuned-on", "t", "--evaluated-on", "e",
            "--out", str(out)]  # fmt: skip
    assert main(args) == 2
    err = capsys.readouterr().err
    assert said in err and err.count("\n") == 1 and err.startswith("error: cannot pool")
    assert not out.exists()


def test_pooling_needs_two_runs_and_no_single_run_options(tmp_path: Path, capsys: Any) -> None:
    path = write_run(tmp_path, "conv-a", four("conv-a"))
    base = ["--tuned-on", "t", "--evaluated-on", "e", "--out", str(tmp_path / "p.json")]
    assert main(["--pool", str(path), *base]) == 2
    assert "two or more runs" in capsys.readouterr().err
    assert main(["--pool", str(path), str(path), "--records", str(path), *base]) == 2
    assert "give no other" in capsys.readouterr().err
    assert main(base) == 2
    assert "give a run's summary" in capsys.readouterr().err
