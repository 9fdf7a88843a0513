"""The local embedder's runtime, A/B in one run: torch (sentence-transformers), ONNX Runtime
float32 (the library's choice) and ONNX Runtime with int8 weights (a benchmark-only arm).

For each arm: the start-up a command pays (a fresh process that imports the runtime, loads the
model and embeds one query; runs interleaved across arms), query latency (one short text at a
time, warm) and documents per second; for the two runtimes a user can choose, the whole
``apexmem search`` command and a process's first ``add``; and LOCOMO dev turn-evidence
recall of hybrid search with that arm's own vectors (no embedding cache), on the embedded
index.

    .venv/bin/python -m benchmarks.search.embed_runtime --data locomo10.json \
        [--rounds 5] [--publish]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from apexmem_neo.search.embedder import DEFAULT_MODEL, local_embedder
from apexmem_neo.search.engine import HybridSearch
from apexmem_neo.search.onnx_embedder import OnnxEmbedder, onnx_path, read_layout
from apexmem_neo.search.packaged_models import resolve_model
from apexmem_neo.search.protocol import Embedder, EmbedRuntime
from benchmarks.locomo.data import add_data_argument, locomo_data
from benchmarks.memory import head_commit
from benchmarks.search import common, locomo
from benchmarks.search.locomo_recall import evaluate

ARMS = ("torch", "onnx", "onnx-int8")
PUBLISHED = Path(__file__).resolve().parents[1] / "published" / "embed_runtime.json"
QUERY = "When did Caroline go to the LGBTQ support group?"


def arm_embedder(arm: str, model: str) -> Embedder:
    """The embedder of ``arm``; the int8 arm quantises the float32 export once."""
    models_dir = common.SETTINGS.models_dir
    if arm in ("torch", "onnx"):
        return local_embedder(model, models_dir, runtime=arm)  # type: ignore[arg-type]
    layout = read_layout(Path(resolve_model(model, models_dir)))
    assert layout is not None, f"{model} is not a model the ONNX runtime runs"
    fp32 = onnx_path(model, layout, models_dir)
    int8 = fp32.with_name("model-int8.onnx")
    if not int8.exists():
        local_embedder(model, models_dir, runtime="onnx").embed(["export"])
        from onnxruntime.quantization import QuantType, quantize_dynamic

        quantize_dynamic(str(fp32), str(int8), weight_type=QuantType.QInt8)
    return OnnxEmbedder(f"{model}-int8", layout, int8)


def child(arm: str, model: str) -> None:
    """One cold start: import, load and embed one query; print the seconds as JSON."""
    started = time.perf_counter()
    embedder = arm_embedder(arm, model)
    embedder.embed([QUERY])
    print(json.dumps({"first_vector_s": time.perf_counter() - started}))


def cold_starts(model: str, rounds: int) -> dict[str, list[float]]:
    """Whole-process seconds of ``rounds`` cold starts per arm, the arms interleaved."""
    out: dict[str, list[float]] = {arm: [] for arm in ARMS}
    for arm in ARMS:  # once untimed: exports and quantises, warms the file cache
        _run_child(arm, model)
    for _ in range(rounds):
        for arm in ARMS:
            started = time.perf_counter()
            _run_child(arm, model)
            out[arm].append(time.perf_counter() - started)
    return out


def _run_child(arm: str, model: str) -> None:
    command = [sys.executable, "-m", "benchmarks.search.embed_runtime", "--child", arm]
    subprocess.run([*command, "--model", model], check=True, capture_output=True)


USER_ARMS = ("torch", "onnx")
"""The runtimes a user can choose (APEXMEM_EMBED_RUNTIME); the int8 arm is not one."""


def child_add(runtime: EmbedRuntime, home: str) -> None:
    """A process's first ``add``: import, open a memory and add one turn (no extraction)."""
    started = time.perf_counter()
    from apexmem_neo import Memory

    memory = Memory.sqlite(f"{home}/add.sqlite", lm=None, home=home, embed_runtime=runtime)
    memory.add(
        {"role": "user", "content": f"I moved to Lisbon at {time.time()}."},
        scope="s",
        extract=False,
    )
    memory.close()
    print(json.dumps({"first_add_s": time.perf_counter() - started}))


