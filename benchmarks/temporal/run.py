"""Append-only vs overwrite on generated conversations whose attributes change over time.

Generated conversations (``generator.py``) are ingested by the full construction pipeline
into an append-only SQLite store; the eager-overwrite memory is materialised from it
(``overwrite.py``: one fact per entity and property, the words of overwritten facts
forgotten). The same memory agent answers the same temporal questions (current, as-of,
when-changed, before, count of changes) on both, at the day after each conversation's last
session; answers are judged by the LOCOMO LLM judge and by an exact check against the gold
answer's surface forms. This is the project's version of the paper's Table 12.

Usage (from the repo root):
    .venv/bin/python -m benchmarks.temporal.run --conversations 3
    .venv/bin/python -m benchmarks.temporal.run --model anthropic/claude-3-5-haiku-latest \
        --tag haiku
Output: benchmarks/results/temporal[_TAG].{json,jsonl,md,png}; stores under --work-dir.
Resumable: the store keeps its checkpoint, and per memory all questions are answered first
(kept in temporal[_TAG].answers.jsonl) and judged after, each pass skipping what is done.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any, get_args

from rich.console import Console

from apexmem_neo.agent import AgentConfig, ContextOrder, MemoryAgent, Mode
from benchmarks.charts import grouped_bars
from benchmarks.locomo.judge import Judge, Verdict
from benchmarks.locomo.metrics import accuracy, percentile
from benchmarks.memory import (
    RESULTS,
    WORK,
    AnswerLog,
    construction_cost,
    ingest,
    make_agent,
    open_memory,
    provenance,
    resolve_lm,
)
from benchmarks.temporal.generator import QUESTION_KINDS, Conversation, TemporalQuestion, generate
from benchmarks.temporal.overwrite import materialise_overwrite

MODES = ("append_only", "overwrite")
console = Console()


def _args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    p.add_argument("--conversations", type=int, default=10)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--attributes", type=int, default=2, help="attributes per conversation")
    p.add_argument("--values", type=int, default=3, help="values per attribute")
    p.add_argument("--model", default=None, help="any LiteLLM model (default APEXMEM_LM)")
    p.add_argument("--api-base", default=None)
    p.add_argument("--kinds", default=",".join(QUESTION_KINDS), help="question kinds to ask")
    p.add_argument(
        "--judge-model", default=None, help="default: --model; 'none' scores by exact check only"
    )
    p.add_argument("--judge-api-base", default=None)
    p.add_argument("--mode", choices=get_args(Mode), default="auto")
    p.add_argument("--max-iters", type=int, default=AgentConfig().max_iters)
    p.add_argument(
        "--context-order",
        choices=get_args(ContextOrder),
        default=AgentConfig().context_order,
        help="which part of the agent's prefetched context comes first",
    )
    p.add_argument(
        "--memories",
        default=",".join(MODES),
        help="which memories to ask (comma-separated; both are always built)",
    )
    p.add_argument("--tag", default="")
    p.add_argument("--out-dir", type=Path, default=RESULTS)
    p.add_argument("--work-dir", type=Path, default=WORK, help="where the stores are kept")
    return p.parse_args(argv)


def agent_config(args: argparse.Namespace) -> AgentConfig:
    return AgentConfig(mode=args.mode, max_iters=args.max_iters, context_order=args.context_order)


def _memories(names: str) -> set[str]:
    """The --memories list, each a known memory (an unknown one is an error naming it)."""
    chosen = {name.strip() for name in names.split(",") if name.strip()}
    unknown = sorted(chosen - set(MODES))
    if unknown or not chosen:
        raise SystemExit(
            f"--memories: unknown {unknown or names!r}; choose from {', '.join(MODES)}"
        )
    return chosen


def normalise(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s-]", " ", text.casefold()).split())


def exact_match(answer: str, forms: list[str]) -> bool:
    """Some gold surface form appears in the answer as whole words (case and punctuation
    ignored)."""
    padded = f" {normalise(answer)} "
    return any(f" {normalise(form)} " in padded for form in forms if normalise(form))


def _answer(agent: MemoryAgent, conv: Conversation, q: TemporalQuestion) -> dict[str, Any]:
    res = agent.ask(q.question, conv.question_date)
    return {
        "answer": res.answer, "seconds": res.seconds, "tokens": res.tokens,
        "tool_calls": res.tool_calls, "agent_mode": res.mode, "error": res.error,
    }  # fmt: skip


def _grade(
    mode: str, q: TemporalQuestion, got: dict[str, Any], judge: Judge | None
) -> dict[str, Any]:
    exact = exact_match(got["answer"], q.gold_forms)
    verdict = judge(q.question, q.gold, got["answer"]) if judge else Verdict(correct=exact)
    return {
        "mode": mode, "qid": q.qid, "kind": q.kind, "attribute": q.attribute,
        "question": q.question, "gold": q.gold, "answer": got["answer"],
        "correct": verdict.correct, "judge_raw": verdict.raw, "judge_error": verdict.error,
        "exact": exact, **{k: v for k, v in got.items() if k != "answer"},
    }  # fmt: skip


def ask_all(
    questions: list[tuple[Conversation, TemporalQuestion]],
    dbs: dict[str, Path],
    lm: Any,
    config: AgentConfig,
    judge: Judge | None,
    log: AnswerLog,
) -> None:
    """Per memory mode, answer every question first, then judge those answers: the agent's
    calls run back to back so the LLM server's prompt cache keeps the prefix they share (a
    judge call in between evicted it). Answers wait in ``log.answers`` until judged; both
    passes resume, reusing only answers from the same store file."""
    judged, waiting = log.judged(), log.waiting()
    for mode, db in dbs.items():
        todo = [(conv, q) for conv, q in questions if (mode, q.qid) not in judged]
        with open_memory("sqlite", db, "unused") as mem:
            agents: dict[str, MemoryAgent] = {}
            for conv, q in todo:
                if (mode, q.qid) not in waiting:
                    scope = conv.conversation_id
                    if scope not in agents:
                        agents[scope] = make_agent(mem, lm, config, scope=scope)
                    got = waiting[(mode, q.qid)] = _answer(agents[scope], conv, q)
                    log.save_answer(mode, q.qid, got)
                    console.print(
                        f"{mode} {q.qid} answered {got['seconds']:.1f}s {q.question!r} -> "
                        f"{got['answer'][:60]!r} (gold {q.gold})",
                        highlight=False,
                    )
        for _, q in todo:
            record = _grade(mode, q, waiting[(mode, q.qid)], judge)
            log.save_record(record)
            console.print(f"{mode} {q.qid} judged {record['correct']} exact={record['exact']}")


def summarize(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Per memory mode: judge accuracy and exact-match rate per question kind and overall."""
    out: dict[str, Any] = {}
    for mode in MODES:
        rows = [r for r in records if r["mode"] == mode]
        if not rows:
            continue
        kinds: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for r in rows:
            kinds[r["kind"]].append(r)
        out[mode] = {
            "by_kind": {
                k: {"n": len(v), "accuracy": accuracy(v), "exact": _exact(v)}
                for k, v in ((k, kinds[k]) for k in QUESTION_KINDS if k in kinds)
            },
            "overall": {"n": len(rows), "accuracy": accuracy(rows), "exact": _exact(rows)},
            "latency_s": {
                "p50": percentile([r["seconds"] for r in rows], 50),
                "p95": percentile([r["seconds"] for r in rows], 95),
            },
            "tokens_mean": sum(r["tokens"].get("total_tokens", 0) for r in rows) / len(rows),
        }
    return out


