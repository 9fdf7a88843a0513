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

``--hand SHEET [SHEET ...]`` (one run or ``--pool``) adds the hand grades of filled blind
grading sheets (``benchmarks.locomo.judge_check sheet --blind``: no ``judge`` field), joined
to the records by system and qid with the same answer text; every published answer
(categories 1-4) needs exactly one boolean grade, and anything else is refused in one line.
Each system then also gets ``hand_accuracy`` and ``hand_ci95`` (the same bootstrap), per
category too, and ``judge_hand_agreement``; the paired differences by hand go under
``differences_by_hand``, the sheets under ``hand_grades``, and README's rows show the hand
figure beside the judge's.

Usage (from the repo root):
    .venv/bin/python -m benchmarks.locomo.publish benchmarks/results/locomo_conv-43.json \\
        --tuned-on "..." --evaluated-on "..."
    .venv/bin/python -m benchmarks.locomo.publish --pool benchmarks/results/locomo_conv-44.json \\
        benchmarks/results/locomo_conv-47.json --tuned-on "..." --evaluated-on "..." \\
        --out benchmarks/published/locomo_pooled_eval.json
    .venv/bin/python -m benchmarks.locomo.publish benchmarks/results/locomo_conv-43.json \\
        --tuned-on "..." --evaluated-on "..." --hand benchmarks/judge_check/conv-43.jsonl
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

from benchmarks.locomo.data import CATEGORY_NAMES, PAPER_CATEGORIES, portable_command
from benchmarks.memory import read_jsonl, repo_path
from benchmarks.published_results import PUBLISHED, answers_path

RESAMPLES = 2000
HAND_NOTE = (
    "hand grades: each answer graded by hand blind to the judge's verdict (the sheet held no "
    "verdict), by the one written grader's rule in benchmarks/locomo/judge_check.py's "
    "docstring; hand_accuracy is the share graded right, judge_hand_agreement the share where "
    "the judge's verdict (none counts as wrong) equals the hand grade"
)
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
    scores = {
        "n": len(records),
        "judge_accuracy": round(sum(correct) / len(correct), 4),
        "f1": round(sum(f1) / len(f1), 4),
        "ci95": {"judge_accuracy": bootstrap_interval(correct), "f1": bootstrap_interval(f1)},
    }
    if any("human" in r for r in records):  # hand grades joined (``hand_grades``)
        hand = [1.0 if r.get("human") is True else 0.0 for r in records]
        agree = [1.0 if j == h else 0.0 for j, h in zip(correct, hand, strict=True)]
        scores["hand_accuracy"] = round(sum(hand) / len(hand), 4)
        scores["hand_ci95"] = bootstrap_interval(hand)
        scores["judge_hand_agreement"] = round(sum(agree) / len(agree), 4)
    return scores


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
    records: Sequence[dict[str, Any]],
    system: str,
    baseline: str,
    category: int | None = None,
    grade: str = "correct",
) -> dict[str, Any] | None:
    """``system``'s judge accuracy minus ``baseline``'s on the questions both answered (of
    ``category``, else of categories 1-4), with a paired bootstrap 95% interval; None when
    they share no question. ``grade="human"``: the same by the hand grades."""
    wanted = (category,) if category is not None else PAPER_CATEGORIES
    by_system: dict[str, dict[str, float]] = {system: {}, baseline: {}}
    for r in records:
        if r["system"] in by_system and r["category"] in wanted:
            by_system[r["system"]][r["qid"]] = 1.0 if r.get(grade) is True else 0.0
    shared = sorted(set(by_system[system]) & set(by_system[baseline]))
    if not shared:
        return None
    gaps = [by_system[system][q] - by_system[baseline][q] for q in shared]
    return {"n": len(shared), "difference": round(sum(gaps) / len(gaps), 4),
            "ci95": bootstrap_interval(gaps)}  # fmt: skip


def _differences(
    records: Sequence[dict[str, Any]], systems: list[str], grade: str = "correct"
) -> dict[str, Any]:
    """Each agent system against each baseline, then ``agent`` against ``agent_fast``,
    overall and on temporal questions (by the judge, or ``grade="human"`` by hand)."""
    agents = [s for s in systems if s in AGENTS]
    pairs = [(a, b) for a in agents for b in systems if b not in AGENTS]
    if set(AGENTS) <= set(agents):
        pairs.append(("agent", "agent_fast"))
    out: dict[str, Any] = {}
    for system, baseline in pairs:
        for label, category in (("overall_1_4", None), ("temporal", 2)):
            gap = paired_difference(records, system, baseline, category, grade)
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
    figures: dict[str, Any] = {
        s: system_figures([r for r in records if r["system"] == s]) for s in systems
    }
    figures["differences"] = _differences(records, systems)
    if any("human" in r for r in records):
        figures["differences_by_hand"] = _differences(records, systems, "human")
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
        "figures": figures,
        "ci95": {s: figures[s]["ci95"]["judge_accuracy"] for s in systems},
        "table": [table_row(place, s, figures[s], labels[s]) for s in systems],
        "notes": "judge accuracy: the local judge's CORRECT share (no verdict counts as wrong); "
        "f1: LOCOMO's token F1; intervals: percentile bootstrap over questions",
    }