def user_commands(rounds: int) -> dict[str, dict[str, list[float]]]:
    """Whole-process seconds of ``apexmem search`` (a new query each time, so the embedding
    cache misses) and of a process's first ``add``, per user runtime, interleaved."""
    import tempfile

    from apexmem_neo import Memory

    home = tempfile.mkdtemp(prefix="embed_runtime_")
    db = f"{home}/search.sqlite"
    seed = Memory.sqlite(db, lm=None, home=home)
    seed.add(
        [{"role": "user", "content": "Sakura Sushi is my favourite restaurant now."}],
        scope="s",
        extract=False,
    )
    seed.close()
    apexmem = str(Path(sys.executable).with_name("apexmem"))
    out: dict[str, dict[str, list[float]]] = {
        r: {"search_s": [], "first_add_s": []} for r in USER_ARMS
    }
    for round_ in range(rounds + 1):  # round 0 is untimed: warms the file cache
        for runtime in USER_ARMS:
            env = {**os.environ, "APEXMEM_EMBED_RUNTIME": runtime, "APEXMEM_HOME": home}
            search = [
                apexmem,
                "search",
                f"favourite place {runtime} {round_}",
                "--db",
                db,
                "--scope",
                "s",
                "--k",
                "1",
            ]
            add = [
                sys.executable,
                "-m",
                "benchmarks.search.embed_runtime",
                "--child-add",
                runtime,
                "--home",
                home,
            ]
            for key, command in (("search_s", search), ("first_add_s", add)):
                started = time.perf_counter()
                subprocess.run(command, check=True, capture_output=True, env=env)
                if round_:
                    out[runtime][key].append(time.perf_counter() - started)
    return out


def speed(embedder: Embedder, queries: int = 50, docs: int = 256) -> dict[str, float]:
    """Warm query latency (one text per call) and documents per second (batched)."""
    embedder.embed(["warm up"])
    latencies = []
    for i in range(queries):
        started = time.perf_counter()
        embedder.embed([f"When did Caroline go to support group number {i}?"])
        latencies.append(1000 * (time.perf_counter() - started))
    texts = [f"Caroline: I went to the support group number {i}, so powerful." for i in range(docs)]
    started = time.perf_counter()
    embedder.embed(texts)
    return {
        "query_p50_ms": statistics.median(latencies),
        "docs_per_s": docs / (time.perf_counter() - started),
    }


def recall(embedder: Embedder, convs: list[locomo.Conversation]) -> dict[str, float]:
    """Hybrid search's LOCOMO turn recall with ``embedder``'s vectors, on the embedded index."""
    index, close = common.make_index("embedded", "", "", "embed_runtime")
    try:
        search = HybridSearch(index, embedder)
        search.create()
        for conv in convs:
            search.index_documents(conv.documents)
        return evaluate(search, convs)
    finally:
        close()


def run(args: argparse.Namespace) -> dict[str, Any]:
    convs = locomo.load(args.data)
    starts = cold_starts(args.model, args.rounds)
    commands = user_commands(args.rounds)
    print("user commands", commands, flush=True)
    arms: dict[str, Any] = {}
    for arm in ARMS:
        embedder = arm_embedder(arm, args.model)
        row: dict[str, Any] = {
            "cold_start_s": statistics.median(starts[arm]),
            "cold_starts_s": starts[arm],
        }
        for key, seconds in commands.get(arm, {}).items():
            row[key], row[f"{key}_all"] = statistics.median(seconds), seconds
        row.update(speed(embedder))
        row.update(recall(embedder, convs))
        arms[arm] = row
        print(arm, {k: v for k, v in row.items() if not k.endswith(("s_s", "_all"))}, flush=True)
    return {"model": args.model, "rounds": args.rounds, "arms": arms}


