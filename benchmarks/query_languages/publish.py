"""Publish a finished SQL-vs-Cypher run: one file per model and question set in
``benchmarks/published/``, its kept answers and its page.

    python -m benchmarks.query_languages.publish --summary S.json --results R.jsonl [--out O]
    python -m benchmarks.query_languages.publish --report-only --out O

Reads the run's summary (``run``'s ``--out``: the model, the question set, the commands and
commits that asked the questions) and its per-question records, and writes three files:

* ``O`` (default ``query_languages.json``, ``query_languages_qwen0.5b.json`` for the small
  model, ``query_languages_real_conv30.json`` for a real memory of scope conv-30): the
  provenance, per row (an arm with its demos, and again without them when the run has
  zero-shot records) answer accuracy and query success with their intervals, accuracy per
  kind, the error taxonomy, tokens and latencies, whether those were measured one arm at a
  time, the pairwise McNemar p-values, the language comparisons and the verdict;
* ``O.answers.jsonl``: the kept answers (``kept``), from which every figure of ``O`` is
  computed, so ``--report-only`` makes ``O`` and its page again without the model;
* ``O.md``: the page (``page``).

The verdict compares the arms that differ only in the language:

* ``agent on Neo4j``: neo4j-sql against neo4j-cypher (one store, one loop, SQL through the
  shim);
* ``agent, native store``: sqlite-sql against neo4j-cypher;
* ``one-shot``: text2sql against text2cypher;

each over all questions and per question kind, with McNemar's exact test on the same
questions, for the compiled rows and again (names ending ``, zero-shot``) for the zero-shot
rows. Per program, the overall tests are one family and the per-kind tests another, each
Holm-Bonferroni adjusted; a language is named better only where its adjusted p < 0.05,
otherwise the verdict says the difference is not significant.
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
import statistics
import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from itertools import combinations
from pathlib import Path
from typing import Any, Final

from apexmem_neo.settings import LOCAL_LM, SMALL_LM
from benchmarks.memory import head_commit
from benchmarks.published_results import PUBLISHED, answers_path, wilson
from benchmarks.query_languages.kept import kept_record, read_kept, write_kept
from benchmarks.query_languages.metrics import PROGRAMS, QuestionRecord
from benchmarks.query_languages.page import page, report_markdown, report_plot
from benchmarks.query_languages.stats import (
    arm_figures,
    mcnemar_exact,
    mcnemar_pairs,
    program_rows,
    row_name,
)

__all__ = ["main", "report_markdown", "report_plot"]

ALPHA: Final = 0.05
LANGUAGE_PAIRS: Final = {
    "agent on Neo4j": ("neo4j-sql", "neo4j-cypher"),
    "agent, native store": ("sqlite-sql", "neo4j-cypher"),
    "one-shot": ("text2sql", "text2cypher"),
}
"""Comparison -> (its SQL arm, its Cypher arm): arms that differ in the query language."""
ARM_LABELS: Final = {
    "sqlite-sql": "agent, SQL on SQLite",
    "neo4j-sql": "agent, SQL on Neo4j (shim)",
    "neo4j-cypher": "agent, Cypher on Neo4j",
    "text2sql": "one-shot text-to-SQL (SQLite)",
    "text2cypher": "one-shot Text2Cypher (neo4j-graphrag)",
}
ORDER: Final = 3
UNTIMED: Final = (
    "not known: some records hold no start time (asked before the runner kept one), so the "
    "latencies may not compare"
)
OUT: Final = PUBLISHED / "query_languages.json"
SHORT_NAMES: Final = {SMALL_LM: "qwen0.5b"}
"""A model's part of its published file's name (other models: the end of their id)."""
META: Final = (
    "order", "name", "title", "command", "commit", "date", "model", "model_id", "lm_api_base",
    "tuned_on", "evaluated_on", "split_sizes", "real_memory", "skip", "questions", "few_shot",
    "answers", "intervals",
)  # fmt: skip
"""The published file's provenance, in order; every other key is computed from the answers."""
INTERVALS: Final = (
    "ci95: Wilson score, as in every published file; accuracy_ci95_pct and "
    "query_success_ci95_pct: percentile bootstrap over questions, as the study reports"
)


# ---- the language comparisons and the verdict ----


