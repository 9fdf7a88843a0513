"""Markdown tables and PNG plots of a LOCOMO QA result (used by run.py and report.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchmarks.charts import grouped_bars
from benchmarks.locomo.data import CATEGORY_NAMES


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.1%}"


def _num(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:,.{digits}f}"


def accuracy_table(summary: dict[str, Any]) -> str:
    """Judge accuracy (and token F1) per category and system."""
    names = [*CATEGORY_NAMES.values(), "overall_1_4"]
    head = "| system | " + " | ".join(names) + " |"
    rows = [head, "|" + " --- |" * (len(names) + 1)]
    for system, s in summary.items():
        cells = []
        for name in names:
            block = s["categories"].get(name)
            cells.append(
                "-"
                if block is None
                else f"{_pct(block['accuracy'])} (F1 {_num(block['f1'], 2)}, n={block['n']})"
            )
        rows.append(f"| {system} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def cost_table(summary: dict[str, Any]) -> str:
    """Tool calls, tokens, latency and evidence per system."""
    rows = [
        "| system | tool calls median / p90 | calls by tool (per q) | tokens/q construction "
        "(amortised) | tokens/q answering | tool output tokens/q (est.) | latency p50 / p95 s "
        "| evidence hit | cited |",
        "|" + " --- |" * 9,
    ]
    for system, s in summary.items():
        tc, tk, lat = s["tool_calls"], s["tokens"], s["latency_s"]
        by_tool = ", ".join(f"{k} {v:.2f}" for k, v in tc["per_question_by_tool"].items()) or "-"
        rows.append(
            f"| {system} | {_num(tc['median'])} / {_num(tc['p90'])} | {by_tool} "
            f"| {_num(tk['construction_amortised'], 0)} | {_num(tk['answering_mean'], 0)} "
            f"| {_num(tk['tool_output_est_mean'], 0)} | {_num(lat['p50'])} / {_num(lat['p95'])} "
            f"| {_pct(s['evidence_hit_rate'])} | {_pct(s['cited_share'])} |"
        )
    return "\n".join(rows)


def markdown(result: dict[str, Any]) -> str:
    """The run as markdown: setup, accuracy, cost, and the notes a reader needs."""
    setup = result["setup"]
    lines = [
        f"Conversation {setup['conversation']}, sessions {setup['sessions']}, "
        f"{setup['turns']} turns, {result['questions']} questions, store {setup['store']}, "
        f"question date {setup['question_date']}.",
        "",
        accuracy_table(result["summary"]),
        "",
        cost_table(result["summary"]),
    ]
    notes = result.get("notes", [])
    if notes:
        lines += ["", *[f"- {n}" for n in notes]]
    return "\n".join(lines)


def plots(result: dict[str, Any], out_dir: Path, stem: str) -> list[str]:
    """Accuracy by category, latency and answering tokens per system; returns file names."""
    summary = result["summary"]
    acc = {
        system: {
            name: s["categories"][name]["accuracy"]
            for name in [*CATEGORY_NAMES.values(), "overall_1_4"]
            if name in s["categories"]
        }
        for system, s in summary.items()
    }
    cost = {
        "latency p50 (s)": {k: v["latency_s"]["p50"] for k, v in summary.items()},
        "latency p95 (s)": {k: v["latency_s"]["p95"] for k, v in summary.items()},
    }
    files = [
        grouped_bars(
            out_dir / f"{stem}_accuracy.png", "LOCOMO judge accuracy", acc, "accuracy", (0, 1)
        ),
        grouped_bars(out_dir / f"{stem}_latency.png", "latency per question", cost, "seconds"),
    ]
    return [f.name for f in files]
