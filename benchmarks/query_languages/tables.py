"""The study's summary as tables: printed with rich, or written as markdown.

Both renderings come from the same sections (title, header, rows of text), one set per
model. A summary written before models, splits and intervals were kept (one model, its arms
at the top level) is read as a single model without them.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Final

from rich.console import Console
from rich.table import Table

from benchmarks.query_languages.metrics import FAILURE_CLASSES

COLUMNS: Final = (
    ("questions", "n"), ("accuracy_pct", "accuracy % [95% CI]"), ("queries", "queries"),
    ("query_success_pct", "query ok % [95% CI]"), ("first_try_success_pct", "first try ok %"),
    ("recovery_pct", "recovered %"), ("no_query_pct", "no query %"),
    ("tool_calls_mean", "tool calls"), ("tokens_mean", "tokens"),
    ("latency_p50_s", "p50 s"), ("latency_p95_s", "p95 s"), ("agent_errors", "agent errors"),
)  # fmt: skip
INTERVALS: Final = {"accuracy_pct": "accuracy_ci95", "query_success_pct": "query_success_ci95"}
"""Figures shown with their bootstrap interval in the same cell."""
Section = tuple[str, list[str], list[list[str]]]
"""(title, header, rows): one table."""


def fmt(value: Any) -> str:
    """A cell: "-" for a missing figure, "[low, high]" for an interval."""
    if value is None:
        return "-"
    if isinstance(value, list):
        return "[" + ", ".join(fmt(v) for v in value) + "]"
    return str(value)


def _with_ci(pct: Any, ci: Any) -> str:
    return fmt(pct) if ci is None else f"{fmt(pct)} {fmt(ci)}"


def model_parts(summary: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Model id -> that model's part of the summary (old single-model summaries too)."""
    if "by_model" in summary:
        parts: dict[str, dict[str, Any]] = summary["by_model"]
        return parts
    return {summary.get("model", "?"): summary}


def _main_row(arm: str, figures: dict[str, Any]) -> list[str]:
    return [arm, *[_with_ci(figures.get(k), figures.get(INTERVALS.get(k, ""))) for k, _ in COLUMNS]]


def _class_table(title: str, arms: dict[str, Any], key: str, order: tuple[str, ...]) -> Section:
    present = {c for f in arms.values() for c in f.get(key, {})}
    classes = [c for c in order if c in present] + sorted(present - set(order))
    rows = [[arm, *[str(f.get(key, {}).get(c, 0)) for c in classes]] for arm, f in arms.items()]
    return title, ["arm", *classes], rows


def _kind_table(title: str, arms: dict[str, Any], pct: str, ci: str) -> Section:
    kinds = sorted({k for f in arms.values() for k in f.get("by_kind", {})})
    rows = []
    for arm, f in arms.items():
        cells = f.get("by_kind", {})
        rows.append([arm, *[_with_ci(cells.get(k, {}).get(pct), cells.get(k, {}).get(ci))
                            for k in kinds]])  # fmt: skip
    return title, ["arm", *kinds], rows


def _mcnemar_table(pairs: list[dict[str, Any]]) -> Section:
    rows = [[p["arm_a"], p["arm_b"], str(p["questions"]), str(p["only_a_correct"]),
             str(p["only_b_correct"]), fmt(p["p_value"])] for p in pairs]  # fmt: skip
    head = ["arm A", "arm B", "both answered", "only A right", "only B right", "p (exact)"]
    return "McNemar tests between arms (questions both answered)", head, rows


def sections(model: str, part: dict[str, Any]) -> Iterator[Section]:
    """The tables of one model's part of the summary."""
    arms: dict[str, Any] = part["arms"]
    note = part.get("model_note", model)
    head = ["arm", *[label for _, label in COLUMNS]]
    yield f"SQL vs Cypher, {note}", head, [_main_row(arm, f) for arm, f in arms.items()]
    yield _class_table(
        "Error taxonomy (wrongly answered questions)", arms, "failure_classes", FAILURE_CLASSES
    )
    yield _class_table("Query error classes (count of queries)", arms, "error_classes", ())
    if any("by_kind" in f for f in arms.values()):
        yield _kind_table("Accuracy by question kind (%, 95% CI)", arms, "accuracy_pct",
                          "accuracy_ci95")  # fmt: skip
        yield _kind_table("Query success by question kind (%, 95% CI)", arms,
                          "query_success_pct", "query_success_ci95")  # fmt: skip
    else:  # an old summary: accuracy per kind without intervals
        kinds = sorted({k for f in arms.values() for k in f.get("accuracy_by_kind", {})})
        rows = [[a, *[fmt(f["accuracy_by_kind"].get(k)) for k in kinds]] for a, f in arms.items()]
        yield "Accuracy by question kind (%)", ["arm", *kinds], rows
    if part.get("mcnemar"):
        yield _mcnemar_table(part["mcnemar"])


def print_tables(summary: dict[str, Any], console: Console) -> None:
    for model, part in model_parts(summary).items():
        for title, head, rows in sections(model, part):
            table = Table(title=title)
            table.add_column(head[0])
            for label in head[1:]:
                table.add_column(label, justify="right")
            for row in rows:
                table.add_row(*row)
            console.print(table)


def _split_line(summary: dict[str, Any]) -> str:
    if "split" not in summary:
        return f"first {summary['questions']} questions"
    return f"split {summary['split']}, {summary['questions']} questions"


def few_shot_line(note: dict[str, Any]) -> str:
    """Which rows carried few-shot demos, and how many."""
    demos = note.get("demos_per_arm", "?")
    source = note.get("demo_source", "train questions")
    return (
        f"Few-shot: an arm's unmarked row ran with its compiled program ({demos} demos from "
        f"{source}, `{note['compiled_dir']}`); a row marked (zero-shot) ran without."
    )


def real_memory_line(source: dict[str, Any]) -> str:
    """Where a real memory's questions came from."""
    return (
        f"Real-memory questions: the graph of scope {source['scope']!r} of `{source['store']}` "
        f"(sha256 {source['store_sha256']}; {source['entities']} entities, {source['facts']} "
        f"facts), {source['questions']} questions drawn with seed {source['seed']}."
    )


def markdown(summary: dict[str, Any]) -> str:
    """The summary as a markdown page: a heading, the run's provenance, then the tables."""
    lines = [
        f"# SQL vs Cypher ({_split_line(summary)}; n = answered per arm)", "",
        f"Command: `{summary['command']}`. Load average at the end: {summary['load_average']}.",
    ]  # fmt: skip
    if "split_sizes" in summary:
        sizes = summary["split_sizes"]
        lines.append(
            f"Gold seeds {summary.get('gold_seeds')}; questions per split: test "
            f"{sizes['test']['questions']}, train {sizes['train']['questions']}."
        )
    if "real_memory" in summary:
        lines.append(real_memory_line(summary["real_memory"]))
    if "few_shot" in summary:
        lines.append(few_shot_line(summary["few_shot"]))
    for model, part in model_parts(summary).items():
        lines += ["", f"## Model {model} ({part.get('model_note', model)})"]
        for title, head, rows in sections(model, part):
            lines += ["", f"### {title}", "", "| " + " | ".join(head) + " |",
                      "|" + "---|" * len(head)]  # fmt: skip
            lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines) + "\n"
