"""Checking the LOCOMO judge against answers graded by hand.

``sheet`` writes a grading sheet (JSON Lines) from judged LOCOMO records: per answer the
system, question id, category, the answer and the local judge's verdict, with empty
``human`` and ``reason`` fields that the grader fills with true (correct) or false (wrong) and
why. ``--blind`` leaves the judge's verdict out of the sheet, so the grader grades before
seeing it; ``agreement --verdicts <records>`` joins the verdicts back by system and qid. The
question and the gold answer are not copied (LOCOMO's text stays in its own file): ``--data``
shows them beside each row while grading, with the day the gold's evidence was said, and
``rejudge`` reads them from there.
``agreement`` reads filled sheets and reports how often the judge agrees with the grader,
Cohen's kappa, the judge's false positives and negatives, and agreement per system, category
and both, and on temporal answers whose gold is relative ("the week before 9 June 2023", "a
year ago"); ``--out`` saves that summary as JSON.

The grader's rule (one rule for every sheet since the fresh check of issue 50): an answer is
right when a careful reader holding the conversation would accept it as answering the
question with the gold's content. A resolved date that lies in the time a relative gold
names counts ("29 May 2023" for "the week before 9 June 2023"), and so does the same date in
another format, the same number in digits or words, and a list holding every gold item
(extra items that are not wrong are allowed). A list missing a gold item, a date outside the
gold's time, a different place, person or thing, or "not mentioned" for a stated fact is
wrong. An answer's own relative time words ("last week", "next month") count only when they
are the gold's own form ("10 years ago" for "10 years ago"): read on the question's date they
name another time. Where the conversation contradicts its gold (a turn's "last Saturday"
against a gold's Sunday), the conversation decides. The reason names what matched or what
was missing. ``rejudge`` grades a sheet's answers again
with today's judge (its rules, then the LLM) and writes the sheet with those verdicts, so a
judge change is checked against the same hand grades.

Usage (from the repo root):
    .venv/bin/python -m benchmarks.locomo.judge_check sheet benchmarks/results/locomo_x.jsonl \\
        --out benchmarks/judge_check/conv-30.jsonl
    .venv/bin/python -m benchmarks.locomo.judge_check agreement benchmarks/judge_check/*.jsonl
    .venv/bin/python -m benchmarks.locomo.judge_check rejudge benchmarks/judge_check/x.jsonl \
        --out benchmarks/results/x_rejudged.jsonl
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from benchmarks.locomo.data import LocomoQuestion, add_data_argument, locomo_data

SHEET_FIELDS = ("system", "qid", "category", "answer", "judge")
RELATIVE_TIME_WORDS = re.compile(
    r"\b(before|after|ago|last|next|since|week|weekend|few|couple|earlier|later|around|"
    r"early|late|first|second|third|fourth|past|previous|following)\b",
    re.IGNORECASE,
)


def sheet_rows(records: Iterable[dict[str, Any]], blind: bool = False) -> list[dict[str, Any]]:
    """One grading row per judged record whose judge gave a verdict (``human`` and ``reason``
    left None); ``blind`` leaves the verdict out."""
    rows = []
    for r in records:
        if r.get("correct") is None:
            continue
        row = {k: r.get(k) for k in SHEET_FIELDS if k != "judge"}
        judged = {} if blind else {"judge": bool(r["correct"])}
        rows.append({**row, **judged, "human": None, "reason": None})
    return rows


def join_verdicts(
    rows: Sequence[dict[str, Any]], records: Iterable[dict[str, Any]]
) -> list[dict[str, Any]]:
    """Blind sheet rows with the judge's verdict of the same system and qid in ``records``
    (rows that already hold a verdict keep it)."""
    verdicts = {
        (r["system"], r["qid"]): bool(r["correct"]) for r in records if r.get("correct") is not None
    }
    return [
        row if "judge" in row else {**row, "judge": verdicts.get((row["system"], row["qid"]))}
        for row in rows
    ]


def is_relative_gold(gold: str) -> bool:
    """Whether a temporal gold names its time relative to another (a plain date, month or
    year is not relative)."""
    return bool(RELATIVE_TIME_WORDS.search(gold))


def agreement(
    rows: Sequence[dict[str, Any]], golds: dict[str, str] | None = None
) -> dict[str, Any]:
    """How the judge's verdicts compare with the grader's on the graded rows; with ``golds``
    (qid -> gold answer) also on temporal answers whose gold is relative."""
    graded = [r for r in rows if isinstance(r.get("human"), bool) and r.get("judge") is not None]
    if not graded:
        raise ValueError("no graded rows: fill each row's human field with true or false")
    relative = [
        r for r in graded if golds and r["category"] == 2 and is_relative_gold(golds[r["qid"]])
    ]
    return {
        "n": len(graded),
        "agreement": _share_agreeing(graded),
        "cohen_kappa": _kappa(graded),
        "judge_correct_human_wrong": sum(r["judge"] and not r["human"] for r in graded),
        "judge_wrong_human_correct": sum(r["human"] and not r["judge"] for r in graded),
        "human_accuracy": round(sum(r["human"] for r in graded) / len(graded), 4),
        "judge_accuracy": round(sum(r["judge"] for r in graded) / len(graded), 4),
        "by_system": _split(graded, "system"),
        "by_category": _split(graded, "category"),
        "by_system_and_category": _split(graded, "system", "category"),
        "temporal_relative_gold": _split(relative, "system") if relative else {},
    }


def locomo_questions(data: Path, qids: Iterable[str]) -> dict[str, LocomoQuestion]:
    """qid ("conv-30:q12": conversation and index in its qa list) -> its question, gold
    answer and evidence day, read from the LOCOMO file."""
    from benchmarks.locomo.data import questions_by_qid

    return questions_by_qid(data, qids)


def rejudge(
    rows: Sequence[dict[str, Any]], judge: Any, questions: dict[str, LocomoQuestion]
) -> list[dict[str, Any]]:
    """The rows with ``judge``'s verdicts instead of the recorded ones (None when it gave none);
    ``questions`` gives each qid's question, gold answer and evidence day."""
    out = []
    for row in rows:
        q = questions[row["qid"]]
        verdict = judge(q.question, q.gold, row["answer"], said_on=q.said_on)
        out.append({**row, "judge": verdict.correct, "judge_raw": verdict.raw})
    return out


