"""What the Neo4j A/B benchmarks (``write_ab``, ``gc_ab``) share: their common options (checked
before any server starts), a rate summary, and the results file."""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path
from typing import Any

from rich.console import Console

from benchmarks.memory import RESULTS


def ab_parser(doc: str | None, rounds: int) -> argparse.ArgumentParser:
    """A parser with the options every A/B takes; the caller adds its own."""
    parser = argparse.ArgumentParser(description=(doc or "").split("\n")[0])
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=rounds)
    parser.add_argument(
        "--warmups", type=int, default=16, help="untimed loads on each server started"
    )
    parser.add_argument("--writers", type=int, default=2)
    parser.add_argument("--out-dir", type=Path, default=RESULTS)
    return parser


def parse_ab(parser: argparse.ArgumentParser, argv: list[str] | None) -> argparse.Namespace:
    args = parser.parse_args(argv)
    if args.size < 1 or args.rounds < 1 or args.warmups < 0 or args.writers < 1:
        parser.error("--size, --rounds and --writers must be at least 1, --warmups at least 0")
    return args


def summarize(rates: list[int]) -> dict[str, Any]:
    return {"median": statistics.median(rates), "min": min(rates), "max": max(rates)}


def save(console: Console, out_dir: Path, name: str, result: dict[str, Any]) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    out = out_dir / name
    out.write_text(json.dumps(result, indent=2))
    console.print(f"written to {out}")