def _exact(rows: list[dict[str, Any]]) -> float:
    return sum(1 for r in rows if r["exact"]) / len(rows)


def markdown(result: dict[str, Any]) -> str:
    summary = result["summary"]
    modes = [m for m in MODES if m in summary]
    head = "| question kind | " + " | ".join(f"{m} judge / exact" for m in modes) + " |"
    rows = [head, "|" + " --- |" * (len(modes) + 1)]
    for kind in [*QUESTION_KINDS, "overall"]:
        cells = []
        for m in modes:
            block = summary[m]["overall"] if kind == "overall" else summary[m]["by_kind"].get(kind)
            cells.append(
                "-"
                if block is None
                else f"{block['accuracy']:.0%} / {block['exact']:.0%} " f"(n={block['n']})"
            )
        rows.append(f"| {kind} | " + " | ".join(cells) + " |")
    lat = ", ".join(
        f"{m} p50 {s['latency_s']['p50']:.1f} s / p95 {s['latency_s']['p95']:.1f} s"
        for m, s in ((m, summary[m]) for m in modes)
    )
    ow = result["overwrite"]
    setup = result["setup"]
    return "\n".join([
        f"{setup['conversations']} generated conversations (seed {setup['seed']}), "
        f"{setup['turns']} turns, {result['questions']} questions per memory; the agent's "
        f"prefetched context puts {setup.get('context_order', 'entities')} first.",
        "", *rows, "",
        f"- latency per question: {lat}",
        f"- overwrite memory: {ow['facts_overwritten']} of {ow['facts_total']} extracted facts "
        f"overwritten, {ow['turns_dropped']} turns forgotten",
        f"- judge: {result['judge_model']} (CORRECT/WRONG); exact: a gold surface form in the "
        "answer",
    ])  # fmt: skip


