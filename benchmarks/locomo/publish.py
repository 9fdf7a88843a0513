"""Publishing a LOCOMO run: its headline summary in ``benchmarks/published/``.

Reads the run's summary (``results/locomo_<tag>.json``) and its judged answers (the
``.jsonl`` beside it) and writes, per system, the questions of categories 1-4: judge accuracy
and token F1 with bootstrap 95% intervals (questions resampled), the same per category,
answering tokens and p50 seconds, with the run's command, commit, model, and what was tuned
on and evaluated. README's table reads the judge accuracies from it. Beside it go the run's
answers (``locomo_<conv>.answers.jsonl``: qid, system, category, answer, verdict; no LOCOMO
question, gold answer or dialogue text, which stay in LOCOMO's file), so a published run can
be judged again (``benchmarks.locomo.rejudge``).

A run with both agent systems (``agent``, in the run's --mode, and ``agent_fast``, the same
agent always in fast mode) publishes both, ``agent`` then labelled with its mode ("agent, auto
mode"), and the paired differences of each against RAG and full context (and ``agent`` minus
``agent_fast``).

``--pool`` publishes several runs (one conversation each, made at the same commit with the
same systems, model and agent options; anything else is refused in one line) as one file:
the same figures computed in the same way over the union of their records (questions of
different conversations have different qids, so the paired differences pair within a
conversation), the runs' commands, commits and dates under ``sources``, and beside it one
answers file holding all the runs' answers (rejudge reads it as it reads one run's).

Usage (from the repo root):
    .venv/bin/python -m benchmarks.locomo.publish benchmarks/results/locomo_conv-43.json \\
        --tuned-on "..." --evaluated-on "..."
    .venv/bin/python -m benchmarks.locomo.publish --pool benchmarks/results/locomo_conv-44.json \\
        benchmarks/results/locomo_conv-47.json --tuned-on "..." --evaluated-on "..." \\
        --out benchmarks/published/locomo_pooled_eval.json
"""

from __future__ import annotations

import argparse
import json
import random
import shlex
import statistics
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchmarks.locomo.data import CATEGORY_NAMES, PAPER_CATEGORIES
from benchmarks.memory import read_jsonl
from benchmarks.published_results import PUBLISHED

RESAMPLES = 2000
SYSTEM_LABELS = {
    "agent": "agent",
    "agent_fast": "agent, fast mode",
    "rag": "RAG top-10 turns",
    "full_context": "full context",
}  # also the order systems are published in
AGENTS = ("agent", "agent_fast")
# what runs pooled into one file must share (beyond commit and systems): setup keys
POOLED_ALIKE = (
    "mode", "max_iters", "prefetch_entities", "prefetch_turns", "context_style",
    "context_order", "answer_program", "categories", "store",
)  # fmt: skip


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
    """Each agent system against each baseline, then ``agent`` against ``agent_fast``,
    overall and on temporal questions."""
    agents = [s for s in systems if s in AGENTS]
    pairs = [(a, b) for a in agents for b in systems if b not in AGENTS]
    if set(AGENTS) <= set(agents):
        pairs.append(("agent", "agent_fast"))
    out: dict[str, Any] = {}
    for system, baseline in pairs:
        for label, category in (("overall_1_4", None), ("temporal", 2)):
            gap = paired_difference(records, system, baseline, category)
            if gap is not None:
                out[f"{system}_minus_{baseline}_{label}"] = gap
    return out


def system_labels(systems: Sequence[str], mode: str | None) -> dict[str, str]:
    """Each system's published label; beside ``agent_fast``, ``agent`` names the mode it ran
    in (``mode``, the run's --mode), e.g. "agent, auto mode"."""
    labels = {s: SYSTEM_LABELS[s] for s in systems}
    if set(AGENTS) <= set(labels):
        labels["agent"] = f"agent, {mode or 'auto'} mode"
    return labels


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
    return _publication(
        [summary], records, tuned_on, evaluated_on, order, summary["setup"]["conversation"]
    )


