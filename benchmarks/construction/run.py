"""Construction benchmark on one LOCOMO conversation (a subset of sessions by default).

Measures, for the turns ingested into a fresh SQLite store:
* coverage of LOCOMO's per-session "observation" annotations by the extracted facts: an
  observation counts as covered when some fact of the same session, rendered as a sentence
  ("Caroline attended event LGBTQ support group"), has cosine similarity >= --threshold
  with it (embeddings of the default search embedder, named in the results);
* entity duplicate rate: entities whose loose name (articles, possessives, case dropped)
  repeats another's, over all entities;
* date accuracy against the session dates: a fact's t_from is accurate when it lies on or
  before its session's anchor (or after it only when its evidence speaks of the future)
  and within 30 years before it; also how each date was found (rule, dateparser, model,
  anchor default) and how often the grounder corrected the model;
* LLM calls and tokens per turn (by stage), turns/s, and the storage share of wall time.

Usage (from the repo root):
    .venv/bin/python -m benchmarks.construction.run --sessions 2
    .venv/bin/python -m benchmarks.construction.run --model anthropic/claude-3-5-haiku-latest
The data path defaults to ../shared/data/locomo/locomo_dev5.json; when it is absent the
benchmark says so and exits 0. Results go to benchmarks/results/construction_locomo.json.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

from apexmem_neo.construction.candidates import loose_name
from apexmem_neo.construction.checkpoint import Checkpoint
from apexmem_neo.construction.loaders import load_locomo
from apexmem_neo.construction.pipeline import (
    ConstructionPipeline,
    PipelineConfig,
    RunStats,
    TurnReport,
)
from apexmem_neo.llm import make_lm
from apexmem_neo.search.embedder import SentenceTransformerEmbedder
from apexmem_neo.settings import Settings
from apexmem_neo.store.sqlite import SQLiteGraphStore

REPO = Path(__file__).resolve().parents[2]
DEFAULT_DATA = REPO.parent / "shared" / "data" / "locomo" / "locomo_dev5.json"
FUTURE = re.compile(
    r"\b(tomorrow|next|upcoming|coming|soon|will|going to|plan|in \w+ (days|weeks))\b"
)


def _args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--data", type=Path, default=DEFAULT_DATA)
    p.add_argument("--conversation", default="conv-26")
    p.add_argument("--sessions", type=int, default=2, help="first N sessions (subset)")
    p.add_argument("--limit", type=int, default=None, help="first N turns only")
    p.add_argument("--model", default=None, help="any LiteLLM model (default APEXMEM_LM)")
    p.add_argument("--api-base", default=None, help="default APEXMEM_LM_API_BASE for local")
    p.add_argument("--threshold", type=float, default=0.6, help="coverage cosine threshold")
    p.add_argument("--concurrency", type=int, default=1)
    p.add_argument(
        "--no-dense",
        action="store_true",
        help="resolve entities without dense (embedding) candidates",
    )
    p.add_argument("--db", type=Path, default=None, help="keep the graph in this file")
    p.add_argument("--out", type=Path, default=REPO / "benchmarks/results/construction_locomo.json")
    return p.parse_args(argv)


def _facts(store: SQLiteGraphStore) -> list[dict[str, Any]]:
    sql = (
        "SELECT en.name, f.property, f.value_json, f.t_from, t.anchor_datetime, t.session_id, "
        "ev.text FROM facts f JOIN entities en ON en.entity_id = f.entity_id "
        "JOIN evidence ev ON ev.evidence_id = f.evidence_id JOIN turns t ON t.turn_id = ev.turn_id"
    )
    keys = ("subject", "property", "value_json", "t_from", "anchor", "session_id", "evidence")
    return [dict(zip(keys, row, strict=True)) for row in store.connection.execute(sql)]


def _sentence(fact: dict[str, Any]) -> str:
    value = json.loads(fact["value_json"])
    return f"{fact['subject']} {fact['property'].replace('_', ' ')} {value}"


def coverage(
    sample: dict[str, Any], facts: list[dict[str, Any]], sessions: dict[int, str], threshold: float
) -> dict[str, Any]:
    embedder = SentenceTransformerEmbedder()
    observations = sample.get("observation", {})
    covered = total = 0
    for number, session_id in sessions.items():
        obs = [
            o[0]
            for per in observations.get(f"session_{number}_observation", {}).values()
            for o in per
        ]
        mine = [_sentence(f) for f in facts if f["session_id"] == session_id]
        total += len(obs)
        if not obs or not mine:
            continue
        a = np.array(embedder.embed(obs))
        b = np.array(embedder.embed(mine))
        covered += int(((a @ b.T).max(axis=1) >= threshold).sum())
    return {
        "observations": total,
        "covered": covered,
        "threshold": threshold,
        "coverage": covered / total if total else 0.0,
        "embedder": embedder.name,
    }


def duplicates(store: SQLiteGraphStore) -> dict[str, Any]:
    names = [r[0] for r in store.connection.execute("SELECT name FROM entities")]
    loose = Counter(loose_name(n) for n in names)
    dups = sum(c - 1 for c in loose.values())
    return {
        "entities": len(names),
        "duplicates": dups,
        "duplicate_rate": dups / len(names) if names else 0.0,
        "examples": [k for k, c in loose.items() if c > 1][:10],
    }


def dates(facts: list[dict[str, Any]], checkpoint: Checkpoint) -> dict[str, Any]:
    ok = 0
    for f in facts:
        day, anchor = f["t_from"][:10], f["anchor"][:10]
        future_ok = FUTURE.search(f["evidence"].lower()) is not None
        recent = int(anchor[:4]) - int(day[:4]) <= 30
        ok += int(recent and (day <= anchor or future_ok))
    times = [d for d in checkpoint.decisions() if d.kind == "time"]
    sources = Counter(d.decision for d in times)
    corrected = sum(1 for d in times if "model said" in d.rationale)
    return {
        "facts": len(facts),
        "accurate": ok,
        "accuracy": ok / len(facts) if facts else 0.0,
        "sources": dict(sources),
        "model_dates_corrected": corrected,
    }


def llm_breakdown(stats: RunStats) -> dict[str, Any]:
    turns = stats.processed or 1
    per_stage = {
        name: {"calls_per_turn": u["calls"] / turns, "tokens_per_turn": u["total_tokens"] / turns}
        for name, u in stats.llm.items()
    }
    return {
        "calls_per_turn": stats.llm_calls / turns,
        "tokens_per_turn": stats.tokens / turns,
        "by_stage": per_stage,
        "turns_per_second": turns / stats.wall_seconds if stats.wall_seconds else 0.0,
        "store_share_of_wall": stats.store_seconds / stats.wall_seconds
        if stats.wall_seconds
        else 0.0,
    }


def _progress(report: TurnReport, stats: RunStats) -> None:
    print(
        f"{stats.processed}/{stats.turns_total} {report.source_key} {report.status} "
        f"calls={report.llm_calls} facts={report.facts} wall={stats.wall_seconds:.0f}s",
        flush=True,
    )


def main(argv: list[str] | None = None) -> int:
    args = _args(argv)
    if not args.data.is_file():
        print(f"LOCOMO data not found at {args.data}; skipping the construction benchmark.")
        return 0
    settings = Settings()
    model = args.model or settings.lm
    base, key = settings.lm_endpoint() if model == settings.lm else (None, None)
    lm = make_lm(model, args.api_base or base, key)
    turns = load_locomo(args.data, [args.conversation], args.sessions)[: args.limit]
    sample = next(
        s for s in json.loads(args.data.read_text()) if s["sample_id"] == args.conversation
    )
    sessions = {t.session_seq: t.session_id for t in turns}
    db = args.db or Path(tempfile.mkdtemp(prefix="apexmem-bench-")) / "graph.sqlite"
    store, checkpoint = SQLiteGraphStore(db), Checkpoint(db)
    store.init_schema()
    checkpoint.open()
    config = PipelineConfig(concurrency=args.concurrency)
    embedder = None if args.no_dense else SentenceTransformerEmbedder()
    pipeline = ConstructionPipeline(
        store, checkpoint, lm, config, on_turn=_progress, embedder=embedder
    )
    pipeline.ingest(turns, str(args.data))
    # Every run on this file, so a benchmark resumed after a kill counts all its turns.
    runs = [RunStats.model_validate(r) for r in checkpoint.runs()]
    stats = RunStats.combined(runs)
    facts = _facts(store)
    result = {
        "subset": {
            "conversation": args.conversation,
            "sessions": sorted(sessions),
            "turns": len(turns),
        },
        "model": model,
        "dense_candidates": not args.no_dense,
        "runs": len(runs),
        "run": stats.model_dump(),
        "llm": llm_breakdown(stats),
        "coverage": coverage(sample, facts, sessions, args.threshold),
        "entities": duplicates(store),
        "dates": dates(facts, checkpoint),
        "failed_turns": [f.model_dump() for f in checkpoint.failed()],
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2))
    print(
        json.dumps(
            {k: result[k] for k in ("subset", "llm", "coverage", "entities", "dates")}, indent=2
        )
    )
    print(f"written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
