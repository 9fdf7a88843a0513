"""Judging a LOCOMO run's kept answers again with today's judge.

Reads a run's answers (``benchmarks/published/locomo_<conv>.answers.jsonl``, written by
``benchmarks.locomo.publish``: qid, system, category, answer, verdict) and the LOCOMO file,
from which each qid's question, gold answer and evidence day are read at judge time (LOCOMO's
text is never copied into the answers). Each answer is judged again: by the rules of
``benchmarks.locomo.prejudge`` and, for what they leave undecided, by the LLM judge
(``--rules-only``: no LLM, an undecided answer keeps its recorded verdict). Writes the answers
with the new verdicts (``correct``, the old one as ``recorded``, and how it was decided) and
prints, per system, the judge accuracy over categories 1-4 before and after.

Usage (from the repo root):
    .venv/bin/python -m benchmarks.locomo.rejudge \\
        benchmarks/published/locomo_conv-42.answers.jsonl --data PATH/locomo10.json
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from benchmarks.locomo.data import (
    PAPER_CATEGORIES,
    LocomoQuestion,
    add_data_argument,
    locomo_data,
    questions_by_qid,
)
from benchmarks.locomo.judge import Judge, Verdict, judge_by_rules
from benchmarks.memory import RESULTS, read_jsonl

Grader = Callable[[LocomoQuestion, str], Verdict | None]


def rejudge_rows(
    rows: Sequence[dict[str, Any]], questions: dict[str, LocomoQuestion], grade: Grader
) -> list[dict[str, Any]]:
    """Each row with ``grade``'s verdict as ``correct`` (the recorded one kept as
    ``recorded``); where ``grade`` gives none, the recorded verdict stays."""
    out = []
    for row in rows:
        verdict = grade(questions[row["qid"]], str(row.get("answer") or ""))
        if verdict is None:
            out.append({**row, "recorded": row.get("correct"), "judged_by": "recorded"})
            continue
        by = "llm" if verdict.gold_seen is not None else "rules"
        again = {"correct": verdict.correct, "judge_raw": verdict.raw, "judged_by": by}
        out.append({**row, "recorded": row.get("correct"), **again})
    return out


def by_rules(q: LocomoQuestion, answer: str) -> Verdict | None:
    """The rules' verdict, or None (no LLM)."""
    return judge_by_rules(q.question, q.gold, answer, q.said_on)


def with_llm(judge: Judge) -> Grader:
    """The full judge: rules, then the LLM on the resolved gold."""
    return lambda q, answer: judge(q.question, q.gold, answer, said_on=q.said_on)


def accuracy_change(rows: Sequence[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per system over categories 1-4: n, accuracy recorded and again (no verdict counts as
    wrong), answers whose verdict changed, and how many the rules and the LLM decided."""
    out: dict[str, dict[str, Any]] = {}
    for system in sorted({r["system"] for r in rows}):
        mine = [r for r in rows if r["system"] == system and r["category"] in PAPER_CATEGORIES]
        if not mine:
            continue
        n = len(mine)
        out[system] = {
            "n": n,
            "accuracy_recorded": round(sum(r["recorded"] is True for r in mine) / n, 4),
            "accuracy_again": round(sum(r["correct"] is True for r in mine) / n, 4),
            "changed": sum(r["recorded"] != r["correct"] for r in mine),
            "by_rules": sum(r["judged_by"] == "rules" for r in mine),
            "by_llm": sum(r["judged_by"] == "llm" for r in mine),
        }
    return out


def _args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    p.add_argument("answers", type=Path, help="a run's answers (.answers.jsonl)")
    add_data_argument(p)
    p.add_argument("--out", type=Path, default=None, help="default results/<name>.rejudged")
    p.add_argument("--rules-only", action="store_true", help="no LLM: undecided stay as were")
    p.add_argument("--model", default=None, help="any LiteLLM model (default APEXMEM_LM)")
    p.add_argument("--api-base", default=None)
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = _args(sys.argv[1:] if argv is None else argv)
    rows = read_jsonl(args.answers)
    if not rows:
        print(f"error: no answers in {args.answers}", file=sys.stderr)
        return 2
    args.data = locomo_data(args.data)
    questions = questions_by_qid(args.data, {r["qid"] for r in rows})
    grade = by_rules if args.rules_only else with_llm(_judge(args))
    again = rejudge_rows(rows, questions, grade)
    name = args.answers.name.removesuffix(".jsonl").removesuffix(".answers")
    out = args.out or RESULTS / f"{name}.rejudged.jsonl"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("".join(json.dumps(r) + "\n" for r in again), encoding="utf-8")
    print(json.dumps(accuracy_change(again), indent=2))
    print(f"written to {out}")
    return 0


def _judge(args: argparse.Namespace) -> Judge:
    from benchmarks.memory import resolve_lm

    lm, _ = resolve_lm(args.model, args.api_base, 64)
    return Judge(lm)


if __name__ == "__main__":
    sys.exit(main())
