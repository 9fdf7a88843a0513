"""The graph benchmark of two commits, interleaved: is the working tree as fast as a base?

    .venv/bin/python -m benchmarks.graph.commit_ab --base eb3e8e7 --backend sqlite --rounds 5
    .venv/bin/python -m benchmarks.graph.commit_ab --base eb3e8e7 --backend neo4j --rounds 8 \
        --size 20000 --warmup-loads 5 --one-server

Each round runs ``benchmarks.graph.bench`` once on the library of a git worktree of
``--base`` and once on this tree's (in alternating order, so a machine that slows down
mid-run slows both), each on a fresh store with the same generated data. Both arms run this
tree's benchmark code (``harness``), so they differ by ``apexmem_neo`` and its Cypher only.
Per round, the ratio (this tree / base) of the ingest rate (facts/s of the store's writes)
and of every temporal query's p50; the median of those per-round ratios is what to read
(two runs of one round share the machine's state of the moment, which moves more between
rounds than the arms differ): above 0.9 for ingest and below 1.1 for reads is "within
10%". Per arm, the medians over rounds are kept beside them. Results:
benchmarks/results/commit_ab_<backend>.json; ``--publish`` also writes the summary to
benchmarks/published/.

Neo4j: by default each run starts a server of its own on a new data directory
(``bench --private-neo4j``). Each server's JIT levels off at a rate of its own, so two
runs of one round differ by their servers more than by their commits. ``--one-server``
starts one private server here and runs every load of both arms on it (wiped before each
load), so the arms share one JVM and the ABBA order cancels its drift; one untimed run per
arm warms it first.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from contextlib import ExitStack
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from apexmem_neo.settings import Settings
from benchmarks.graph.neo4j_backend import private_server
from benchmarks.memory import RESULTS, head_commit

ROOT = Path(__file__).resolve().parents[2]
PUBLISHED = ROOT / "benchmarks" / "published"


def worktree(base: str) -> Path:
    """A checkout of ``base`` beside the results (made once, reused)."""
    path = RESULTS / "worktrees" / base
    if not path.is_dir():
        path.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "worktree", "add", "--force", str(path), base], cwd=ROOT, check=True)
    return path


def harness(base: Path) -> Path:
    """A directory holding the base's ``apexmem_neo`` beside this tree's ``benchmarks`` (as
    links), to run from: Python imports both from the directory it runs in. The base's
    Cypher files are found beside its package (``cypher_files.REPO_CYPHER`` resolves the
    link)."""
    path = base.with_name(f"{base.name}-harness")
    path.mkdir(parents=True, exist_ok=True)
    for name, target in (
        ("apexmem_neo", base / "apexmem_neo"),
        ("benchmarks", ROOT / "benchmarks"),
    ):
        link = path / name
        if not link.is_symlink():
            link.symlink_to(target, target_is_directory=True)
    return path


def run_bench(tree: Path, args: argparse.Namespace) -> dict[str, Any]:
    """One benchmark run from ``tree`` (this tree, or the base's ``harness``); its results
    JSON."""
    command = [
        sys.executable, "-m", "benchmarks.graph.bench", "--backend", args.backend,
        "--sizes", str(args.size), "--samples", str(args.samples),
    ]  # fmt: skip
    if args.backend == "neo4j":
        command += ["--writers", str(args.writers)]
        command += [] if args.one_server else ["--private-neo4j"]
        if args.warmup_loads is not None:
            command += ["--warmup-loads", str(args.warmup_loads)]
    env = {**os.environ, "PYTHONPATH": str(tree), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    subprocess.run(command, cwd=tree, env=env, check=True, stdout=subprocess.DEVNULL)
    suffix = f"_{args.writers}writers" if args.backend == "neo4j" and args.writers > 1 else ""
    out = ROOT / "benchmarks" / "results" / f"graph_{args.backend}{suffix}.json"
    result: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))["results"][0]
    return result


def figures(run: dict[str, Any]) -> dict[str, float]:
    found = {"ingest_facts_per_s": float(run["ingest"]["ingest_facts_per_s"])}
    for query, latency in run["latency"].items():
        found[f"{query}_p50_ms"] = float(latency["p50_ms"])
    return found


def round_ratios(runs: dict[str, list[dict[str, float]]]) -> list[dict[str, float]]:
    """Per round, every figure of this tree over the base's (figures the base has as 0 left
    out)."""
    return [
        {k: round(tree[k] / base[k], 3) for k in base if base[k]}
        for base, tree in zip(runs["base"], runs["tree"], strict=True)
    ]


def summary(runs: dict[str, list[dict[str, float]]]) -> dict[str, Any]:
    """Per arm the medians over rounds; per figure the per-round ratios and their median."""
    medians = {
        arm: {k: statistics.median(r[k] for r in rows) for k in rows[0]}
        for arm, rows in runs.items()
    }
    per_round = round_ratios(runs)
    ratios = {k: round(statistics.median(r[k] for r in per_round), 3) for k in per_round[0]}
    return {"medians": medians, "round_ratios": per_round, "ratios_tree_over_base": ratios}


def interleaved(
    trees: dict[str, Path], args: argparse.Namespace
) -> dict[str, list[dict[str, float]]]:
    """``args.rounds`` rounds of one run per arm, base first in even rounds (ABBA); per arm,
    the figures of each run. On one server, one untimed run per arm first: the first run
    on a new server meets a cold JIT, which would favour whichever arm came second."""
    runs: dict[str, list[dict[str, float]]] = {"base": [], "tree": []}
    for arm in ("base", "tree") if args.one_server else ():
        print(f"warm-up run {arm}: {figures(run_bench(trees[arm], args))}", flush=True)
    for round_ in range(args.rounds):
        order = ["base", "tree"] if round_ % 2 == 0 else ["tree", "base"]
        for arm in order:
            runs[arm].append(figures(run_bench(trees[arm], args)))
            print(f"round {round_ + 1} {arm}: {runs[arm][-1]}", flush=True)
        print(f"round {round_ + 1} tree / base: {round_ratios(runs)[-1]}", flush=True)
    return runs


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--base", required=True)
    parser.add_argument("--backend", choices=["sqlite", "neo4j"], default="sqlite")
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--samples", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--writers", type=int, default=2)
    parser.add_argument(
        "--warmup-loads", type=int, default=None, help="Neo4j: untimed loads per run first"
    )
    parser.add_argument(
        "--one-server",
        action="store_true",
        help="Neo4j: every run of both arms on one private server started here",
    )
    parser.add_argument("--publish", action="store_true")
    args = parser.parse_args(argv)
    if args.one_server and args.backend != "neo4j":
        parser.error("--one-server needs --backend neo4j")
    trees = {"base": harness(worktree(args.base)), "tree": ROOT}
    with ExitStack() as stack:
        if args.one_server:
            stack.enter_context(private_server(Settings()))
        runs = interleaved(trees, args)
    record = {
        "name": f"Graph benchmark, this tree vs {args.base} ({args.backend})",
        "command": " ".join([".venv/bin/python -m benchmarks.graph.commit_ab", *sys.argv[1:]]),
        "commit": head_commit(),
        "base": args.base,
        "date": datetime.now(UTC).date().isoformat(),
        "size": args.size,
        "rounds": args.rounds,
        "runs": runs,
        **summary(runs),
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = RESULTS / f"commit_ab_{args.backend}.json"
    out.write_text(json.dumps(record, indent=2), encoding="utf-8")
    print(json.dumps(record["ratios_tree_over_base"], indent=2))
    if args.publish:
        publish(record, args)


def publish(record: dict[str, Any], args: argparse.Namespace) -> None:
    """The summary in the published format (one README table row)."""
    ratios = record["ratios_tree_over_base"]
    reads = [v for k, v in ratios.items() if k.endswith("_p50_ms")]
    figures = {
        "ingest_ratio": ratios["ingest_facts_per_s"],
        "read_ratio_max": max(reads),
        "read_ratio_min": min(reads),
        "ratios": ratios,
        "ingest_round_ratios": [r["ingest_facts_per_s"] for r in record["round_ratios"]],
        "medians": record["medians"],
    }
    published = {
        key: record[key] for key in ("name", "command", "commit", "base", "date", "rounds")
    }
    published |= {
        "order": 9,
        "tuned_on": "nothing (a cost check of a change, not a tuned figure)",
        "evaluated_on": f"benchmarks.graph generated timelines, {args.size} facts, "
        f"{args.rounds} interleaved rounds per arm",
        "figures": figures,
        "table": [
            {
                "result": f"Cost of the change vs {args.base}, {args.backend} ({args.size} facts)",
                "figure": "ingest x{ingest_ratio}; temporal p50 x{read_ratio_min}-"
                "x{read_ratio_max} (this tree / base, median of per-round ratios)",
            }
        ],
    }
    name = PUBLISHED / f"scope_cost_{args.backend}.json"
    name.write_text(json.dumps(published, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