def _prepare(args: argparse.Namespace, convs: list[Conversation], lm: Any) -> dict[str, Any]:
    """Ingest into the append-only store, materialise and index the overwrite copy."""
    base = (
        args.work_dir
        / f"temporal-{args.seed}-n{args.conversations}-a{args.attributes}v{args.values}"
    )
    append_db, overwrite_db = base.with_suffix(".sqlite"), Path(f"{base}-overwrite.sqlite")
    turns = [t for c in convs for t in c.turns()]
    with open_memory("sqlite", append_db, "unused") as mem:
        ingest(mem, turns, lm, "temporal-generator")
        cost = construction_cost(mem.checkpoint)
    counts = materialise_overwrite(append_db, overwrite_db)
    with open_memory("sqlite", overwrite_db, "unused") as mem:
        mem.index(optimize=False)
    return {"dbs": {"append_only": append_db, "overwrite": overwrite_db}, "cost": cost,
            "overwrite": counts, "turns": len(turns)}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = _args(argv)
    meta = provenance("benchmarks.temporal.run", argv)
    memories = _memories(args.memories)
    lm, model = resolve_lm(args.model, args.api_base, 512)
    judge: Judge | None = None
    judge_model = "none (exact check)"
    if args.judge_model != "none":
        judge_lm, judge_model = resolve_lm(args.judge_model or model, args.judge_api_base, 64)
        judge = Judge(judge_lm)
    stem = "temporal" + (f"_{args.tag}" if args.tag else "")
    jsonl = args.out_dir / f"{stem}.jsonl"
    convs = generate(args.conversations, args.seed, args.attributes, args.values)
    t0 = time.perf_counter()
    prep = _prepare(args, convs, lm)
    config = agent_config(args)
    kinds = set(args.kinds.split(","))
    questions = [(c, q) for c in convs for q in c.questions if q.kind in kinds]
    log = AnswerLog(jsonl, "mode", lambda mode: str(prep["dbs"][mode]))
    asked = {mode: db for mode, db in prep["dbs"].items() if mode in memories}
    ask_all(questions, asked, lm, config, judge, log)
    wanted = {q.qid for _, q in questions}
    records = [r for r in log.records() if r["qid"] in wanted and r["mode"] in asked]
    result = {
        "benchmark": "temporal", **meta, "model": model, "judge_model": judge_model,
        "setup": {"conversations": args.conversations, "seed": args.seed,
                  "attributes": args.attributes, "values": args.values, "turns": prep["turns"],
                  "mode": args.mode, "max_iters": args.max_iters,
                  "context_order": args.context_order, "memories": sorted(asked),
                  "dbs": {k: str(v) for k, v in prep["dbs"].items()}},
        "questions": len(wanted), "construction": prep["cost"], "overwrite": prep["overwrite"],
        "summary": summarize(records), "wall_seconds": round(time.perf_counter() - t0, 1),
    }  # fmt: skip
    result["plots"] = [plot(result, args.out_dir, stem)]
    (args.out_dir / f"{stem}.json").write_text(json.dumps(result, indent=2))
    (args.out_dir / f"{stem}.md").write_text(markdown(result) + "\n")
    console.print(markdown(result), highlight=False)
    console.print(f"written to {args.out_dir / stem}.json (+ .md, .jsonl, .png)")
    return 0


def plot(result: dict[str, Any], out_dir: Path, stem: str) -> str:
    series = {
        mode: {k: v["accuracy"] for k, v in s["by_kind"].items()}
        for mode, s in result["summary"].items()
    }
    path = grouped_bars(
        out_dir / f"{stem}_accuracy.png", "append-only vs overwrite: judge accuracy by kind",
        series, "accuracy", (0, 1),
    )  # fmt: skip
    return path.name


if __name__ == "__main__":
    sys.exit(main())