def publish(result: dict[str, Any], saved: Path) -> None:
    """Write the headline file from ``result`` (the run saved at ``saved``)."""
    commit = head_commit()
    arms = result["arms"]
    figures: dict[str, Any] = {
        arm: {
            "cold_start_s": round(row["cold_start_s"], 2),
            "cold_start_min_max_s": [
                round(min(row["cold_starts_s"]), 2),
                round(max(row["cold_starts_s"]), 2),
            ],
            "query_p50_ms": round(row["query_p50_ms"], 1),
            "docs_per_s": round(row["docs_per_s"], 1),
            "r5": round(row["R@5"], 3),
            "r10": round(row["R@10"], 3),
            "r20": round(row["R@20"], 3),
            **{key: round(row[key], 2) for key in ("search_s", "first_add_s") if key in row},
        }
        for arm, row in arms.items()
    }
    figures["questions"] = int(arms["onnx"]["questions"])
    figures["start_ratio_torch_over_onnx"] = round(
        arms["torch"]["cold_start_s"] / arms["onnx"]["cold_start_s"], 2
    )
    payload = {
        "order": 6,
        "name": "The local embedder's runtime: torch vs ONNX Runtime (float32, int8)",
        "command": ".venv/bin/python -m benchmarks.search.embed_runtime "
        f"--rounds {result['rounds']} (published with --from-results "
        f"benchmarks/results/{saved.name})",
        "commit": commit,
        "date": datetime.now(UTC).strftime("%Y-%m-%d"),
        "embedder": result["model"],
        "tuned_on": "nothing: the runtimes run the same packaged weights; no setting was chosen "
        "on this data",
        "evaluated_on": "start-up: a fresh process that imports, loads and embeds one query, "
        f"{result['rounds']} interleaved rounds per arm; recall: LOCOMO dev (conv-26, conv-30, "
        "conv-41, conv-42, conv-43), questions of categories 1-4, hybrid search on the "
        "embedded index with each arm's own vectors",
        "figures": figures,
        "table": [
            {
                "result": "Embedder start-up, torch -> ONNX (median cold process, s)",
                "figure": "{torch[cold_start_s]:.2f} -> {onnx[cold_start_s]:.2f} "
                "(x{start_ratio_torch_over_onnx:.1f}); R@10 {torch[r10]:.3f} -> {onnx[r10]:.3f}",
            },
            {
                "result": "`apexmem search` / a process's first add, torch -> ONNX (median, s)",
                "figure": "{torch[search_s]:.2f} -> {onnx[search_s]:.2f} / "
                "{torch[first_add_s]:.2f} -> {onnx[first_add_s]:.2f}",
            },
        ],
        "notes": "Recall is a mean over questions, not a proportion, so it has no interval; "
        "the cold starts are medians of interleaved rounds on a shared machine (min and max "
        "given). The library runs float32 ONNX: its vectors are torch's, so indexes and the "
        "embedding cache stay valid; the int8 arm is measured for comparison only.",
    }
    PUBLISHED.write_text(json.dumps(payload, indent=1) + "\n")
    print("wrote", PUBLISHED)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--child", choices=ARMS, help=argparse.SUPPRESS)
    parser.add_argument("--child-add", choices=USER_ARMS, help=argparse.SUPPRESS)
    parser.add_argument("--home", help=argparse.SUPPRESS)
    parser.add_argument("--model", default=DEFAULT_MODEL)
    add_data_argument(parser)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--publish", action="store_true")
    parser.add_argument(
        "--from-results",
        type=Path,
        help="publish a saved run (benchmarks/results/embed_runtime.json) instead of running",
    )
    args = parser.parse_args(argv)
    if args.child:
        child(args.child, args.model)
        return 0
    if args.child_add:
        child_add(args.child_add, args.home)
        return 0
    if args.from_results:
        publish(json.loads(args.from_results.read_text()), args.from_results)
        return 0
    args.data = locomo_data(args.data)
    result = run(args)
    saved = common.write_json("embed_runtime.json", result)
    print("wrote", saved)
    if args.publish:
        publish(result, saved)
    return 0


if __name__ == "__main__":
    sys.exit(main())
