"""Publish a finished SQL-vs-Cypher run: ``benchmarks/published/query_languages.json``.

    python -m benchmarks.query_languages.publish --summary S.json --results R.jsonl \
        --command "<the commands that made R>"

Reads the run's summary (``run``'s ``--out``, which holds each arm's accuracy and query success
with bootstrap intervals, the error counts and the McNemar tests) and its per-question records,
and writes the published file: provenance, split sizes, per arm its figures, the pairwise
p-values, and the verdict. The verdict compares the arms that differ only in the language:

* ``agent on Neo4j``: neo4j-sql against neo4j-cypher (one store, one loop, SQL through the
  shim);
* ``agent, native store``: sqlite-sql against neo4j-cypher;
* ``one-shot``: text2sql against text2cypher;

each over all questions and per question kind, with McNemar's exact test on the same
questions. The three overall tests are one family and the per-kind tests another, each
Holm-Bonferroni adjusted; a language is named better only where its adjusted p < 0.05,
otherwise the verdict says the difference is not significant.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

from benchmarks.charts import grouped_bars
from benchmarks.memory import head_commit
from benchmarks.published_results import PUBLISHED, wilson
from benchmarks.query_languages.metrics import QuestionRecord
from benchmarks.query_languages.stats import mcnemar_exact

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
OUT: Final = PUBLISHED / "query_languages.json"


def compare(sql: Sequence[QuestionRecord], cypher: Sequence[QuestionRecord]) -> dict[str, Any]:
    """Accuracy of both arms on the questions both answered, and McNemar's exact p."""
    right_sql = {r.qid: r.correct for r in sql}
    right_cypher = {r.qid: r.correct for r in cypher}
    both = sorted(right_sql.keys() & right_cypher.keys())
    only_sql = sum(right_sql[q] and not right_cypher[q] for q in both)
    only_cypher = sum(right_cypher[q] and not right_sql[q] for q in both)
    n = len(both)
    p = mcnemar_exact(only_sql, only_cypher)
    return {
        "n": n,
        "sql_correct": sum(right_sql[q] for q in both),
        "cypher_correct": sum(right_cypher[q] for q in both),
        "only_sql_correct": only_sql,
        "only_cypher_correct": only_cypher,
        "p_value": round(p, 4),
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


def verdicts(records: Sequence[QuestionRecord]) -> dict[str, Any]:
    """Per language comparison: over all questions and per kind. The overall tests form one
    family and the per-kind tests another; a language is better where its Holm-adjusted p
    is below ALPHA."""
    out: dict[str, Any] = {}
    kinds = sorted({r.kind for r in records})
    for name, (sql_arm, cypher_arm) in LANGUAGE_PAIRS.items():
        sql = [r for r in records if r.arm == sql_arm]
        cypher = [r for r in records if r.arm == cypher_arm]
        if not sql or not cypher:
            continue
        out[name] = {
            "sql_arm": sql_arm, "cypher_arm": cypher_arm, "all": compare(sql, cypher),
            "by_kind": {k: compare([r for r in sql if r.kind == k],
                                   [r for r in cypher if r.kind == k]) for k in kinds},
        }  # fmt: skip
    settle([c["all"] for c in out.values()])
    settle([k for c in out.values() for k in c["by_kind"].values()])
    return out


def verdict_line(comparisons: dict[str, Any]) -> str:
    """One sentence: which language did better where, or that no difference was significant."""
    parts = []
    for name, comp in comparisons.items():
        overall = comp["all"]
        won = [k for k, c in comp["by_kind"].items() if c["better"] != "neither"]
        kinds = "; ".join(f"{k}: {comp['by_kind'][k]['better']}" for k in won)
        head = (
            f"{overall['better']} better"
            if overall["better"] != "neither"
            else "no significant " "difference"
        )
        parts.append(f"{name}: {head} (Holm p={overall['p_holm']})"
                     + (f", by kind {kinds}" if won else ""))  # fmt: skip
    return ". ".join(parts) + "."


def arm_entry(arm: str, figures: dict[str, Any]) -> dict[str, Any]:
    n = int(figures["questions"])
    correct = round(figures["accuracy_pct"] * n / 100)
    return {
        "label": ARM_LABELS.get(arm, arm), "n": n, "successes": correct,
        "rate": round(correct / n, 3),
        "accuracy_ci95_pct": figures["accuracy_ci95"],
        "query_success_pct": figures["query_success_pct"],
        "query_success_ci95_pct": figures["query_success_ci95"],
        "accuracy_by_kind": {k: {"pct": v["accuracy_pct"], "ci95_pct": v["accuracy_ci95"],
                                 "n": v["questions"]} for k, v in figures["by_kind"].items()},
        "failure_classes": figures["failure_classes"], "error_classes": figures["error_classes"],
        "tokens_mean": figures["tokens_mean"], "tool_calls_mean": figures["tool_calls_mean"],
    }  # fmt: skip


def wilson_ci(figures: dict[str, Any]) -> list[float]:
    return [round(x, 3) for x in wilson(figures["successes"], figures["n"])]


def key(arm: str) -> str:
    return arm.replace("-", "_")


def table(arms: Sequence[str]) -> list[dict[str, str]]:
    rows = [{"result": f"SQL vs Cypher, {ARM_LABELS.get(a, a)}: answer accuracy "
                       f"(n={{{key(a)}[n]}})",
             "figure": f"{{{key(a)}[rate]:.1%}}", "ci95": key(a)} for a in arms]  # fmt: skip
    rows.append({"result": "SQL vs Cypher verdict: {verdict}", "figure": "-"})
    return rows


def published(
    summary: dict[str, Any], records: Sequence[QuestionRecord], command: str, commit: str
) -> dict[str, Any]:
    [model] = summary["models"]
    part = summary["by_model"][model]
    arms = [a for a in ARM_LABELS if part["arms"].get(a, {}).get("questions")]
    comparisons = verdicts(records)
    figures: dict[str, Any] = {key(a): arm_entry(a, part["arms"][a]) for a in arms}
    figures["verdict"] = verdict_line(comparisons)
    split = summary["split_sizes"]
    return {
        "order": ORDER,
        "name": "SQL vs Cypher: answer accuracy of five query arms on held-out questions",
        "command": command,
        "commit": commit,
        "date": datetime.now(UTC).date().isoformat(),
        "model": f"{model} ({part['model_note']})",
        "tuned_on": (
            f"the train split ({split['train']} questions about other entities): each arm's "
            f"{summary['few_shot'].get('demos_per_arm')} few-shot demos and the schema wording; "
            "the query mode was developed on a signal run of the first 12 test questions"
        ),
        "evaluated_on": (
            f"the test split: {summary['questions']} questions (gold seeds "
            f"{summary['gold_seeds']}), each asked once per arm"
        ),
        "split_sizes": split,
        "few_shot": summary["few_shot"],
        "figures": figures,
        "ci95": {key(a): wilson_ci(figures[key(a)]) for a in arms},
        "intervals": "ci95: Wilson score, as in every published file; accuracy_ci95_pct and "
        "query_success_ci95_pct: percentile bootstrap over questions, as the study reports",
        "comparisons": comparisons,
        "mcnemar": part["mcnemar"],
        "table": table(arms),
    }


# ---- the published file in REPORT.md ----


def report_markdown(data: dict[str, Any]) -> str:
    """The published file as REPORT.md shows it: the arms, the language comparisons per kind
    and the verdict (every figure read from ``data``)."""
    arms = [f for k, f in data["figures"].items() if isinstance(f, dict)]
    lines = [f"Evaluated on {data['evaluated_on']}; tuned on {data['tuned_on']}.", "",
             "| arm | n | accuracy % [bootstrap 95%] | query ok % | failures of wrong answers |",
             "|---|---|---|---|---|"]  # fmt: skip
    for f in arms:
        lo, hi = f["accuracy_ci95_pct"]
        fails = ", ".join(f"{k} {v}" for k, v in f["failure_classes"].items()) or "-"
        lines.append(f"| {f['label']} | {f['n']} | {100 * f['rate']:.1f} [{lo}, {hi}] | "
                     f"{f['query_success_pct']} | {fails} |")  # fmt: skip
    lines += ["", "| comparison (SQL arm vs Cypher arm) | kind | n | SQL right | Cypher right | "
              "p (McNemar) | p (Holm) | better |", "|---|---|---|---|---|---|---|---|"]  # fmt: skip
    for name, comp in data["comparisons"].items():
        for kind, c in {"all": comp["all"], **comp["by_kind"]}.items():
            lines.append(f"| {name} ({comp['sql_arm']} vs {comp['cypher_arm']}) | {kind} | "
                         f"{c['n']} | {c['sql_correct']} | {c['cypher_correct']} | "
                         f"{c['p_value']} | {c['p_holm']} | {c['better']} |")  # fmt: skip
    return "\n".join([*lines, "", f"**Verdict:** {data['figures']['verdict']}"])


def report_plot(data: dict[str, Any], path: Path) -> Path:
    """Accuracy per question kind, one bar per arm, from the published figures."""
    series = {f["label"]: {k: v["pct"] for k, v in f["accuracy_by_kind"].items()}
              for f in data["figures"].values() if isinstance(f, dict)}  # fmt: skip
    return grouped_bars(path, "SQL vs Cypher: accuracy by question kind (published run)",
                        series, "accuracy %", (0, 100))  # fmt: skip


def load_records(path: Path, model: str) -> list[QuestionRecord]:
    lines = path.read_text(encoding="utf-8").splitlines()
    records = [QuestionRecord.model_validate_json(line) for line in lines if line.strip()]
    return [r for r in records if r.model == model and r.program == "compiled"]


def main(argv: Sequence[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--summary", type=Path, required=True, help="the run's --out JSON")
    p.add_argument("--results", type=Path, required=True, help="the run's per-question JSONL")
    p.add_argument("--command", required=True, help="the command(s) that produced the run")
    p.add_argument("--out", type=Path, default=OUT)
    args = p.parse_args(argv)
    summary = json.loads(args.summary.read_text(encoding="utf-8"))
    wanted = set(summary["qids"])
    records = [r for r in load_records(args.results, summary["models"][0]) if r.qid in wanted]
    data = published(summary, records, args.command, head_commit())
    args.out.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {args.out}: {data['figures']['verdict']}")


if __name__ == "__main__":
    main()
