"""Publishing a LOCOMO run: its headline summary in ``benchmarks/published/``.

Reads the run's summary (``results/locomo_<tag>.json``) and its judged answers (the
``.jsonl`` beside it) and writes, per system, the questions of categories 1-4: judge accuracy
and token F1 with bootstrap 95% intervals (questions resampled), the same per category,
answering tokens and p50 seconds, with the run's command, commit, model, and what was tuned
on and evaluated. README's table reads the judge accuracies from it. Beside it go the run's
answers (``locomo_<conv>.answers.jsonl``: qid, system, category, answer, verdict; no LOCOMO
question, gold answer or dialogue text, which stay in LOCOMO's file), so a published run can
be judged again (``benchmarks.locomo.rejudge``).

Usage (from the repo root):
    .venv/bin/python -m benchmarks.locomo.publish benchmarks/results/locomo_conv-43.json \\
        --tuned-on "..." --evaluated-on "..."
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchmarks.locomo.data import CATEGORY_NAMES, PAPER_CATEGORIES
from benchmarks.memory import read_jsonl
from benchmarks.published_results import PUBLISHED

RESAMPLES = 2000
SYSTEM_LABELS = {"agent": "agent", "rag": "RAG top-10 turns", "full_context": "full context"}


def bootstrap_interval(
    values: Sequence[float], resamples: int = RESAMPLES, seed: int = 0
) -> list[float]:
    """The 95% percentile-bootstrap interval of the mean of ``values``."""
    if not values:
        raise ValueError("no values to resample")
    rng = random.Random(seed)
    n = len(values)
    means = sorted(sum(rng.choices(values, k=n)) / n for _ in range(resamples))
    return [round(means[int(0.025 * resamples)], 4), round(means[int(0.975 * resamples) - 1], 4)]


def _scores(records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    correct = [1.0 if r.get("correct") is True else 0.0 for r in records]  # no verdict: wrong
    f1 = [float(r.get("f1") or 0.0) for r in records]
    return {
        "n": len(records),
        "judge_accuracy": round(sum(correct) / len(correct), 4),
        "f1": round(sum(f1) / len(f1), 4),
        "ci95": {"judge_accuracy": bootstrap_interval(correct), "f1": bootstrap_interval(f1)},
    }


def system_figures(records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """One system's figures over its records of categories 1-4."""
    asked = [r for r in records if r["category"] in PAPER_CATEGORIES]
    categories = {
        CATEGORY_NAMES[c]: _scores([r for r in asked if r["category"] == c])
        for c in PAPER_CATEGORIES
        if any(r["category"] == c for r in asked)
    }
    return {
        **_scores(asked),
        "categories": categories,
        "prompt_tokens_mean": round(statistics.mean(_tokens(r, "prompt_tokens") for r in asked)),
        "completion_tokens_mean": round(
            statistics.mean(_tokens(r, "completion_tokens") for r in asked)
        ),
        "p50_seconds": round(statistics.median(float(r["seconds"]) for r in asked), 2),
        "evidence_hit_rate": _rate([r.get("evidence_hit") for r in asked]),
    }


def paired_difference(
    records: Sequence[dict[str, Any]], system: str, baseline: str, category: int | None = None
) -> dict[str, Any] | None:
    """``system``'s judge accuracy minus ``baseline``'s on the questions both answered (of
    ``category``, else of categories 1-4), with a paired bootstrap 95% interval; None when
    they share no question."""
    wanted = (category,) if category is not None else PAPER_CATEGORIES
    by_system: dict[str, dict[str, float]] = {system: {}, baseline: {}}
    for r in records:
        if r["system"] in by_system and r["category"] in wanted:
            by_system[r["system"]][r["qid"]] = 1.0 if r.get("correct") is True else 0.0
    shared = sorted(set(by_system[system]) & set(by_system[baseline]))
    if not shared:
        return None
    gaps = [by_system[system][q] - by_system[baseline][q] for q in shared]
    return {"n": len(shared), "difference": round(sum(gaps) / len(gaps), 4),
            "ci95": bootstrap_interval(gaps)}  # fmt: skip


def _differences(records: Sequence[dict[str, Any]], systems: list[str]) -> dict[str, Any]:
    """The agent against each baseline, overall and on temporal questions."""
    if "agent" not in systems:
        return {}
    out: dict[str, Any] = {}
    for baseline in (s for s in systems if s != "agent"):
        for label, category in (("overall_1_4", None), ("temporal", 2)):
            gap = paired_difference(records, "agent", baseline, category)
            if gap is not None:
                out[f"agent_minus_{baseline}_{label}"] = gap
    return out


def _tokens(record: dict[str, Any], kind: str) -> int:
    return int((record.get("tokens") or {}).get(kind, 0))


