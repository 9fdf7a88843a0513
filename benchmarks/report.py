"""Write benchmarks/results/REPORT.md from the result JSONs present (nothing typed by hand).

Sections, each only when its files exist: LOCOMO QA (``locomo*.json``), append-only vs
overwrite (``temporal*.json``), SQL vs Cypher (``query_languages*.json``, rendered by
``benchmarks.query_languages.run.markdown`` when that module loads, else generically), the
wall time of ``make bench-smoke`` per step against its budget (``bench_smoke_timing.json``),
and a list of the other result files. Every figure is read from a file; every section names the
command and the model that produced it, when and under what load.

Usage: .venv/bin/python -m benchmarks.report [--results DIR] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from benchmarks.locomo import context_recall
from benchmarks.locomo import render as locomo_render
from benchmarks.memory import RESULTS
from benchmarks.published_results import PUBLISHED

Renderer = Callable[[dict[str, Any]], str]


def provenance_lines(result: dict[str, Any]) -> list[str]:
    """Command, model(s), time and load of a result, as far as the file says."""
    lines = []
    if "command" in result:
        lines.append(f"- command: `{result['command']}`")
    models = [f"{k} `{result[k]}`" for k in ("model", "judge_model") if result.get(k)]
    if models:
        lines.append("- " + ", ".join(models))
    when = [
        f"{label} {result[key]}"
        for key, label in (
            ("started_at", "started"),
            ("wall_seconds", "wall s"),
            ("load_avg_1_5_15", "load 1/5/15 min"),
            ("load_average", "load"),
        )
        if key in result
    ]
    if when:
        lines.append("- " + ", ".join(str(w) for w in when))
    return lines


def demote(markdown: str) -> str:
    """Push every heading one level down (a section's own H1 becomes an H3 here)."""
    return "\n".join(
        "##" + line if line.startswith("#") else line for line in markdown.splitlines()
    )


def _scalar(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    return "-" if value is None else str(value)


def generic_markdown(result: dict[str, Any]) -> str:
    """Tables of a result JSON of unknown shape: each mapping of mappings becomes a table
    (rows = outer keys, columns = scalar inner keys); top-level scalars a key/value list."""
    lines: list[str] = []
    scalars = {k: v for k, v in result.items() if isinstance(v, int | float | str | bool)}
    lines += [f"- {k}: {_scalar(v)}" for k, v in scalars.items() if k != "command"]
    for key, value in result.items():
        if not isinstance(value, dict) or not value:
            continue
        rows = {k: v for k, v in value.items() if isinstance(v, dict)}
        if not rows:
            continue
        columns = list(
            dict.fromkeys(
                c for r in rows.values() for c, v in r.items() if not isinstance(v, dict | list)
            )
        )
        lines += ["", f"**{key}**", "", "| | " + " | ".join(columns) + " |",
                  "|" + " --- |" * (len(columns) + 1)]  # fmt: skip
        for name, row in rows.items():
            lines.append(f"| {name} | " + " | ".join(_scalar(row.get(c)) for c in columns) + " |")
    return "\n".join(lines)


def _query_languages_renderer() -> Renderer:
    try:
        from benchmarks.query_languages.run import markdown
    except Exception:  # the study's module is optional here; fall back to generic tables
        return generic_markdown
    renderer: Renderer = markdown
    return renderer


def _images(result: dict[str, Any], results: Path, out: Path) -> list[str]:
    lines = []
    for name in result.get("plots", []):
        if (results / name).is_file():
            rel = Path(name) if out.parent == results else (results / name).resolve()
            lines.append(f"![{name}]({rel})")
    return lines


def _load(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return None
    return data if isinstance(data, dict) else None


def section(title: str, files: list[Path], render: Renderer, results: Path, out: Path) -> list[str]:
    lines = [f"## {title}", ""]
    for path in files:
        result = _load(path)
        if result is None:
            lines += [f"`{path.name}`: unreadable JSON, skipped.", ""]
            continue
        try:
            body = render(result)
        except Exception as exc:  # a renderer out of step with the file: show it generically
            body = f"(renderer failed: {type(exc).__name__}: {exc})\n\n" + generic_markdown(result)
        lines += [f"### `{path.name}`", "", *provenance_lines(result), "", demote(body), ""]
        lines += [*_images(result, results, out), ""]
    return lines


def _temporal_renderer() -> Renderer:
    from benchmarks.temporal.run import markdown

    renderer: Renderer = markdown
    return renderer


SMOKE_TIMING = "bench_smoke_timing.json"
"""Written by scripts/bench-smoke.sh: each step's wall time and the 45-minute budget."""


def smoke_timing_markdown(timing: dict[str, Any]) -> str:
    """The steps of one ``make bench-smoke`` run with their wall time, and the budget."""
    verdict = "within" if timing["within_budget"] else "OVER"
    load = ", ".join(f"{x:.2f}" for x in timing.get("load_at_end", []))
    return "\n".join(
        [
            f"Started {timing['started']} UTC on {timing['cores']} cores: "
            f"**{timing['wall_s']} s** in all, {verdict} the {timing['budget_s']} s budget "
            f"(load 1/5/15 min at the end: {load}).",
            "",
            "| step | wall s | command |",
            "|---|---|---|",
            *(f"| {s['step']} | {s['wall_s']} | `{s['command']}` |" for s in timing["steps"]),
        ]
    )


def build_report(results: Path, out: Path) -> str:
    """The whole REPORT.md text for the JSONs in ``results``."""
    locomo = sorted(results.glob("locomo*.json"))
    recall = sorted(results.glob("context_recall*.json"))
    temporal = sorted(results.glob("temporal*.json"))
    ql = sorted(results.glob("query_languages*.json"))
    smoke = [p for p in [results / SMOKE_TIMING] if p.is_file()]
    used = set(locomo + recall + temporal + ql + smoke)
    others = sorted(p for p in results.glob("*.json") if p not in used)
    now = datetime.now(UTC).replace(tzinfo=None).isoformat(timespec="seconds")
    lines = [
        "# Benchmark report",
        "",
        f"Written by `.venv/bin/python -m benchmarks.report` at {now} UTC from the result "
        f"files in `{results.name}/`. Every figure below is read from those files; each "
        "section names the command and model that produced it.",
        "",
    ]
    if locomo:
        lines += section("LOCOMO QA", locomo, locomo_render.markdown, results, out)
    if recall:
        lines += section(
            "LOCOMO context recall (no LLM)", recall, context_recall.markdown, results, out
        )
    if temporal:
        lines += section("Append-only vs overwrite", temporal, _temporal_renderer(), results, out)
    if ql:
        lines += section("SQL vs Cypher", ql, _query_languages_renderer(), results, out)
    lines += published_study_section(results, out)
    if smoke:
        lines += section("make bench-smoke wall time", smoke, smoke_timing_markdown, results, out)
    if not (locomo or temporal or ql):
        lines += ["No LOCOMO, temporal or query-language results yet: run `make bench-smoke`.", ""]
    if others:
        lines += ["## Other result files", ""]
        lines += [f"- `{p.name}`" + _command_suffix(p) for p in others] + [""]
    return "\n".join(lines)


def published_study_section(results: Path, out: Path) -> list[str]:
    """The published SQL-vs-Cypher files (committed, so a fresh clone has them), one per
    model and question set, each with its plot drawn into ``results``."""
    lines = []
    for published in sorted(PUBLISHED.glob("query_languages*.json")):
        data = _load(published)
        if data is not None:
            lines += published_study(data, published.stem, results, out)
    return lines


def published_study(data: dict[str, Any], stem: str, results: Path, out: Path) -> list[str]:
    from benchmarks.query_languages.page import report_markdown, report_plot

    plot = report_plot(data, results / f"{stem}_published_by_kind.png")
    rel = plot.name if out.parent == results else plot.resolve()
    heading = f"## {data.get('title', 'SQL vs Cypher')}, published verdict (`{stem}.json`)"
    return [heading, "", *provenance_lines(data), "", report_markdown(data), "",
            f"![{plot.name}]({rel})", ""]  # fmt: skip


def _command_suffix(path: Path) -> str:
    result = _load(path) or {}
    return f": `{result['command']}`" if "command" in result else ""


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="Write REPORT.md from the benchmark result JSONs.")
    p.add_argument("--results", type=Path, default=RESULTS)
    p.add_argument("--out", type=Path, default=None, help="default RESULTS/REPORT.md")
    args = p.parse_args(argv)
    out = args.out or args.results / "REPORT.md"
    text = build_report(args.results, out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    print(f"written {out} ({len(text.splitlines())} lines)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