def hand_grades(
    sheets: Sequence[tuple[str, Sequence[dict[str, Any]]]], records: Sequence[dict[str, Any]]
) -> dict[tuple[str, str], bool] | str:
    """(system, qid) -> the hand grade of the filled ``sheets`` (each its name and rows), or
    the one-line refusal: a row must be graded true or false on a blind sheet (no ``judge``
    field), match one record by system and qid with the same answer text and be the only row
    for it, and every published record (categories 1-4) needs a row."""
    by_key = {(r["system"], r["qid"]): r for r in records}
    grades: dict[tuple[str, str], bool] = {}
    for name, rows in sheets:
        for no, row in enumerate(rows, start=1):
            key = (row.get("system"), row.get("qid"))
            where = f"{name} row {no} ({key[0]} {key[1]})"
            if not isinstance(row.get("human"), bool):
                return f"error: {where}: human is {row.get('human')!r}, not true or false"
            if "judge" in row:  # the note says the grades were made blind
                return f"error: {where}: holds the judge's verdict, so was not graded blind"
            if key not in by_key:
                return f"error: {where}: no published record of that system and qid"
            if row.get("answer") != by_key[key].get("answer"):
                return f"error: {where}: its answer differs from the record's"
            if key in grades:
                return f"error: {where}: graded twice"
            grades[key] = row["human"]
    ungraded = [k for k in by_key if k[0] in SYSTEM_LABELS and k not in grades
                and by_key[k]["category"] in PAPER_CATEGORIES]  # fmt: skip
    if ungraded:
        return (
            f"error: {len(ungraded)} published answers have no sheet row, the first "
            f"{ungraded[0][0]} {ungraded[0][1]}"
        )
    return grades


def with_hand(
    records: Sequence[dict[str, Any]], grades: dict[tuple[str, str], bool]
) -> list[dict[str, Any]]:
    """``records`` with their hand grade (``human``) where a sheet graded them."""
    return [
        {**r, "human": grades[(r["system"], r["qid"])]} if (r["system"], r["qid"]) in grades else r
        for r in records
    ]


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
    if "hand_accuracy" in figures:
        temporal = temporal and (
            f"; temporal judge {{{system}[categories][temporal][judge_accuracy]:.1%}}, by hand "
            f"{{{system}[categories][temporal][hand_accuracy]:.1%}} "
            f"(n={{{system}[categories][temporal][n]}})"
        )
        return {
            "result": f"LOCOMO {conversation}, {label or SYSTEM_LABELS[system]}, judge and "
            f"hand accuracy (n={{{system}[n]}})",
            "figure": f"judge {{{system}[judge_accuracy]:.1%}}, by hand "
            f"{{{system}[hand_accuracy]:.1%}}{temporal}; F1 {{{system}[f1]:.2f}}; "
            f"p50 {{{system}[p50_seconds]}} s",
            "ci95": system,
        }
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
    p.add_argument(
        "--hand",
        type=Path,
        nargs="+",
        default=None,
        metavar="SHEET",
        help="filled grading sheets (benchmarks.locomo.judge_check) grading every published "
        "answer by hand: adds hand accuracy, its agreement with the judge and gaps by hand",
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


def _read_sheets(paths: Sequence[Path]) -> list[tuple[str, list[dict[str, Any]]]] | str:
    sheets = []
    for path in paths:
        if not path.is_file():
            return f"error: no sheet at {path}"
        try:
            sheets.append((repo_path(path), read_jsonl(path)))
        except ValueError as exc:
            return f"error: {path} is not JSON Lines ({exc})"
    return sheets


def _graded(
    args: argparse.Namespace, records: Sequence[dict[str, Any]]
) -> dict[tuple[str, str], bool] | str | None:
    """``--hand``'s grades of ``records``, the one-line refusal, or None without --hand."""
    if args.hand is None:
        return None
    sheets = _read_sheets(args.hand)
    return sheets if isinstance(sheets, str) else hand_grades(sheets, records)


def _note_hand(result: dict[str, Any], args: argparse.Namespace) -> None:
    result["hand_grades"] = {"sheets": [repo_path(p) for p in args.hand], "note": HAND_NOTE}
    result["notes"] += "; " + HAND_NOTE


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
    grades = _graded(args, [r for _, rows in runs for r in rows])
    if isinstance(grades, str):
        return grades
    if grades is not None:
        runs = [(summary, with_hand(rows, grades)) for summary, rows in runs]
    result = pooled(runs, args.tuned_on, args.evaluated_on, args.order)
    hand = [] if args.hand is None else ["--hand", *(repo_path(p) for p in args.hand)]
    pool = [repo_path(p) for p in args.pool]
    result["pooled_by"] = shlex.join(
        [".venv/bin/python", "-m", "benchmarks.locomo.publish", "--pool", *pool, *hand]
    )
    if grades is not None:
        _note_hand(result, args)
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
    grades = _graded(args, records)
    if isinstance(grades, str):
        return grades
    if grades is not None:
        records = with_hand(records, grades)
    result = published(summary, records, args.tuned_on, args.evaluated_on, args.order)
    if grades is not None:
        _note_hand(result, args)
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
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    rows = answer_rows(records)
    answers.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    print(f"published {out} and its {len(rows)} answers in {answers.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