def pooled(
    runs: Sequence[tuple[dict[str, Any], Sequence[dict[str, Any]]]],
    tuned_on: str,
    evaluated_on: str,
    order: int,
) -> dict[str, Any]:
    """One published summary of several runs (each its ``summary`` and answer ``records``),
    its figures computed over the union of their records as ``published`` computes one run's,
    the runs themselves listed under ``sources``. Check ``pool_refusal`` first."""
    summaries = [summary for summary, _ in runs]
    records = [r for _, rows in runs for r in rows]
    conversations = [s["setup"]["conversation"] for s in summaries]
    result = _publication(
        summaries, records, tuned_on, evaluated_on, order, " + ".join(conversations) + " pooled"
    )
    result["notes"] += (
        f"; pooled: the records of {len(runs)} runs ({', '.join(conversations)}) taken "
        "together, each question once per system, intervals resampling questions of all of them"
    )
    result["sources"] = [
        {"conversation": s["setup"]["conversation"], "command": portable_command(s["command"]),
         "commit": s.get("commit", "unknown"), "date": s["started_at"][:10],
         "questions_1_4": len({r["qid"] for r in rows if r["category"] in PAPER_CATEGORIES})}
        for s, rows in runs
    ]  # fmt: skip
    return result


def _systems(records: Sequence[dict[str, Any]]) -> list[str]:
    """The published systems that answered in ``records``, in the published order."""
    return [s for s in SYSTEM_LABELS if any(r["system"] == s for r in records)]


def _publication(
    summaries: Sequence[dict[str, Any]],
    records: Sequence[dict[str, Any]],
    tuned_on: str,
    evaluated_on: str,
    order: int,
    place: str,
) -> dict[str, Any]:
    """What ``published`` and ``pooled`` write: ``records``' figures, and the provenance of
    the runs behind them (one command each; the first run's commit, model and mode, which
    ``pool_refusal`` has made the same for all; the latest run's date)."""
    first = summaries[0]
    systems = _systems(records)
    labels = system_labels(systems, first.get("setup", {}).get("mode"))
    figures = {s: system_figures([r for r in records if r["system"] == s]) for s in systems}
    return {
        "order": order,
        "name": f"LOCOMO {place} question answering, categories 1-4: "
        + ("; " if any("," in label for label in labels.values()) else ", ").join(labels.values()),
        "command": " ; ".join(portable_command(s["command"]) for s in summaries),
        "commit": first.get("commit", "unknown"),
        "date": max(s["started_at"][:10] for s in summaries),
        "model": f"{first['model']} (judge: {first.get('judge_model', first['model'])})",
        "tuned_on": tuned_on,
        "evaluated_on": evaluated_on,
        "figures": {**figures, "differences": _differences(records, systems)},
        "ci95": {s: figures[s]["ci95"]["judge_accuracy"] for s in systems},
        "table": [table_row(place, s, figures[s], labels[s]) for s in systems],
        "notes": "judge accuracy: the local judge's CORRECT share (no verdict counts as wrong); "
        "f1: LOCOMO's token F1; intervals: percentile bootstrap over questions",
    }


def pool_refusal(runs: Sequence[tuple[dict[str, Any], Sequence[dict[str, Any]]]]) -> str | None:
    """Why ``runs`` cannot be published as one (a single line), or None: they must be two or
    more, one conversation each, made at one commit with the same systems, model, judge and
    agent options (``POOLED_ALIKE``)."""
    if len(runs) < 2:
        return "error: --pool needs two or more runs"
    conversations = [s["setup"]["conversation"] for s, _ in runs]
    twice = sorted({c for c in conversations if conversations.count(c) > 1})
    if twice:
        return f"error: cannot pool {', '.join(twice)} twice (its questions would count twice)"
    alike: list[tuple[str, list[str]]] = [
        ("commits", [str(s.get("commit", "unknown")) for s, _ in runs]),
        ("systems", [",".join(_systems(rows)) for _, rows in runs]),
        ("models", [str(s.get("model")) for s, _ in runs]),
        ("judge models", [str(s.get("judge_model", s.get("model"))) for s, _ in runs]),
        *((key, [json.dumps(s["setup"].get(key)) for s, _ in runs]) for key in POOLED_ALIKE),
    ]
    for what, values in alike:
        if len(set(values)) > 1:
            each = "; ".join(f"{c}: {v}" for c, v in zip(conversations, values, strict=True))
            return f"error: cannot pool runs with different {what} ({each})"
    return None


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


