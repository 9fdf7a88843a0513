"""LOCOMO QA: ingest one conversation, ask its questions through the memory agent, and
compare with a full-context and a plain-RAG baseline on the same questions and model.

Steps: (1) ingest the conversation (or its first --sessions) with the construction pipeline
into a kept store (--db; a second run reuses it, the checkpoint skips done turns) and index
it for search; (2) for each system and question (questions whose gold evidence lies in the
ingested sessions; --categories, --limit) answer with the question date set to the
conversation's last session date, then judge those answers (LLM, temperature 0) and score
token F1, appending one JSON line per answer (resumable: answered and judged questions are
skipped); (3) aggregate into JSON, a markdown table and PNG plots.

Systems (--systems, comma-separated): ``agent`` (the memory agent in --mode, by default
``auto``, what ``Memory.ask()`` uses), ``agent_fast`` (the same agent, same store and
context, always in mode ``fast`` whatever --mode says), ``rag`` and ``full_context``.

Usage (from the repo root):
    .venv/bin/python -m benchmarks.locomo.run --data locomo10.json --sessions 2 --limit 20
    .venv/bin/python -m benchmarks.locomo.run --data locomo10.json \
        --model anthropic/claude-3-5-haiku-latest \
        --judge-model anthropic/claude-3-5-haiku-latest --tag haiku
    .venv/bin/python -m benchmarks.locomo.run --data locomo10.json \
        --conversation conv-44 --categories 1,2,3,4 \
        --systems agent,agent_fast,rag,full_context --tag conv-44   # both agent modes
``--data`` names the LOCOMO file (default ``$APEXMEM_LOCOMO_DATA``); without one the run
stops with one line naming the fix. Output: benchmarks/results/locomo[_TAG].{json,jsonl,md,*.png}.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any, get_args

from pydantic import ValidationError
from rich.console import Console

from apexmem_neo.agent import AgentConfig, ContextOrder, ContextStyle, MemoryAgent, Mode
from apexmem_neo.construction.loaders import TurnInput
from benchmarks.locomo.baselines import TranscriptAnswerer, fit_recent, rag_turns
from benchmarks.locomo.data import (
    LocomoQuestion,
    add_data_argument,
    last_session_date,
    load_sample,
    locomo_data,
    sample_turns,
    select_questions,
    turn_dia_ids,
)
from benchmarks.locomo.judge import Judge, locomo_f1
from benchmarks.locomo.metrics import summarize
from benchmarks.locomo.render import markdown, plots
from benchmarks.memory import (
    RESULTS,
    WORK,
    AnswerLog,
    Memory,
    construction_cost,
    ingest,
    make_agent,
    open_memory,
    provenance,
    resolve_lm,
)

SYSTEMS = ("agent", "full_context", "rag")  # the default --systems
KNOWN_SYSTEMS = ("agent", "agent_fast", "full_context", "rag")
AGENT_MODES: dict[str, Mode | None] = {"agent": None, "agent_fast": "fast"}  # None: --mode
console = Console()


def _args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    add_data_argument(p)
    p.add_argument("--conversation", default="conv-26")
    p.add_argument("--sessions", type=int, default=None, help="first N sessions (default all)")
    p.add_argument("--turns", type=int, default=None, help="first N turns of those sessions")
    p.add_argument(
        "--question-sessions",
        type=int,
        default=None,
        help="ask only what the first N sessions answer (default: all ingested sessions)",
    )
    p.add_argument("--store", choices=("sqlite", "neo4j"), default="sqlite")
    p.add_argument("--db", type=Path, default=None, help="kept store (default under results/work)")
    p.add_argument("--categories", default="1,2,3,4,5", help="comma-separated LOCOMO categories")
    p.add_argument("--limit", type=int, default=None, help="first N selected questions")
    p.add_argument(
        "--systems",
        default=",".join(SYSTEMS),
        help=f"comma-separated, of {','.join(KNOWN_SYSTEMS)} (agent_fast: the agent in fast "
        "mode whatever --mode says)",
    )
    p.add_argument("--model", default=None, help="any LiteLLM model (default APEXMEM_LM)")
    p.add_argument("--api-base", default=None, help="default APEXMEM_LM_API_BASE for local")
    p.add_argument("--judge-model", default=None, help="default: --model")
    p.add_argument("--judge-api-base", default=None)
    p.add_argument("--mode", choices=get_args(Mode), default="auto")
    p.add_argument("--max-iters", type=int, default=AgentConfig().max_iters)
    p.add_argument(
        "--prefetch-entities",
        type=int,
        default=AgentConfig().prefetch_entities,
        help="entities (with their facts) in the agent's prefetched context; 0: turns only",
    )
    p.add_argument(
        "--prefetch-turns",
        type=int,
        default=AgentConfig().prefetch_turns,
        help="search-ranked turns in the agent's prefetched context",
    )
    p.add_argument(
        "--context-style",
        choices=get_args(ContextStyle),
        default=AgentConfig().context_style,
        help="the agent's context: transcript (top turns with their facts) or entities",
    )
    p.add_argument(
        "--context-order",
        choices=get_args(ContextOrder),
        default=AgentConfig().context_order,
        help="which part of the agent's prefetched context comes first",
    )
    p.add_argument(
        "--answer-program",
        default=None,
        help="a compiled answer program (apexmem optimize) for the agent's fast path",
    )
    p.add_argument("--rag-k", type=int, default=10)
    p.add_argument("--context-tokens", type=int, default=8192, help="full-context model window")
    p.add_argument("--tag", default="", help="suffix of the output files")
    p.add_argument("--out-dir", type=Path, default=RESULTS)
    return p.parse_args(argv)


def system_names(text: str) -> list[str]:
    """The systems of ``--systems`` in the order given, each once; an unknown name stops the
    run (it would otherwise be answered as plain RAG)."""
    names = list(dict.fromkeys(s.strip() for s in text.split(",") if s.strip()))
    unknown = [s for s in names if s not in KNOWN_SYSTEMS]
    if unknown or not names:
        said = f"unknown system {', '.join(unknown)}" if unknown else "--systems names none"
        raise SystemExit(f"error: {said}; known: {', '.join(KNOWN_SYSTEMS)}")
    return names


def agent_config(args: argparse.Namespace) -> AgentConfig:
    """The agent's budgets from the command line (pydantic checks their ranges)."""
    return AgentConfig(
        mode=args.mode,
        max_iters=args.max_iters,
        prefetch_entities=args.prefetch_entities,
        prefetch_turns=args.prefetch_turns,
        context_style=args.context_style,
        context_order=args.context_order,
        answer_program=args.answer_program,
    )


