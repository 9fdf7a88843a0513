"""A published SQL-vs-Cypher file as a markdown page, and its plot of accuracy per kind.

The page is what ``publish`` writes beside the file (``x.md``) and what REPORT.md shows: the
rows (each arm with its demos, and without them when the run had a zero-shot row) with answer
accuracy beside query success, tokens and latencies; accuracy per question kind; the error
taxonomy; the language comparisons per kind with McNemar and Holm; whether the latencies were
measured one arm at a time; and the verdict. Every figure is read from the file.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

from benchmarks.charts import grouped_bars
from benchmarks.query_languages.metrics import FAILURE_CLASSES
from benchmarks.query_languages.tables import fmt as cell

MAIN_HEAD: Final = (
    "arm", "n", "accuracy % [bootstrap 95%]", "query ok % [bootstrap 95%]", "first try ok %",
    "no query %", "tokens (mean)", "tool calls (mean)", "p50 s", "p95 s",
)  # fmt: skip
COMPARISON_HEAD: Final = (
    "comparison (SQL arm vs Cypher arm)", "kind", "n", "SQL right", "Cypher right",
    "p (McNemar)", "p (Holm)", "better",
)  # fmt: skip


def md_table(head: Sequence[str], rows: Sequence[Sequence[Any]]) -> list[str]:
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    return lines + ["| " + " | ".join(cell(c) for c in row) + " |" for row in rows]


def arm_figures(data: dict[str, Any]) -> list[dict[str, Any]]:
    """The rows' figures, in the file's order (the verdict line is not one)."""
    return [f for f in data["figures"].values() if isinstance(f, dict)]


def main_row(f: dict[str, Any]) -> list[Any]:
    accuracy = f"{100 * f['rate']:.1f} {cell(f['accuracy_ci95_pct'])}"
    success = f"{cell(f['query_success_pct'])} {cell(f.get('query_success_ci95_pct'))}"
    return [f["label"], f["n"], accuracy, success, f.get("first_try_success_pct"),
            f.get("no_query_pct"), f.get("tokens_mean"), f.get("tool_calls_mean"),
            f.get("latency_p50_s"), f.get("latency_p95_s")]  # fmt: skip


def kind_rows(arms: list[dict[str, Any]]) -> tuple[list[str], list[list[Any]]]:
    kinds = sorted({k for f in arms for k in f["accuracy_by_kind"]})
    rows = []
    for f in arms:
        cells = f["accuracy_by_kind"]
        rows.append([f["label"], *[f"{cells[k]['pct']} (n={cells[k]['n']})" if k in cells
                                   else "-" for k in kinds]])  # fmt: skip
    return ["arm", *kinds], rows


def taxonomy_rows(arms: list[dict[str, Any]]) -> tuple[list[str], list[list[Any]]]:
    present = {c for f in arms for c in f["failure_classes"]}
    classes = [c for c in FAILURE_CLASSES if c in present] + sorted(present - set(FAILURE_CLASSES))
    rows = [[f["label"], f["n"] - f["successes"],
             *[f["failure_classes"].get(c, 0) for c in classes]] for f in arms]  # fmt: skip
    return ["arm", "wrong", *classes], rows


def comparison_rows(comparisons: dict[str, Any]) -> list[list[Any]]:
    rows = []
    for name, comp in comparisons.items():
        for kind, c in {"all": comp["all"], **comp["by_kind"]}.items():
            rows.append([f"{name} ({comp['sql_arm']} vs {comp['cypher_arm']})", kind, c["n"],
                         c["sql_correct"], c["cypher_correct"], c["p_value"], c["p_holm"],
                         c["better"]])  # fmt: skip
    return rows


def report_markdown(data: dict[str, Any]) -> str:
    """The published file as a page (see the module docstring)."""
    arms = arm_figures(data)
    lines = [f"Evaluated on {data['evaluated_on']}; tuned on {data['tuned_on']}.", ""]
    lines += md_table(MAIN_HEAD, [main_row(f) for f in arms])
    lines += ["", "Accuracy by question kind (%):", ""]
    lines += md_table(*kind_rows(arms))
    lines += ["", "Error taxonomy (one class per wrongly answered question):", ""]
    lines += md_table(*taxonomy_rows(arms))
    lines += ["", *md_table(COMPARISON_HEAD, comparison_rows(data["comparisons"]))]
    if "timing" in data:
        lines += ["", f"Latencies: {data['timing']['note']}"]
    return "\n".join([*lines, "", f"**Verdict:** {data['figures']['verdict']}"])


def page(data: dict[str, Any]) -> str:
    """The page ``publish`` writes beside the file: a heading, the provenance, the report."""
    head = [f"# {data['name']}", "", f"- command: `{data['command']}`",
            f"- commit {data['commit']}, {data['date']}; model {data['model']}",
            f"- kept answers: `{data.get('answers', '-')}`", "", report_markdown(data)]  # fmt: skip
    return "\n".join(head) + "\n"


def report_plot(data: dict[str, Any], path: Path) -> Path:
    """Accuracy per question kind, one bar per row, from the published figures."""
    series = {f["label"]: {k: v["pct"] for k, v in f["accuracy_by_kind"].items()}
              for f in arm_figures(data)}  # fmt: skip
    return grouped_bars(path, f"{data.get('title', 'SQL vs Cypher')}: accuracy by question kind",
                        series, "accuracy %", (0, 100))  # fmt: skip