def table_row(
    conversation: str, system: str, figures: dict[str, Any], label: str | None = None
) -> dict[str, str]:
    """README's row for one system (``label``, by default its ``SYSTEM_LABELS`` one): judge
    accuracy (its interval in the next column), then temporal accuracy, F1 and p50 seconds,
    as format strings over the file's figures."""
    temporal = (
        f"; temporal {{{system}[categories][temporal][judge_accuracy]:.1%}} "
        f"(n={{{system}[categories][temporal][n]}})"
        if "temporal" in figures["categories"]
        else ""
    )
    return {
        "result": f"LOCOMO {conversation}, {label or SYSTEM_LABELS[system]}, judge accuracy "
        f"(n={{{system}[n]}})",
        "figure": f"{{{system}[judge_accuracy]:.1%}}{temporal}; F1 {{{system}[f1]:.2f}}; "
        f"p50 {{{system}[p50_seconds]}} s",
        "ci95": system,
    }


def _args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    p.add_argument("summary", type=Path, nargs="?", help="the run's results/locomo_<tag>.json")
    p.add_argument(
        "--pool",
        type=Path,
        nargs="+",
        default=None,
        metavar="SUMMARY",
        help="publish these runs' summaries (each with its .jsonl beside it) as one pooled file",
    )
    p.add_argument("--tuned-on", required=True, help="what the agent was tuned on")
    p.add_argument("--evaluated-on", required=True, help="what this run evaluated")
    p.add_argument("--order", type=int, default=1, help="its place in README's table")
    p.add_argument(
        "--out",
        type=Path,
        default=None,
        help="default published/locomo_<conv>.json (pooled: locomo_pooled_<conv>_<conv>.json)",
    )
    p.add_argument(
        "--records",
        type=Path,
        default=None,
        help="the judged answers (default: the .jsonl beside the summary; a rejudged copy "
        "from benchmarks.locomo.rejudge publishes today's judge's verdicts)",
    )
    return p.parse_args(argv)


def _load_run(
    summary_path: Path, records_path: Path | None
) -> tuple[dict[str, Any], list[dict[str, Any]]] | str:
    """A run's summary and judged answers (``records_path``, else the .jsonl beside the
    summary), or the one-line error saying which is missing."""
    if not summary_path.is_file():
        return f"error: no run summary at {summary_path}"
    summary = json.loads(summary_path.read_text(encoding="utf-8"))
    records_path = records_path or summary_path.with_suffix(".jsonl")
    records = read_jsonl(records_path) if records_path.is_file() else []
    if not records:
        return f"error: no judged answers in {records_path}"
    return summary, records


Publication = tuple[dict[str, Any], list[dict[str, Any]], Path]


def _pool(args: argparse.Namespace) -> Publication | str:
    """The pooled publication of ``--pool``'s runs, its records and where it goes, or the
    one-line refusal."""
    if args.summary is not None or args.records is not None:
        return "error: --pool reads each run's summary and the .jsonl beside it; give no other"
    runs = []
    for path in args.pool:
        run = _load_run(path, None)
        if isinstance(run, str):
            return run
        runs.append(run)
    refusal = pool_refusal(runs)
    if refusal is not None:
        return refusal
    result = pooled(runs, args.tuned_on, args.evaluated_on, args.order)
    result["pooled_by"] = shlex.join(
        [".venv/bin/python", "-m", "benchmarks.locomo.publish", "--pool", *map(str, args.pool)]
    )
    names = "_".join(source["conversation"] for source in result["sources"])
    out = args.out or PUBLISHED / f"locomo_pooled_{names}.json"
    return result, [r for _, rows in runs for r in rows], out


def _single(args: argparse.Namespace) -> Publication | str:
    """The publication of one run, its records and where it goes, or the one-line error."""
    if args.summary is None:
        return "error: give a run's summary, or --pool and two or more"
    run = _load_run(args.summary, args.records)
    if isinstance(run, str):
        return run
    summary, records = run
    result = published(summary, records, args.tuned_on, args.evaluated_on, args.order)
    out = args.out or PUBLISHED / f"locomo_{summary['setup']['conversation']}.json"
    return result, records, out


def main(argv: list[str] | None = None) -> int:
    args = _args(argv)
    made = _pool(args) if args.pool is not None else _single(args)
    if isinstance(made, str):
        print(made, file=sys.stderr)
        return 2
    result, records, out = made
    answers = answers_path(out)
    result["answers"] = answers.name
    out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    rows = answer_rows(records)
    answers.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    print(f"published {out} and its {len(rows)} answers in {answers.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