def _kappa(rows: Sequence[dict[str, Any]]) -> float | None:
    n = len(rows)
    observed = sum(r["judge"] == r["human"] for r in rows) / n
    p_judge = sum(r["judge"] for r in rows) / n
    p_human = sum(r["human"] for r in rows) / n
    expected = p_judge * p_human + (1 - p_judge) * (1 - p_human)
    return None if expected == 1 else round((observed - expected) / (1 - expected), 4)


def _split(rows: Sequence[dict[str, Any]], *keys: str) -> dict[str, dict[str, float]]:
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        groups["/".join(str(r[k]) for k in keys)].append(r)
    return {
        name: {"n": len(g), "agreement": _share_agreeing(g), "human_accuracy": _human(g)}
        for name, g in sorted(groups.items())
    }


def _human(rows: Sequence[dict[str, Any]]) -> float:
    return round(sum(r["human"] for r in rows) / len(rows), 4)


def _share_agreeing(rows: Sequence[dict[str, Any]]) -> float:
    agreeing = sum(1 for r in rows if r["judge"] == r["human"])
    return round(agreeing / len(rows), 4)


def _read(paths: Sequence[Path]) -> list[dict[str, Any]]:
    rows = []
    for path in paths:
        for no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if line.strip():
                try:
                    rows.append(json.loads(line))
                except ValueError as exc:
                    raise SystemExit(f"{path}:{no}: not JSON ({exc})") from exc
    return rows


def _joined(sheets: Sequence[Path], verdicts: Sequence[Path]) -> list[dict[str, Any]]:
    """The sheets' rows, each sheet joined with its own run's verdicts (the n-th verdicts
    file for the n-th sheet, or one file for all): two runs ask the same qids."""
    if not verdicts:
        return _read(sheets)
    if len(verdicts) not in (1, len(sheets)):
        raise SystemExit(
            f"give one --verdicts file per sheet ({len(sheets)}) or one for all, "
            f"not {len(verdicts)}"
        )
    pairs = zip(sheets, verdicts if len(verdicts) > 1 else verdicts * len(sheets), strict=True)
    return [
        row for sheet, judged in pairs for row in join_verdicts(_read([sheet]), _read([judged]))
    ]


def _show(rows: Sequence[dict[str, Any]], questions: dict[str, LocomoQuestion]) -> None:
    for no, row in enumerate(rows, start=1):
        q = questions[row["qid"]]
        said = f" (said {q.said_on[:10]})" if q.said_on else ""
        print(
            f"{no}. {row['qid']} [{row['system']}, cat {q.category}] {q.question} | "
            f"gold{said}: {q.gold} | answer: {row['answer']}"
        )


def _rejudge(args: argparse.Namespace) -> int:
    from benchmarks.locomo.judge import Judge
    from benchmarks.memory import resolve_lm

    lm, _ = resolve_lm(args.model, args.api_base, 64)
    rows = _read([args.sheet])
    questions = locomo_questions(locomo_data(args.data), {r["qid"] for r in rows})
    rows = rejudge(rows, Judge(lm), questions)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    print(json.dumps(agreement(rows), indent=2))
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="command", required=True)
    sheet = sub.add_parser("sheet", help="a grading sheet from judged records")
    sheet.add_argument("records", type=Path, nargs="+")
    sheet.add_argument("--out", type=Path, required=True)
    sheet.add_argument("--data", type=Path, default=None, help="show questions from this file")
    sheet.add_argument("--blind", action="store_true", help="leave the judge's verdicts out")
    agree = sub.add_parser("agreement", help="the judge against graded sheets")
    agree.add_argument("sheets", type=Path, nargs="+")
    agree.add_argument("--out", type=Path, default=None)
    agree.add_argument(
        "--verdicts",
        type=Path,
        nargs="*",
        default=[],
        help="judged records for blind sheets: one per sheet, in order, or one for all",
    )
    agree.add_argument(
        "--data", type=Path, default=None, help="the LOCOMO file: split out relative golds"
    )
    again = sub.add_parser("rejudge", help="grade a sheet again with today's judge")
    again.add_argument("sheet", type=Path)
    again.add_argument("--out", type=Path, required=True)
    again.add_argument("--model", default=None, help="any LiteLLM model (default APEXMEM_LM)")
    again.add_argument("--api-base", default=None)
    add_data_argument(again)
    args = p.parse_args(sys.argv[1:] if argv is None else argv)
    if args.command == "rejudge":
        return _rejudge(args)
    if args.command == "sheet":
        rows = sheet_rows(_read(args.records), blind=args.blind)
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        print(f"{len(rows)} answers to grade in {args.out}")
        if args.data is not None:
            _show(rows, locomo_questions(args.data, {r["qid"] for r in rows}))
        return 0
    rows = _joined(args.sheets, args.verdicts)
    golds = None
    if args.data is not None:
        golds = {
            q: v.gold for q, v in locomo_questions(args.data, {r["qid"] for r in rows}).items()
        }
    try:
        summary = agreement(rows, golds)
    except ValueError as exc:
        raise SystemExit(str(exc)) from exc
    print(json.dumps(summary, indent=2))
    if args.out is not None:
        args.out.write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
