"""The headline results: one small JSON per result in ``benchmarks/published/``, and the
markdown table README.md shows, made from them.

Each file records the command that produced its figures, the commit and date of the run, the
model, what was tuned on which data, and, for a proportion with a known n, a Wilson score
interval. The table reads every number from the files::

    .venv/bin/python -m benchmarks.published_results            # prints the table
    .venv/bin/python -m benchmarks.published_results --readme   # writes it into README.md
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from typing import Any

PUBLISHED = Path(__file__).resolve().parent / "published"
REQUIRED = ("name", "command", "commit", "date", "tuned_on", "evaluated_on", "figures")
Z95 = 1.959963984540054  # the standard normal quantile at 0.975
HEADER = "| Result | Figure | 95% interval | Data |\n| --- | --- | --- | --- |"
README = PUBLISHED.parents[1] / "README.md"
TABLE_START = "<!-- results table: python -m benchmarks.published_results -->\n"
TABLE_END = "\n<!-- end results table -->"


def answers_path(published: Path) -> Path:
    """Where a published file keeps its answers: ``x.json`` -> ``x.answers.jsonl``."""
    return published.with_suffix(".answers.jsonl")


def wilson(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of ``successes`` out of ``n`` (95% by default)."""
    if n <= 0:
        raise ValueError(f"n must be positive, not {n}")
    if not 0 <= successes <= n:
        raise ValueError(f"successes must be between 0 and n={n}, not {successes}")
    p = successes / n
    z2 = z * z
    denominator = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def load_published(directory: Path = PUBLISHED) -> list[dict[str, Any]]:
    """Every published result, each with its ``file`` name added, ordered by its ``order``
    (then by file name)."""
    results = []
    for path in sorted(directory.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        data["file"] = path.name
        results.append(data)
    return sorted(results, key=lambda r: (r.get("order", math.inf), r["file"]))


def _interval(result: dict[str, Any], key: str | None) -> str:
    if key is None:
        return "-"
    lo, hi = result["ci95"][key]
    return f"{lo:.1%}-{hi:.1%}"


def results_table(directory: Path = PUBLISHED) -> str:
    """The markdown table of every published result: one row per entry of each file's
    ``table``, whose ``result`` and ``figure`` are format strings over the file's ``figures``
    (so every number in the table is read from the file)."""
    rows = [HEADER]
    for result in load_published(directory):
        link = f"[{result['file']}](benchmarks/published/{result['file']})"
        for row in result["table"]:
            label = row["result"].format_map(result["figures"])
            figure = row["figure"].format_map(result["figures"])
            interval = _interval(result, row.get("ci95"))
            rows.append(f"| {label} | {figure} | {interval} | {link} |")
    return "\n".join(rows)


def with_table(text: str, table: str) -> str:
    """``text`` with the table between its results-table markers replaced by ``table``."""
    start, end = text.index(TABLE_START) + len(TABLE_START), text.index(TABLE_END)
    return text[:start] + table + text[end:]


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description="README's results table from the published files.")
    p.add_argument("--readme", action="store_true", help=f"write it into {README.name}")
    args = p.parse_args(argv)
    table = results_table()
    if not args.readme:
        print(table)
        return
    README.write_text(with_table(README.read_text(encoding="utf-8"), table), encoding="utf-8")
    print(f"wrote the results table ({len(table.splitlines()) - 2} rows) into {README}")


if __name__ == "__main__":
    main()