def compare(sql: Sequence[QuestionRecord], cypher: Sequence[QuestionRecord]) -> dict[str, Any]:
    """Accuracy of both arms on the questions both answered, and McNemar's exact p."""
    right_sql = {r.qid: r.correct for r in sql}
    right_cypher = {r.qid: r.correct for r in cypher}
    both = sorted(right_sql.keys() & right_cypher.keys())
    only_sql = sum(right_sql[q] and not right_cypher[q] for q in both)
    only_cypher = sum(right_cypher[q] and not right_sql[q] for q in both)
    return {
        "n": len(both),
        "sql_correct": sum(right_sql[q] for q in both),
        "cypher_correct": sum(right_cypher[q] for q in both),
        "only_sql_correct": only_sql,
        "only_cypher_correct": only_cypher,
        "p_value": round(mcnemar_exact(only_sql, only_cypher), 4),
    }


def better(only_sql: int, only_cypher: int, p: float) -> str:
    if p >= ALPHA or only_sql == only_cypher:
        return "neither"
    return "SQL" if only_sql > only_cypher else "Cypher"


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm-Bonferroni adjusted p-values, in the order given: the i-th smallest of m is
    multiplied by m - i + 1, and the adjusted values are made non-decreasing in that order."""
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    adjusted = [1.0] * len(p_values)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(p_values) - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted


def settle(tests: Sequence[dict[str, Any]]) -> None:
    """Give each test of one family its Holm-adjusted p and its ``better`` (at ALPHA)."""
    for test, p in zip(tests, holm([t["p_value"] for t in tests]), strict=True):
        test["p_holm"] = round(p, 4)
        test["better"] = better(test["only_sql_correct"], test["only_cypher_correct"], p)


def language_tests(records: Sequence[QuestionRecord], program: str) -> dict[str, Any]:
    """The comparisons of one program's records, over all questions and per kind."""
    out: dict[str, Any] = {}
    kinds = sorted({r.kind for r in records})
    for name, (sql_arm, cypher_arm) in LANGUAGE_PAIRS.items():
        sql = [r for r in records if r.arm == sql_arm]
        cypher = [r for r in records if r.arm == cypher_arm]
        if not sql or not cypher:
            continue
        out[name if program == "compiled" else f"{name}, {program}"] = {
            "program": program, "sql_arm": sql_arm, "cypher_arm": cypher_arm,
            "all": compare(sql, cypher),
            "by_kind": {k: compare([r for r in sql if r.kind == k],
                                   [r for r in cypher if r.kind == k]) for k in kinds},
        }  # fmt: skip
    return out


def verdicts(records: Sequence[QuestionRecord]) -> dict[str, Any]:
    """Per program and language comparison: over all questions and per kind. Per program the
    overall tests form one family and the per-kind tests another; a language is better where
    its Holm-adjusted p is below ALPHA."""
    out: dict[str, Any] = {}
    for program in PROGRAMS:
        family = language_tests([r for r in records if r.program == program], program)
        settle([c["all"] for c in family.values()])
        settle([k for c in family.values() for k in c["by_kind"].values()])
        out.update(family)
    return out


def verdict_line(comparisons: dict[str, Any]) -> str:
    """One sentence: which language did better where, or that no difference was significant."""
    parts = []
    for name, comp in comparisons.items():
        overall = comp["all"]
        won = [k for k, c in comp["by_kind"].items() if c["better"] != "neither"]
        kinds = "; ".join(f"{k}: {comp['by_kind'][k]['better']}" for k in won)
        better_one = overall["better"]
        head = f"{better_one} better" if better_one != "neither" else "no significant difference"
        parts.append(f"{name}: {head} (Holm p={overall['p_holm']})"
                     + (f", by kind {kinds}" if won else ""))  # fmt: skip
    return ". ".join(parts) + "."


# ---- the rows ----


def row_key(arm: str, program: str) -> str:
    """A row's key in ``figures``: ``neo4j_cypher``, ``neo4j_cypher_zero_shot``."""
    tail = "" if program == "compiled" else "_" + program
    return (arm + tail).replace("-", "_")


def row_label(arm: str, program: str) -> str:
    label = ARM_LABELS.get(arm, arm)
    return label if program == "compiled" else f"{label}, {program}"