def _rate(flags: list[bool | None]) -> float | None:
    known = [f for f in flags if f is not None]
    return round(sum(known) / len(known), 4) if known else None


def published(
    summary: dict[str, Any],
    records: Sequence[dict[str, Any]],
    tuned_on: str,
    evaluated_on: str,
    order: int,
) -> dict[str, Any]:
    """The published summary of a run (its ``summary`` file and its answer ``records``)."""
    conversation = summary["setup"]["conversation"]
    systems = [s for s in SYSTEM_LABELS if any(r["system"] == s for r in records)]
    figures = {s: system_figures([r for r in records if r["system"] == s]) for s in systems}
    return {
        "order": order,
        "name": f"LOCOMO {conversation} question answering, categories 1-4: "
        + ", ".join(SYSTEM_LABELS[s] for s in systems),
        "command": portable_command(summary["command"]),
        "commit": summary.get("commit", "unknown"),
        "date": summary["started_at"][:10],
        "model": f"{summary['model']} (judge: {summary.get('judge_model', summary['model'])})",
        "tuned_on": tuned_on,
        "evaluated_on": evaluated_on,
        "figures": {**figures, "differences": _differences(records, systems)},
        "ci95": {s: figures[s]["ci95"]["judge_accuracy"] for s in systems},
        "table": [table_row(conversation, s, figures[s]) for s in systems],
        "notes": "judge accuracy: the local judge's CORRECT share (no verdict counts as wrong); "
        "f1: LOCOMO's token F1; intervals: percentile bootstrap over questions",
    }


ANSWER_FIELDS = ("qid", "system", "category", "answer", "correct")


def answer_rows(records: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The run's answers as kept beside its summary: only ids, the answer and its verdict."""
    return [{k: r.get(k) for k in ANSWER_FIELDS} for r in records]


def answers_path(summary_path: Path) -> Path:
    """Where a published summary's answers go: ``locomo_x.json`` -> ``locomo_x.answers.jsonl``."""
    return summary_path.with_suffix(".answers.jsonl")


def portable_command(command: str) -> str:
    """The run's command with its LOCOMO file named as LOCOMO ships it (``locomo10.json``;
    a run may read a copy holding some of its conversations, which are the same)."""
    words = command.split()
    for i, word in enumerate(words):
        if word == "--data" and i + 1 < len(words):
            words[i + 1] = "locomo10.json"
        elif word.startswith("--data="):
            words[i] = "--data=locomo10.json"
    return " ".join(words)


def table_row(conversation: str, system: str, figures: dict[str, Any]) -> dict[str, str]:
    """README's row for one system: judge accuracy (its interval in the next column), then
    temporal accuracy, F1 and p50 seconds, as format strings over the file's figures."""
    temporal = (
        f"; temporal {{{system}[categories][temporal][judge_accuracy]:.1%}} "
        f"(n={{{system}[categories][temporal][n]}})"
        if "temporal" in figures["categories"]
        else ""
    )
    return {
        "result": f"LOCOMO {conversation}, {SYSTEM_LABELS[system]}, judge accuracy "
        f"(n={{{system}[n]}})",
        "figure": f"{{{system}[judge_accuracy]:.1%}}{temporal}; F1 {{{system}[f1]:.2f}}; "
        f"p50 {{{system}[p50_seconds]}} s",
        "ci95": system,
    }


def _args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    p.add_argument("summary", type=Path, help="the run's results/locomo_<tag>.json")
    p.add_argument("--tuned-on", required=True, help="what the agent was tuned on")
    p.add_argument("--evaluated-on", required=True, help="what this run evaluated")
    p.add_argument("--order", type=int, default=1, help="its place in README's table")
    p.add_argument("--out", type=Path, default=None, help="default published/locomo_<conv>.json")
    p.add_argument(
        "--records",
        type=Path,
        default=None,
        help="the judged answers (default: the .jsonl beside the summary; a rejudged copy "
        "from benchmarks.locomo.rejudge publishes today's judge's verdicts)",
    )
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = _args(argv)
    if not args.summary.is_file():
        print(f"error: no run summary at {args.summary}", file=sys.stderr)
        return 2
    summary = json.loads(args.summary.read_text(encoding="utf-8"))
    records_path = args.records or args.summary.with_suffix(".jsonl")
    records = read_jsonl(records_path) if records_path.is_file() else []
    if not records:
        print(f"error: no judged answers in {records_path}", file=sys.stderr)
        return 2
    result = published(summary, records, args.tuned_on, args.evaluated_on, args.order)
    out = args.out or PUBLISHED / f"locomo_{summary['setup']['conversation']}.json"
    answers = answers_path(out)
    result["answers"] = answers.name
    out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    rows = answer_rows(records)
    answers.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    print(f"published {out} and its {len(rows)} answers in {answers.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
