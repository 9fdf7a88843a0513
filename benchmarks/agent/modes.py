"""Fast path vs ReAct vs auto on the toy temporal memory, through the configured LM.

    python -m benchmarks.agent.modes [--modes fast,react] [--questions 0,3,6] [--max-iters 6]
    python -m benchmarks.agent.modes --memory heldout --modes fast --out .../agent_heldout.json

The memory is the Alice sample with gold facts (``benchmarks.agent.toy``), so only
answering is measured: a SQLite store and the embedded search index (the CLI's default
embedder, cached under APEXMEM_HOME) in a temporary folder. Modes run interleaved, question
by question; ``auto`` is derived from the fast and react runs (``derived_auto``) unless it is
named in --modes. For every mode and question:
correct (gold substring), LLM calls, tool calls, tokens and seconds. Prints a summary and a
per-question table and writes benchmarks/results/agent_modes.json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from rich.console import Console
from rich.table import Table

from apexmem_neo.agent import AgentConfig, MemoryAgent, build_tools
from apexmem_neo.agent.models import Mode
from apexmem_neo.llm import make_lm
from apexmem_neo.memory.views import ScopedSearcher
from apexmem_neo.ontology import GraphBatch
from apexmem_neo.ontology.ids import DEFAULT_SCOPE
from apexmem_neo.search import HybridSearch, documents_from_batch
from apexmem_neo.search.backends.embedded import EmbeddedIndex
from apexmem_neo.search.embedder import make_embedder
from apexmem_neo.settings import Settings
from apexmem_neo.store.sqlite import SQLiteGraphStore
from apexmem_neo.tools import SQLiteQueryBackend
from benchmarks.agent.heldout import heldout_memory
from benchmarks.agent.toy import QUESTIONS, Question, toy_batch

RESULTS = Path(__file__).resolve().parents[1] / "results"
console = Console()


def _run_one(agent: MemoryAgent, q: Question, mode: Mode) -> dict[str, Any]:
    res = agent.ask(q.question, q.date, mode=mode)
    return {
        "mode": mode,
        "kind": q.kind,
        "question": q.question,
        "gold": list(q.gold),
        "answer": res.answer,
        "correct": q.correct(res.answer) and res.error is None,
        "answered_by": res.mode,
        "enough_context": res.enough_context,
        "derived": False,
        "llm_calls": res.llm_calls,
        "tool_calls": res.tool_calls,
        "tokens": res.tokens.get("total_tokens", 0),
        "seconds": res.seconds,
        "error": res.error,
    }


def derived_auto(fast: dict[str, Any], react: dict[str, Any]) -> dict[str, Any]:
    """What ``auto`` does, from the two runs (temperature 0: the same calls would be made).

    The fast answer stands when the fast path said its context was enough; otherwise auto
    pays for the fast call and then the whole loop.
    """
    if fast["enough_context"] and not fast["error"]:
        return {**fast, "mode": "auto", "derived": True}
    total = {k: fast[k] + react[k] for k in ("llm_calls", "tool_calls", "tokens")}
    seconds = round(fast["seconds"] + react["seconds"], 3)
    return {**react, **total, "seconds": seconds, "mode": "auto", "derived": True}


def _summary(rows: list[dict[str, Any]], modes: list[str]) -> list[dict[str, Any]]:
    out = []
    for mode in modes:
        mine = [r for r in rows if r["mode"] == mode]
        n = len(mine) or 1
        out.append(
            {
                "mode": mode,
                "questions": len(mine),
                "correct": sum(r["correct"] for r in mine),
                "accuracy": round(sum(r["correct"] for r in mine) / n, 3),
                "llm_calls_per_q": round(sum(r["llm_calls"] for r in mine) / n, 2),
                "tool_calls_per_q": round(sum(r["tool_calls"] for r in mine) / n, 2),
                "tokens_per_q": round(sum(r["tokens"] for r in mine) / n),
                "seconds_per_q": round(sum(r["seconds"] for r in mine) / n, 1),
                "errors": sum(1 for r in mine if r["error"]),
            }
        )
    return out


def _print(rows: list[dict[str, Any]], summary: list[dict[str, Any]]) -> None:
    per_q = Table("mode", "kind", "question", "answer", "ok", "calls", "tokens", "s")
    for r in rows:
        mark = "[green]yes[/]" if r["correct"] else "[red]no[/]"
        said = (r["answer"] or r["error"] or "")[:40]
        per_q.add_row(r["mode"], r["kind"], r["question"][:48], said, mark,
                      str(r["llm_calls"]), str(r["tokens"]), f"{r['seconds']:.1f}")  # fmt: skip
    console.print(per_q)
    table = Table("mode", "accuracy", "LLM calls/q", "tool calls/q", "tokens/q", "s/q", "errors")
    for s in summary:
        table.add_row(s["mode"], f"{s['correct']}/{s['questions']}", str(s["llm_calls_per_q"]),
                      str(s["tool_calls_per_q"]), str(s["tokens_per_q"]),
                      str(s["seconds_per_q"]), str(s["errors"]))  # fmt: skip
    console.print(table)


def _log(r: dict[str, Any]) -> None:
    said = (r["answer"] or r["error"] or "")[:60]
    mark = "ok " if r["correct"] else "BAD"
    line = f"{r['mode']:5} {mark} {r['seconds']:6.1f}s {r['question']} -> {said}"
    console.print(line, highlight=False)


def _agent(
    folder: Path, settings: Settings, config: AgentConfig, batches: list[GraphBatch]
) -> MemoryAgent:
    store = SQLiteGraphStore(folder / "toy.sqlite")
    store.init_schema()
    for batch in batches:
        store.write(batch)
    embedder = make_embedder(
        settings.embed_model, models_dir=settings.models_dir, cache_path=settings.embed_cache
    )
    search = HybridSearch(EmbeddedIndex(folder / "toy.search.sqlite"), embedder)
    search.create()
    for batch in batches:
        search.index_documents(documents_from_batch(batch))
    backend = SQLiteQueryBackend(folder / "toy.sqlite")
    lm = make_lm(settings.lm, *settings.lm_endpoint(), max_tokens=512, timeout=1500)
    searcher = ScopedSearcher(search, DEFAULT_SCOPE)  # the toy case is one user's memory
    tools = build_tools(store, backend, searcher, config.tools)
    return MemoryAgent(lm, store, tools, backend, searcher, config)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--modes", default="fast,react", help="auto is derived from fast and react unless named"
    )
    parser.add_argument("--questions", default="", help="comma-separated question numbers")
    parser.add_argument(
        "--memory",
        choices=("toy", "heldout"),
        default="toy",
        help="toy: the Alice sample; heldout: generated conversations never tuned on",
    )
    parser.add_argument("--conversations", type=int, default=4, help="heldout: how many")
    parser.add_argument("--seed", type=int, default=11, help="heldout: generator seed")
    parser.add_argument("--max-iters", type=int, default=AgentConfig().max_iters)
    parser.add_argument("--out", type=Path, default=RESULTS / "agent_modes.json")
    args = parser.parse_args()
    modes = [m.strip() for m in args.modes.split(",")]
    if not set(modes) <= {"fast", "react", "auto"}:
        parser.error(f"--modes takes fast, react, auto; not {args.modes!r}")
    settings = Settings()
    config = AgentConfig(max_iters=args.max_iters)
    if args.memory == "toy":
        batches, pool = [toy_batch()], list(QUESTIONS)
    else:
        batches, pool = heldout_memory(args.conversations, args.seed)
    picked = [int(i) for i in args.questions.split(",") if i.strip()]
    questions = [pool[i] for i in picked] if picked else pool
    shown = modes + (["auto"] if "auto" not in modes and {"fast", "react"} <= set(modes) else [])
    rows: list[dict[str, Any]] = []
    started, load_before = time.time(), os.getloadavg()

    def save() -> list[dict[str, Any]]:  # after every question, so a cut run keeps its rows
        summary = _summary(rows, shown)
        payload = {
            "lm": settings.lm,
            "memory": args.memory if args.memory == "toy" else f"heldout seed {args.seed}",
            "config": config.model_dump(),
            "questions": len(questions),
            "load_avg_before": load_before,
            "load_avg_now": os.getloadavg(),
            "wall_seconds": round(time.time() - started, 1),
            "machine": {"cpus": os.cpu_count(), "python": platform.python_version()},
            "summary": summary,
            "rows": rows,
        }
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(payload, indent=2), encoding="utf-8")
        return summary

    with tempfile.TemporaryDirectory() as tmp:
        agent = _agent(Path(tmp), settings, config, batches)
        for q in questions:  # modes interleaved: a cut run still compares them on each question
            done = {mode: _run_one(agent, q, mode) for mode in modes}
            if "auto" not in done and {"fast", "react"} <= set(done):
                done["auto"] = derived_auto(done["fast"], done["react"])
            rows.extend(done.values())
            for r in done.values():
                _log(r)
            save()
        agent.store.close()
    _print(rows, save())
    console.print(f"written to {args.out}")


if __name__ == "__main__":
    main()