def memory_namespace(conversation: str) -> str:
    """The search index namespace of a conversation's kept store."""
    return f"bench_locomo_{conversation.replace('-', '_')}"


def _paths(args: argparse.Namespace) -> tuple[Path, Path, str]:
    stem = "locomo" + (f"_{args.tag}" if args.tag else "")
    sessions = f"s{args.sessions or 'all'}" + (f"t{args.turns}" if args.turns else "")
    db = args.db or WORK / f"locomo-{args.conversation}-{sessions}-{args.store}.sqlite"
    return db, args.out_dir / f"{stem}.jsonl", stem


class Systems:
    """Answers a question with one of the systems and returns the common record fields."""

    def __init__(
        self,
        agent: MemoryAgent,
        answerer: TranscriptAnswerer,
        memory: Memory,
        turns: list[TurnInput],
        args: argparse.Namespace,
    ) -> None:
        self.agent, self.answerer, self.memory, self.turns = agent, answerer, memory, turns
        self.args = args
        self.dia = turn_dia_ids(turns)
        self.full = fit_recent(turns, args.context_tokens)

    def answer(self, system: str, q: LocomoQuestion, qdate: str) -> dict[str, Any]:
        if system in AGENT_MODES:  # agent_fast: the same agent, its mode forced to fast
            res = self.agent.ask(q.question, qdate, mode=AGENT_MODES[system])
            tools = Counter(s.tool for s in res.trace if s.tool and s.tool != "finish")
            return {
                "answer": res.answer,
                "cited": [self.dia.get(e.turn_id, e.turn_id) for e in res.evidence],
                "seconds": res.seconds,
                "tokens": res.tokens,
                "tool_calls": res.tool_calls,
                "tools": dict(tools),
                "llm_calls": res.llm_calls,
                "mode": res.mode,
                "tool_output_chars": sum(
                    s.output_chars for s in res.trace if s.tool and s.tool != "finish"
                ),
                "error": res.error,
            }
        t0 = time.perf_counter()  # retrieval counts, as the agent's prefetch does
        index = self.memory.search_index
        if system != "full_context" and index is None:
            raise SystemExit("error: plain RAG needs the memory's search index (none was built)")
        context = (
            self.full
            if system == "full_context" or index is None
            else rag_turns(index, q.question, self.turns, self.args.rag_k)
        )
        out = self.answerer.answer(q.question, qdate, context)
        return {
            "answer": out.answer,
            "cited": out.cited,
            "seconds": round(time.perf_counter() - t0, 3),
            "tokens": out.tokens,
            "tool_calls": 0,
            "tools": {},
            "llm_calls": 1,
            "context_turns": out.context_turns,
            "tool_output_chars": 0,
            "error": out.error,
        }