def row_entry(records: Sequence[QuestionRecord]) -> dict[str, Any]:
    """One row's published figures (its records share an arm and a program)."""
    arm, program = records[0].arm, records[0].program
    f = arm_figures(records)
    correct = sum(r.correct for r in records)
    return {
        "label": row_label(arm, program), "arm": arm, "program": program,
        "n": len(records), "successes": correct, "rate": round(correct / len(records), 3),
        "accuracy_ci95_pct": f["accuracy_ci95"],
        "query_success_pct": f["query_success_pct"],
        "query_success_ci95_pct": f["query_success_ci95"],
        "first_try_success_pct": f["first_try_success_pct"], "no_query_pct": f["no_query_pct"],
        "recovery_pct": f["recovery_pct"],
        "accuracy_by_kind": {k: {"pct": v["accuracy_pct"], "ci95_pct": v["accuracy_ci95"],
                                 "n": v["questions"], "query_success_pct": v["query_success_pct"]}
                             for k, v in f["by_kind"].items()},
        "failure_classes": f["failure_classes"], "error_classes": f["error_classes"],
        "tokens_mean": f["tokens_mean"], "tool_calls_mean": f["tool_calls_mean"],
        "latency_p50_s": f["latency_p50_s"], "latency_p95_s": f["latency_p95_s"],
    }  # fmt: skip


def rows_of(records: Sequence[QuestionRecord]) -> dict[str, list[QuestionRecord]]:
    """Row key -> records: the arms in ``ARM_LABELS`` order, compiled then zero-shot, each
    row that has records."""
    by_name = program_rows(list(ARM_LABELS), records)
    return {row_key(rs[0].arm, rs[0].program): rs for rs in by_name.values() if rs}


def wilson_ci(figures: dict[str, Any]) -> list[float]:
    return [round(x, 3) for x in wilson(figures["successes"], figures["n"])]


def table(title: str, figures: dict[str, Any]) -> list[dict[str, str]]:
    """README's rows: per arm its accuracy with demos (and without, when run), the verdict."""
    rows = []
    for key, f in figures.items():
        if not isinstance(f, dict) or f["program"] != "compiled":
            continue
        zero = row_key(f["arm"], "zero-shot")
        also = f"; zero-shot {{{zero}[rate]:.1%}}" if zero in figures else ""
        rows.append({"result": f"{title}, {f['label']}: answer accuracy (n={{{key}[n]}})",
                     "figure": f"{{{key}[rate]:.1%}}{also}", "ci95": key})  # fmt: skip
    rows.append({"result": f"{title} verdict: {{verdict}}", "figure": "-"})
    return rows


# ---- whether the latencies compare ----


def spans_overlap(a: Sequence[QuestionRecord], b: Sequence[QuestionRecord]) -> bool:
    """True when the time from the first question asked to the last answer of two rows
    overlap."""
    start_a, end_a = min(r.started_at for r in a), max(r.started_at + r.seconds for r in a)
    start_b, end_b = min(r.started_at for r in b), max(r.started_at + r.seconds for r in b)
    return start_a < end_b and start_b < end_a


def timing(rows: dict[str, list[QuestionRecord]]) -> dict[str, Any]:
    """Whether each row's questions were asked while no other row's were, and the machine's
    load when they were asked, from the records' start times."""
    records = [r for rs in rows.values() for r in rs]
    if not records or any(r.started_at <= 0 for r in records):
        return {"one_arm_at_a_time": None, "note": UNTIMED}
    overlapping = [[a, b] for a, b in combinations(rows, 2) if spans_overlap(rows[a], rows[b])]
    loads = [r.load_at_start for r in records if r.load_at_start is not None]
    load = (f"; one-minute load average when a question was asked: median "
            f"{statistics.median(loads):.2f}, max {max(loads):.2f}" if loads else "")  # fmt: skip
    said = ("measured one arm at a time (no two rows' questions were asked at the same time)"
            if not overlapping else "NOT measured one arm at a time: rows "
            + ", ".join(f"{a} and {b}" for a, b in overlapping)
            + " were asked at the same time, so their latencies do not compare")  # fmt: skip
    return {"one_arm_at_a_time": not overlapping, "overlapping_rows": overlapping,
            "note": said + load}  # fmt: skip


# ---- the file ----


def assemble(meta: dict[str, Any], kept: Sequence[QuestionRecord]) -> dict[str, Any]:
    """The published file: ``meta``'s provenance, then every figure computed from ``kept``."""
    rows = rows_of(kept)
    figures: dict[str, Any] = {key: row_entry(rs) for key, rs in rows.items()}
    comparisons = verdicts(kept)
    figures["verdict"] = verdict_line(comparisons)
    return {
        **{k: meta[k] for k in META if k in meta},
        "figures": figures,
        "ci95": {key: wilson_ci(figures[key]) for key in rows},
        "comparisons": comparisons,
        "mcnemar": mcnemar_pairs({row_name(rs[0].arm, rs[0].program): rs for rs in rows.values()}),
        "timing": timing(rows),
        "table": table(meta["title"], figures),
    }


