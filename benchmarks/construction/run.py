"""Construction benchmark: pipeline arms on the same LOCOMO turns, interleaved by session.

Arms: ``compact`` (the default pipeline: ExtractCompact) and ``baseline`` (the earlier
pipeline: ExtractEvent, whose output also carries dtypes, model dates and confidences; with
``--baseline-api-base``, against a second server started with the earlier settings).
The first ``--compare-sessions`` sessions are ingested by every arm, alternating which arm
goes first, each into its own store; the remaining sessions only by the first arm (for
coverage). Before each arm's session one untimed call warms the
server's prompt cache with that arm's prompt, as a long-running ingest keeps it warm.

Per arm, for the turns it ingested into its fresh SQLite store:
* coverage of LOCOMO's per-session "observation" annotations by the extracted facts: an
  observation counts as covered when some fact of the same session, rendered as a sentence
  ("Caroline attended event LGBTQ support group"), has cosine similarity >= --threshold
  with it (embeddings of the default search embedder, named in the results);
* entity duplicate rate: entities whose loose name (articles, possessives, case dropped)
  repeats another's, over all entities;
* date accuracy against the session dates: a fact's t_from is accurate when it lies on or
  before its session's anchor (or after it only when its evidence speaks of the future)
  and within 30 years before it; also how each date was found;
* LLM calls, tokens and seconds per turn on the compared sessions; ``speedup`` is the
  baseline's seconds per turn over each other arm's, with the per-session ratios beside it.

Usage (from the repo root):
    .venv/bin/python -m benchmarks.construction.run --data locomo10.json \\
        --conversation conv-30 --sessions 10 \\
        --compare-sessions 3 --arms compact,baseline --publish
``--data`` names the LOCOMO file (default ``$APEXMEM_LOCOMO_DATA``); without one the run
stops with one line naming the fix. Results go to
benchmarks/results/construction_locomo.json; ``--publish`` writes
benchmarks/published/construction.json.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import dspy
import numpy as np
from rapidfuzz import fuzz

from apexmem_neo.construction.candidates import loose_name
from apexmem_neo.construction.checkpoint import Checkpoint
from apexmem_neo.construction.loaders import TurnInput, load_locomo
from apexmem_neo.construction.pipeline import (
    ConstructionPipeline,
    PipelineConfig,
    RunStats,
    TurnReport,
)
from apexmem_neo.llm import make_lm
from apexmem_neo.ontology.lexicon import offered_properties
from apexmem_neo.search.embedder import SentenceTransformerEmbedder
from apexmem_neo.settings import Settings
from apexmem_neo.store.sqlite import SQLiteGraphStore
from benchmarks.locomo.data import add_data_argument, locomo_data, portable_command
from benchmarks.memory import head_commit, portable_args

REPO = Path(__file__).resolve().parents[2]
PUBLISHED = REPO / "benchmarks" / "published" / "construction.json"
FUTURE = re.compile(
    r"\b(tomorrow|next|upcoming|coming|soon|will|going to|plan|in \w+ (days|weeks))\b"
)
WARM_ANCHOR = "2024-01-01T12:00:00"
TEXT_DTYPES = frozenset({"str", "enum"})


def _args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_data_argument(p)
    p.add_argument("--conversation", default="conv-26")
    p.add_argument("--sessions", type=int, default=2, help="first N sessions (subset)")
    p.add_argument("--limit", type=int, default=None, help="first N turns only")
    p.add_argument("--arms", default="compact", help="comma-separated: compact, baseline")
    p.add_argument(
        "--compare-sessions",
        type=int,
        default=None,
        help="sessions every arm ingests (default all); the rest only the first arm",
    )
    p.add_argument("--model", default=None, help="any LiteLLM model (default APEXMEM_LM)")
    p.add_argument("--api-base", default=None, help="default APEXMEM_LM_API_BASE for local")
    p.add_argument(
        "--baseline-api-base",
        default=None,
        help="the server the baseline arm uses (a second server with the earlier settings)",
    )
    p.add_argument("--threshold", type=float, default=0.6, help="coverage cosine threshold")
    p.add_argument("--concurrency", type=int, default=1)
    p.add_argument(
        "--no-dense",
        action="store_true",
        help="resolve entities without dense (embedding) candidates",
    )
    p.add_argument("--db-dir", type=Path, default=None, help="keep each arm's graph here")
    p.add_argument("--out", type=Path, default=REPO / "benchmarks/results/construction_locomo.json")
    p.add_argument("--publish", action="store_true", help=f"write {PUBLISHED.name}")
    p.add_argument(
        "--from-results",
        type=Path,
        default=None,
        help="no ingest: measure the stores in --db-dir again for this results file's timings",
    )
    return p.parse_args(argv)


def _facts(store: SQLiteGraphStore) -> list[dict[str, Any]]:
    sql = (
        "SELECT en.name, f.property, f.value_json, f.dtype, f.t_from, t.anchor_datetime, "
        "t.session_id, ev.text, t.text FROM facts f JOIN entities en ON en.entity_id = f.entity_id "
        "JOIN evidence ev ON ev.evidence_id = f.evidence_id JOIN turns t ON t.turn_id = ev.turn_id"
    )
    keys = (
        "subject", "property", "value_json", "dtype", "t_from", "anchor", "session_id",
        "evidence", "turn_text",
    )  # fmt: skip
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


SAID_SCORE = 90
"""rapidfuzz partial_ratio from which a value counts as said in a text (case and small
inflections allowed)."""


def value_said(value: object, text: str) -> bool:
    """Whether ``value`` is said in ``text`` (fuzzy: "dance studios" is said in "a dance
    studio"); a value the extractor did not find in its turn was copied or made up."""
    return fuzz.partial_ratio(str(value).casefold(), text.casefold()) >= SAID_SCORE


def grounded(facts: list[dict[str, Any]]) -> dict[str, Any]:
    """How many text-valued facts say a value found in their own turn: a precision proxy
    (a value only in the context, or in no turn, was copied or made up; paraphrases count
    against it too, so it is a lower bound)."""
    text_facts = [f for f in facts if f["dtype"] in TEXT_DTYPES]
    found = sum(value_said(json.loads(f["value_json"]), f["turn_text"]) for f in text_facts)
    n = len(text_facts)
    return {"text_facts": n, "grounded": found, "share": found / n if n else 0.0}


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
    prompt = sum(int(u.get("prompt_tokens", 0)) for u in stats.llm.values())
    completion = sum(int(u.get("completion_tokens", 0)) for u in stats.llm.values())
    return {
        "turns": stats.processed,
        "seconds_per_turn": stats.wall_seconds / turns,
        "calls_per_turn": stats.llm_calls / turns,
        "tokens_per_turn": stats.tokens / turns,
        "prompt_tokens_per_turn": prompt / turns,
        "completion_tokens_per_turn": completion / turns,
        "by_stage": per_stage,
        "store_share_of_wall": stats.store_seconds / stats.wall_seconds
        if stats.wall_seconds
        else 0.0,
    }


@dataclass
class Arm:
    """One pipeline variant with its own store, checkpoint and per-session run stats."""

    name: str
    pipeline: ConstructionPipeline
    store: SQLiteGraphStore
    checkpoint: Checkpoint
    sessions: dict[int, RunStats] = field(default_factory=dict)

    def warm(self) -> None:
        """One untimed call with this arm's prompt, so the server's prompt cache holds it."""
        pipeline = self.pipeline
        known = offered_properties([])
        with dspy.context(lm=pipeline.runner.lm, adapter=pipeline.runner.adapter):
            extractor = pipeline.compact_extractor
            if pipeline.config.extraction == "full":
                extractor = pipeline.full_extractor
            extractor(
                speaker="Ann", listener="Ben", text="Hi!", anchor=WARM_ANCHOR,
                known_properties=known,
            )  # fmt: skip


def _arm_configs(args: argparse.Namespace) -> dict[str, PipelineConfig]:
    configs = {
        "compact": PipelineConfig(concurrency=args.concurrency),
        "baseline": PipelineConfig(concurrency=args.concurrency, extraction="full"),
        "compact-common": PipelineConfig(concurrency=args.concurrency, known_properties="common"),
    }
    return configs


def _make_arms(args: argparse.Namespace, db_dir: Path) -> list[Arm]:
    settings = Settings()
    model = args.model or settings.lm
    base, key = settings.lm_endpoint() if model == settings.lm else (None, None)
    configs = _arm_configs(args)
    names = [n.strip() for n in args.arms.split(",") if n.strip()]
    unknown = [n for n in names if n not in configs]
    if unknown:
        raise SystemExit(f"unknown arm(s) {', '.join(unknown)}; known: {', '.join(configs)}")
    embedder = None if args.no_dense else SentenceTransformerEmbedder()
    arms = []
    for name in names:
        api_base = args.api_base or base
        if name == "baseline" and args.baseline_api_base:
            api_base = args.baseline_api_base
        db = db_dir / f"{name}.sqlite"
        store, checkpoint = SQLiteGraphStore(db), Checkpoint(db)
        store.init_schema()
        checkpoint.open()
        pipeline = ConstructionPipeline(
            store,
            checkpoint,
            make_lm(model, api_base, key),
            configs[name],
            on_turn=_progress(name),
            embedder=embedder,
        )
        arms.append(Arm(name, pipeline, store, checkpoint))
    return arms


def _progress(arm: str) -> Any:
    def show(report: TurnReport, stats: RunStats) -> None:
        print(
            f"[{arm}] {stats.processed}/{stats.turns_total} {report.source_key} "
            f"{report.status} calls={report.llm_calls} facts={report.facts} "
            f"wall={stats.wall_seconds:.0f}s",
            flush=True,
        )

    return show


def ingest_interleaved(
    arms: list[Arm], turns: list[TurnInput], compare: int, source: str
) -> list[int]:
    """Every arm ingests the first ``compare`` sessions (the first arm first on even ones), the
    first arm alone the rest; returns the compared session numbers."""
    by_session: dict[int, list[TurnInput]] = {}
    for item in turns:
        by_session.setdefault(item.session_seq, []).append(item)
    compared = sorted(by_session)[:compare]
    for position, seq in enumerate(sorted(by_session)):
        these = arms if seq in compared else arms[:1]
        for arm in these if position % 2 == 0 else list(reversed(these)):
            arm.warm()
            arm.sessions[seq] = arm.pipeline.ingest(by_session[seq], f"{source}#session_{seq}")
    return compared


def arm_summary(
    arm: Arm, sample: dict[str, Any], sessions: dict[int, str], compared: list[int], args: Any
) -> dict[str, Any]:
    on_compared = [arm.sessions[seq] for seq in compared if seq in arm.sessions]
    return {
        "sessions": sorted(arm.sessions),
        "compared": llm_breakdown(RunStats.combined(on_compared)) if on_compared else None,
        "all": llm_breakdown(RunStats.combined(list(arm.sessions.values()))),
        "seconds_per_session": {
            seq: [stats.processed, stats.wall_seconds] for seq, stats in arm.sessions.items()
        },
        **stored_metrics(
            arm.store,
            arm.checkpoint,
            sample,
            sessions,
            sorted(arm.sessions),
            compared,
            args.threshold,
        ),
    }


def stored_metrics(
    store: SQLiteGraphStore,
    checkpoint: Checkpoint,
    sample: dict[str, Any],
    sessions: dict[int, str],
    ran: list[int],
    compared: list[int],
    threshold: float,
) -> dict[str, Any]:
    """What an arm's store holds: coverage (over its sessions and over the compared ones),
    grounded facts, entity duplicates, dates and failed turns."""
    facts = _facts(store)
    both = {seq: sessions[seq] for seq in compared if seq in ran}
    return {
        "coverage": coverage(sample, facts, {seq: sessions[seq] for seq in ran}, threshold),
        "coverage_compared": coverage(sample, facts, both, threshold),
        "grounded": grounded(facts),
        "grounded_compared": grounded([f for f in facts if f["session_id"] in both.values()]),
        "entities": duplicates(store),
        "dates": dates(facts, checkpoint),
        "failed_turns": len(checkpoint.failed()),
    }


def speedups(summaries: dict[str, dict[str, Any]], compared: list[int]) -> dict[str, Any]:
    """Baseline seconds per turn over each other arm's, overall and per compared session."""
    if "baseline" not in summaries:
        return {}
    base = summaries["baseline"]
    result: dict[str, Any] = {}
    for name, summary in summaries.items():
        if name == "baseline" or summary["compared"] is None:
            continue
        per_session = []
        for seq in compared:
            (bn, bs), (n, s) = base["seconds_per_session"][seq], summary["seconds_per_session"][seq]
            per_session.append(round((bs / bn) / (s / n), 3) if bn and n and s else None)
        overall = base["compared"]["seconds_per_turn"] / summary["compared"]["seconds_per_turn"]
        result[name] = {"speedup": round(overall, 3), "per_session": per_session}
    return result


def _share(cov: dict[str, Any]) -> dict[str, Any]:
    covered, n = cov["covered"], cov["observations"]
    return {"successes": covered, "n": n, "rate": round(covered / n, 3) if n else 0.0}


def publish(record: dict[str, Any], args: argparse.Namespace) -> None:
    """The headline summary of the compact arm against the baseline, in the published format."""
    from benchmarks.published_results import wilson

    compact, base = record["arms"]["compact"], record["arms"].get("baseline")
    covered, observed = compact["coverage"]["covered"], compact["coverage"]["observations"]
    accurate, dated = compact["dates"]["accurate"], compact["dates"]["facts"]
    figures = {
        "turns": compact["all"]["turns"],
        "compared_turns": compact["compared"]["turns"] if compact["compared"] else 0,
        "seconds_per_turn": {
            name: round(arm["compared"]["seconds_per_turn"], 2)
            for name, arm in record["arms"].items()
            if arm["compared"]
        },
        "speedup": record["speedup"].get("compact", {}).get("speedup"),
        "speedup_per_session": record["speedup"].get("compact", {}).get("per_session"),
        "llm_calls_per_turn": round(compact["all"]["calls_per_turn"], 3),
        "completion_tokens_per_turn": round(compact["all"]["completion_tokens_per_turn"], 1),
        "coverage": {"successes": covered, "n": observed, "rate": round(covered / observed, 3)},
        "date_accuracy": {"successes": accurate, "n": dated, "rate": round(accurate / dated, 3)},
    }
    mine = compact["grounded"]
    figures["grounded_share"] = round(mine["share"], 3)
    if base is not None:
        figures["baseline_llm_calls_per_turn"] = round(base["compared"]["calls_per_turn"], 3)
        figures["coverage_compared"] = _share(compact["coverage_compared"])
        figures["baseline_coverage"] = _share(base["coverage"])
        figures["baseline_date_accuracy"] = round(base["dates"]["accuracy"], 3)
        figures["grounded_share_compared"] = round(compact["grounded_compared"]["share"], 3)
        figures["baseline_grounded_share"] = round(base["grounded"]["share"], 3)
    published = {
        "order": 4,
        "name": "Memory construction: compact extraction vs the earlier (full) extraction",
        "command": portable_command(record["command"]),
        "commit": record["commit"],
        "date": record["date"],
        "model": record["model"],
        "tuned_on": "prompts and demos written on generated turns and the Alice sample; the "
        "compact schema (and the rejected multi-turn windows) tried on conv-26 session 1; the "
        "output form without quotes or mentions chosen by generated tokens and fact counts on "
        "conv-30's first 16 turns (benchmarks.construction.output_cost); rejected alternatives "
        "(quotes kept, only common properties offered) compared on conv-30 sessions 1-2, the "
        "turns the speed is measured on",
        "evaluated_on": f"LOCOMO {args.conversation} sessions 1-{args.sessions} "
        f"({figures['turns']} turns; speed on sessions 1-{len(record['compared'])}, "
        f"{figures['compared_turns']} turns, both arms interleaved by session)",
        "figures": figures,
        "ci95": {
            "coverage": list(wilson(covered, observed)),
            "date_accuracy": list(wilson(accurate, dated)),
        },
        "table": [
            {
                "result": "Construction speed, compact extraction vs the earlier one",
                "figure": "x{speedup} faster ({seconds_per_turn[compact]} vs "
                "{seconds_per_turn[baseline]} s per turn, {llm_calls_per_turn} LLM calls "
                "per turn)",
            },
            {
                "result": "Construction: observations covered (n={coverage[n]})",
                "figure": "{coverage[rate]:.1%} (on the compared sessions "
                "{coverage_compared[successes]}/{coverage_compared[n]}, the earlier extraction "
                "{baseline_coverage[successes]}/{baseline_coverage[n]})",
                "ci95": "coverage",
            },
            {
                "result": "Construction: text facts whose value is said in their turn",
                "figure": "{grounded_share:.1%} (on the compared sessions "
                "{grounded_share_compared:.1%}, the earlier extraction "
                "{baseline_grounded_share:.1%})",
            },
            {
                "result": "Construction: fact dates plausible (n={date_accuracy[n]})",
                "figure": "{date_accuracy[rate]:.1%} (the earlier extraction: "
                "{baseline_date_accuracy:.1%})",
                "ci95": "date_accuracy",
            },
        ],
    }
    published["notes"] = (
        "The baseline arm ran against a second llama-server started with the earlier "
        "settings (one slot, 8k context); the compact arm against the project's server "
        "(two slots). Only one arm ran at a time."
        if args.baseline_api_base
        else "Both arms ran against the project's llama-server (two slots), one arm at a "
        "time; before each arm's session one untimed call warmed the server's prompt cache."
    )
    PUBLISHED.write_text(json.dumps(published, indent=2) + "\n", encoding="utf-8")


def measured(
    args: argparse.Namespace,
    turns: list[TurnInput],
    sample: dict[str, Any],
    sessions: dict[int, str],
) -> dict[str, Any]:
    """Every arm ingests the turns (interleaved by session) and is measured."""
    commit = head_commit()  # the code the run started with
    db_dir = args.db_dir or Path(tempfile.mkdtemp(prefix="apexmem-bench-"))
    db_dir.mkdir(parents=True, exist_ok=True)
    arms = _make_arms(args, db_dir)
    compare = args.compare_sessions if args.compare_sessions is not None else len(sessions)
    compared = ingest_interleaved(arms, turns, compare, str(args.data))
    summaries = {arm.name: arm_summary(arm, sample, sessions, compared, args) for arm in arms}
    return {
        "command": " ".join(
            [".venv/bin/python -m benchmarks.construction.run", *portable_args(sys.argv[1:])]
        ),
        "commit": commit,
        "date": datetime.now(UTC).date().isoformat(),
        "model": arms[0].pipeline.runner.lm.model,
        "conversation": args.conversation,
        "compared": compared,
        "dense_candidates": not args.no_dense,
        "arms": summaries,
        "speedup": speedups(summaries, compared),
    }


def remeasured(
    args: argparse.Namespace, sample: dict[str, Any], sessions: dict[int, str]
) -> dict[str, Any]:
    """A results file's record with its arms' stores (in --db-dir) measured again by today's
    metrics; its timings are kept as they were."""
    if args.db_dir is None:
        raise SystemExit("error: --from-results needs the --db-dir the run kept its stores in")
    record: dict[str, Any] = json.loads(args.from_results.read_text(encoding="utf-8"))
    for name, summary in record["arms"].items():
        db = args.db_dir / f"{name}.sqlite"
        if not db.is_file():
            raise SystemExit(f"error: no store of arm {name!r} at {db}")
        store, checkpoint = SQLiteGraphStore(db), Checkpoint(db)
        store.init_schema()  # opens the kept store; its schema is already there
        checkpoint.open()
        try:
            summary.update(
                stored_metrics(
                    store, checkpoint, sample, sessions,
                    summary["sessions"], record["compared"], args.threshold,
                )
            )  # fmt: skip
        finally:
            checkpoint.close()
            store.close()
    return record


def main(argv: list[str] | None = None) -> int:
    args = _args(argv)
    args.data = locomo_data(args.data)
    turns = load_locomo(args.data, [args.conversation], args.sessions)[: args.limit]
    sample = next(
        s for s in json.loads(args.data.read_text()) if s["sample_id"] == args.conversation
    )
    sessions = {t.session_seq: t.session_id for t in turns}
    if args.from_results is not None:
        record = remeasured(args, sample, sessions)
    else:
        record = measured(args, turns, sample, sessions)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(record, indent=2, default=str))
    brief = {
        name: {k: s[k] for k in ("compared", "coverage", "coverage_compared", "grounded", "dates")}
        for name, s in record["arms"].items()
    }
    print(json.dumps({"arms": brief, "speedup": record["speedup"]}, indent=2, default=str))
    print(f"written to {args.out}")
    if args.publish:
        publish(record, args)
        print(f"published to {PUBLISHED}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