def _record(system: str, q: LocomoQuestion, got: dict[str, Any], judge: Judge) -> dict[str, Any]:
    verdict = judge(q.question, q.gold, got["answer"], said_on=q.said_on)
    cited = set(got["cited"])
    return {
        "system": system,
        "qid": q.qid,
        "category": q.category,
        "question": q.question,
        "gold": q.gold,
        **got,
        "correct": verdict.correct,
        "judge_raw": verdict.raw,
        "judge_error": verdict.error,
        "judge_seconds": verdict.seconds,
        "judge_tokens": verdict.tokens,
        "judge_gold_seen": verdict.gold_seen,
        "f1": locomo_f1(got["answer"], q.gold, q.category),
        "gold_evidence": q.evidence,
        "evidence_hit": bool(cited & set(q.evidence)) if cited else None,
    }


def ask_all(
    systems: Systems,
    names: list[str],
    questions: list[LocomoQuestion],
    qdate: str,
    judge: Judge,
    log: AnswerLog,
) -> None:
    """Answer every question first, then judge the answers. full_context's calls run back
    to back so the LLM server's prompt cache keeps the ~7k-token transcript they share (a
    call in between evicted it, and each answer re-read it: ~60 s instead of a few); the other
    systems alternate question by question, so a machine that slows down mid-run slows them
    alike and their latencies compare. Answers wait in ``log.answers`` until judged, so an
    interrupted run resumes either pass."""
    judged, waiting = log.judged(), log.waiting()
    todo = {s: [q for q in questions if (s, q.qid) not in judged] for s in names}
    done = {s: 0 for s in names}
    for system, q in answer_order(names, questions):
        if q not in todo[system] or (system, q.qid) in waiting:
            continue
        waiting[(system, q.qid)] = got = systems.answer(system, q, qdate)
        log.save_answer(system, q.qid, got)
        done[system] += 1
        _progress("answered", system, done[system], len(todo[system]), q, got["answer"])
    for system in names:
        for n, q in enumerate(todo[system], start=1):
            record = _record(system, q, waiting[(system, q.qid)], judge)
            log.save_record(record)
            verdict = {True: "CORRECT", False: "WRONG", None: "JUDGE?"}[record["correct"]]
            _progress("judged", system, n, len(todo[system]), q, verdict)


def answer_order(
    names: list[str], questions: list[LocomoQuestion]
) -> list[tuple[str, LocomoQuestion]]:
    """(system, question) in answering order: full_context's all together first, then the
    other systems interleaved per question, which of them goes first alternating. With both
    agent systems and a third, ``agent`` goes first and ``agent_fast`` last (the third between
    them, both ways round): auto mode's first call is fast mode's very prompt, which the LLM
    server's prompt cache would hand the one asked right after the other, understating its
    latency."""
    order = [("full_context", q) for q in questions] if "full_context" in names else []
    others = [s for s in names if s != "full_context"]
    if set(AGENT_MODES) <= set(others) and len(others) > len(AGENT_MODES):
        others = ["agent", *(s for s in others if s not in AGENT_MODES), "agent_fast"]
    for i, q in enumerate(questions):
        order += [(s, q) for s in (others if i % 2 == 0 else others[::-1])]
    return order


def construction_shares(tokens: float) -> dict[str, float]:
    """The construction tokens each system depends on: both agent systems read the memory
    built; RAG searches only its turns and full context reads the raw conversation (0)."""
    return {"agent": tokens, "agent_fast": tokens, "rag": 0.0}


def _progress(step: str, system: str, n: int, total: int, q: LocomoQuestion, said: str) -> None:
    console.print(
        f"{system} {step} {n}/{total} {q.qid} c{q.category} {q.question[:60]!r} -> {said[:60]!r}",
        highlight=False,
    )


def _agent_note(setup: dict[str, Any]) -> str:
    if setup.get("context_style", "entities") == "transcript":
        return (
            f"agent ({setup['mode']} mode): its context holds the lines computed over its "
            f"{setup['prefetch_entities']} top entities (questions about states over time "
            f"only), then the {setup['prefetch_turns']} search-ranked turns, each dated, its "
            "time words followed by the dates they mean"
        )
    return (
        f"agent ({setup['mode']} mode): its prefetched context holds "
        f"{setup['prefetch_entities']} entities with their facts and "
        f"{setup['prefetch_turns']} search-ranked turns, {setup['context_order']} first"
    )