def short_name(model: str) -> str:
    return SHORT_NAMES.get(model) or re.sub(r"[^a-z0-9.]+", "-", model.split("/")[-1].lower())


def default_out(summary: dict[str, Any]) -> Path:
    """``query_languages[_<model>][_real_<scope>].json``: the default model's name is left out,
    as the generated question set's."""
    [model] = summary["models"]
    stem = "query_languages" + ("" if model == LOCAL_LM else "_" + short_name(model))
    if "real_memory" in summary:
        stem += "_real_" + re.sub(r"[^a-z0-9]+", "", summary["real_memory"]["scope"].lower())
    return PUBLISHED / f"{stem}.json"


def title(summary: dict[str, Any]) -> str:
    """ "SQL vs Cypher", with the model when it is not the default one and the real memory."""
    [model] = summary["models"]
    parts = [] if model == LOCAL_LM else [summary["by_model"][model]["model_note"].split(",")[0]]
    if "real_memory" in summary:
        parts.append(f"real memory {summary['real_memory']['scope']}")
    return "SQL vs Cypher" + (f" ({', '.join(parts)})" if parts else "")


def asked(programs: Sequence[str]) -> str:
    if list(programs) == list(PROGRAMS):
        return "each asked once per arm with the arm's demos and once without"
    return f"each asked once per arm ({', '.join(programs)})"


def question_set(summary: dict[str, Any], programs: Sequence[str]) -> dict[str, str]:
    """``tuned_on`` and ``evaluated_on`` of the generated set or of a real memory."""
    demos = summary["few_shot"].get("demos_per_arm")
    n, skip = summary["questions"], summary.get("skip", 0)
    if "real_memory" in summary:
        src = summary["real_memory"]
        return {
            "tuned_on": f"nothing of this memory: each arm's {demos} demos come from "
            f"{summary['few_shot'].get('demo_source', 'the generated train split')}",
            "evaluated_on": f"{n} questions over the graph that construction built from the "
            f"conversation of scope {src['scope']!r} (store {src['store']}, sha256 "
            f"{src['store_sha256']}; {src['entities']} entities, {src['facts']} facts; drawn "
            f"with seed {src['seed']}), {asked(programs)}",
        }  # fmt: skip
    split = summary["split_sizes"]
    left_out = f"; the first {skip}, which the signal runs saw, left out" if skip else ""
    return {
        "tuned_on": f"the train split ({split['train']['questions']} questions about other "
        f"entities): each arm's {demos} few-shot demos and the schema wording; the query mode "
        f"was developed on a signal run of the first 12 test questions",
        "evaluated_on": f"the {summary['split']} split: {n} of its "
        f"{split[summary['split']]['questions']} questions (gold seeds "
        f"{summary['gold_seeds']}{left_out}), {asked(programs)}",
    }  # fmt: skip


def provenance(
    summary: dict[str, Any], kept: Sequence[QuestionRecord], command: str, out: Path
) -> dict[str, Any]:
    """The published file's provenance (``META``) from the run's summary."""
    [model] = summary["models"]
    part = summary["by_model"][model]
    programs = [p for p in PROGRAMS if any(r.program == p for r in kept)]
    name = title(summary)
    runs = summary.get("runs", [])
    return {
        "order": ORDER,
        "name": f"{name}: answer accuracy of five query arms on held-out questions",
        "title": name, "command": command,
        "commit": ", ".join(dict.fromkeys(r["commit"] for r in runs)) or head_commit(),
        "date": datetime.now(UTC).date().isoformat(),
        "model": f"{model} ({part['model_note']})", "model_id": model,
        "lm_api_base": part.get("lm_api_base"), **question_set(summary, programs),
        **{k: summary[k] for k in ("split_sizes", "real_memory") if k in summary},
        "skip": summary.get("skip", 0), "questions": summary["questions"],
        "few_shot": {**summary["few_shot"], "program": ", ".join(programs)},
        "answers": answers_path(out).name, "intervals": INTERVALS,
    }  # fmt: skip


def write_published(
    out: Path, meta: dict[str, Any], kept: Sequence[QuestionRecord]
) -> dict[str, Any]:
    """``out``, its kept answers and its page; the file as written."""
    data = assemble(meta, kept)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    write_kept(answers_path(out), kept)
    out.with_suffix(".md").write_text(page(data), encoding="utf-8")
    return data


def run_records(summary: dict[str, Any], results: Path) -> list[QuestionRecord]:
    """The run's records of the summary's model and questions, both programs."""
    [model] = summary["models"]
    wanted = set(summary["qids"])
    lines = results.read_text(encoding="utf-8").splitlines()
    records = [QuestionRecord.model_validate_json(line) for line in lines if line.strip()]
    mine = [r for r in records if r.model == model and r.qid in wanted and r.arm in ARM_LABELS]
    if not mine:
        raise SystemExit(f"error: {results} holds no answer of {model} to the summary's questions")
    return mine


def unfinished(records: Sequence[QuestionRecord], questions: int) -> list[str]:
    """The rows that answered fewer than ``questions`` questions (a run stopped early)."""
    rows = rows_of(records)
    return [f"{row_name(rs[0].arm, rs[0].program)} ({len({r.qid for r in rs})} of {questions})"
            for rs in rows.values() if len({r.qid for r in rs}) < questions]  # fmt: skip


def publish(
    summary: dict[str, Any], records: Sequence[QuestionRecord], command: str, out: Path
) -> dict[str, Any]:
    """Keep the records (without conversation text for a real memory) and publish them."""
    kept = [kept_record(r, "real_memory" in summary) for r in records]
    return write_published(out, provenance(summary, kept, command, out), kept)


def remake(out: Path) -> dict[str, Any]:
    """``out`` and its page made again from its kept answers and its own provenance."""
    answers = answers_path(out)
    if not out.is_file() or not answers.is_file():
        raise SystemExit(f"error: --report-only needs {out} and its kept answers {answers}")
    meta = json.loads(out.read_text(encoding="utf-8"))
    return write_published(out, meta, read_kept(answers))


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--summary", type=Path, help="the run's --out JSON")
    p.add_argument("--results", type=Path, help="the run's per-question JSONL")
    p.add_argument(
        "--command", default=None,
        help="the commands that produced the run (default: the summary's runs)",
    )  # fmt: skip
    p.add_argument(
        "--out", type=Path, default=None,
        help="the published file (default: named after the model and question set)",
    )  # fmt: skip
    p.add_argument("--partial", action="store_true", help="publish although rows are unfinished")
    p.add_argument("--report-only", action="store_true",
                   help="make --out and its page again from its kept answers")  # fmt: skip
    args = p.parse_args(argv)
    if args.report_only and args.out is None:
        p.error("--report-only needs --out (the published file)")
    if not args.report_only and (args.summary is None or args.results is None):
        p.error("--summary and --results are needed (or --report-only --out FILE)")
    return args


def commands(summary: dict[str, Any], argv: Sequence[str]) -> str:
    """The run's commands, then this one."""
    runs = [r["command"] for r in summary.get("runs", [])] or [summary["command"]]
    this = "python -m benchmarks.query_languages.publish " + shlex.join(argv)
    return "; then ".join([*runs, this])


def load_summary(path: Path) -> dict[str, Any]:
    """The run's summary; a file is published per model, so it must hold one."""
    summary: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    if len(summary["models"]) != 1:
        raise SystemExit(f"error: {path} holds models {summary['models']}: publish one at a "
                         "time (run --report-only --models M --out S.json)")  # fmt: skip
    return summary


def from_run(args: argparse.Namespace, argv: Sequence[str]) -> tuple[Path, dict[str, Any]]:
    """Publish the run of ``--summary`` and ``--results``: where to, and the file written."""
    summary = load_summary(args.summary)
    out = args.out or default_out(summary)
    records = run_records(summary, args.results)
    short = unfinished(records, summary["questions"])
    if short and not args.partial:
        raise SystemExit(f"error: unfinished rows: {', '.join(short)}; run the same command "
                         "again to finish them, or pass --partial")  # fmt: skip
    return out, publish(summary, records, args.command or commands(summary, argv), out)


def main(argv: Sequence[str] | None = None) -> None:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parse_args(argv)
    out, data = (args.out, remake(args.out)) if args.report_only else from_run(args, argv)
    print(f"wrote {out}, {answers_path(out).name} and {out.with_suffix('.md').name}: "
          f"{data['figures']['verdict']}")  # fmt: skip


if __name__ == "__main__":
    main()