def _notes(systems: Systems, setup: dict[str, Any], names: list[str]) -> list[str]:
    kept, total = len(systems.full), len(systems.turns)
    notes = []
    if "agent" in names:
        notes.append(_agent_note(setup))
    if "agent_fast" in names:
        notes.append(
            "agent_fast: the same agent on the same store and prefetched context, always in "
            "fast mode (one call of the answer program, no ReAct fallback), whatever --mode "
            "says; beside agent and a third system, each question asks agent first and "
            "agent_fast last (reversed on the next), so the server's prompt cache never hands "
            "one the other's identical fast-path prompt"
        )
    if "full_context" in names:
        notes.append(
            f"full_context: the last {kept} of {total} turns fit a "
            f"{systems.args.context_tokens}-token window"
            + (" (truncated)" if kept < total else " (the whole ingested conversation)")
        )
    if "rag" in names:
        notes.append(f"rag: top-{systems.args.rag_k} turns from the hybrid search layer, one call")
    return [
        *notes,
        "full_context answers all its questions back to back (the LLM server's prompt cache "
        "keeps its transcript); the other systems alternate question by question, so their "
        "latencies compare; all are judged after answering",
        "tool output tokens are estimated at 4 characters per token; construction tokens are "
        "the ingest's total divided by the questions asked",
        "judge: rules first (dates against the gold's time words resolved on its evidence "
        "day, numbers, lists, names; benchmarks/locomo/prejudge.py), then "
        f"{setup['judge_model']} at temperature 0 (CORRECT/WRONG) on what they leave open; "
        "F1 is LOCOMO's token F1",
    ]


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = _args(argv)
    args.data = locomo_data(args.data)
    names = system_names(args.systems)  # before any work: a misspelt system stops the run
    db, jsonl, stem = _paths(args)
    args.db_path = db
    log = AnswerLog(jsonl, "system", lambda _: str(db))
    meta = provenance("benchmarks.locomo.run", argv)
    lm, model = resolve_lm(args.model, args.api_base, 512)
    judge_lm, judge_model = resolve_lm(args.judge_model or model, args.judge_api_base, 64)
    sample = load_sample(args.data, args.conversation)
    turns = sample_turns(sample, args.sessions)[: args.turns]
    categories = tuple(int(c) for c in args.categories.split(","))
    if args.question_sessions and args.sessions and args.question_sessions > args.sessions:
        raise SystemExit("error: --question-sessions cannot exceed --sessions (not ingested)")
    asked_from = sample_turns(sample, args.question_sessions) if args.question_sessions else turns
    questions = select_questions(sample, asked_from, categories, args.limit)
    qdate = last_session_date(sample)
    try:
        config = agent_config(args)
    except ValidationError as exc:  # e.g. --prefetch-turns 50: name the option, no traceback
        raise SystemExit(f"bad agent option: {exc}") from exc
    t0 = time.perf_counter()
    with open_memory(args.store, db, memory_namespace(args.conversation)) as mem:
        console.print(f"ingesting {len(turns)} turns into {db} ({args.store}) ...")
        ingest(mem, turns, lm, str(args.data))
        cost = construction_cost(mem.checkpoint)
        agent = make_agent(mem, lm, config, scope=turns[0].scope)
        systems = Systems(agent, TranscriptAnswerer(lm), mem, turns, args)
        console.print(f"asking {len(questions)} questions x {names}; answers -> {jsonl}")
        ask_all(systems, names, questions, qdate, Judge(judge_lm), log)
    wanted = {q.qid for q in questions}
    records = [r for r in log.records() if r["qid"] in wanted and r["system"] in names]
    setup = {
        "conversation": args.conversation,
        "sessions": sorted({t.session_seq for t in turns}),
        "question_sessions": args.question_sessions,
        "turns": len(turns),
        "store": args.store,
        "db": str(db),
        "question_date": qdate,
        "categories": list(categories),
        "judge_model": judge_model,
        "systems": names,
        "mode": args.mode,
        "max_iters": args.max_iters,
        "prefetch_entities": args.prefetch_entities,
        "prefetch_turns": args.prefetch_turns,
        "context_style": args.context_style,
        "context_order": args.context_order,
        "answer_program": args.answer_program,
    }
    result = {
        "benchmark": "locomo",
        **meta,
        "model": model,
        "judge_model": judge_model,
        "setup": setup,
        "questions": len(questions),
        "construction": cost,
        "summary": summarize(records, construction_shares(cost["tokens"])),
        "notes": _notes(systems, setup, names),
        "wall_seconds": round(time.perf_counter() - t0, 1),
    }
    result["plots"] = plots(result, args.out_dir, stem)
    (args.out_dir / f"{stem}.json").write_text(json.dumps(result, indent=2))
    (args.out_dir / f"{stem}.md").write_text(markdown(result) + "\n")
    console.print(markdown(result), highlight=False)
    console.print(f"written to {args.out_dir / stem}.json (+ .md, .jsonl, plots)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
