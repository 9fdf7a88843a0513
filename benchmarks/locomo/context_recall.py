"""LOCOMO context recall: how often each system's context holds a gold evidence turn.

No LLM: on a store that ``benchmarks.locomo.run`` built (same --conversation, --sessions,
--turns, --store, --db), this rebuilds, per question, the context each system would show the
model (the agent's prefetched context, the RAG baseline's top-k turns, the full-context
baseline's window) and checks whether a gold evidence turn is in it. It separates what
retrieval found from what the model made of it: a system with high context recall and low
judge accuracy loses its answers in the model, not in the search.

Usage (from the repo root):
    .venv/bin/python -m benchmarks.locomo.context_recall --data locomo10.json --conversation conv-26
    .venv/bin/python -m benchmarks.locomo.context_recall --data locomo10.json \
        --conversation conv-26 \
        --prefetch-entities 0 --tag turns-only
Output: a table, and benchmarks/results/context_recall_<conversation>[_TAG].json.
"""

from __future__ import annotations

import json
import re
import sys
from typing import Any

from rich.console import Console

from apexmem_neo.agent.context import prefetch
from apexmem_neo.agent.timewords import question_times
from apexmem_neo.memory.views import ScopedSearcher
from apexmem_neo.store.scoped import ScopedStore
from benchmarks.locomo.baselines import fit_recent, rag_turns
from benchmarks.locomo.data import (
    last_session_date,
    load_sample,
    locomo_data,
    sample_turns,
    select_questions,
    turn_dia_ids,
)
from benchmarks.locomo.metrics import rate
from benchmarks.locomo.run import _args as run_args
from benchmarks.locomo.run import _paths, agent_config, memory_namespace
from benchmarks.memory import open_memory, provenance

console = Console()
LABEL = re.compile(r"\bT\d+\b")
"""The short turn labels (T1, T2, ...) the agent's context cites turns by."""


def labels_shown(text: str, by_label: dict[str, str]) -> set[str]:
    """Turn ids whose label survives in ``text`` (the context is cut to its budget after
    labels are handed out, so a labelled turn may not be shown)."""
    return {by_label[label] for label in LABEL.findall(text) if label in by_label}


def markdown(result: dict[str, Any]) -> str:
    """The recall table of a result JSON (rows: category groups; columns: systems)."""
    setup, recall = result["setup"], result["context_recall"]
    systems = list(dict.fromkeys(s for by_system in recall.values() for s in by_system))
    lines = [
        f"Conversation {setup['conversation']}, {setup['turns']} turns: share of questions whose "
        "context holds a gold evidence turn (agent: its prefetched context with "
        f"{setup['prefetch_entities']} entities and {setup['prefetch_turns']} turns; rag: top-"
        f"{setup['rag_k']} turns; full_context: the last {setup['full_context_turns']} turns).",
        "",
        "| categories | n | " + " | ".join(systems) + " |",
        "| --- | --- |" + " --- |" * len(systems),
    ]
    for group, by_system in recall.items():
        cells = [f"{v:.1%}" if v is not None else "-" for v in map(by_system.get, systems)]
        lines.append(f"| {group} | {result['questions'][group]} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = run_args(argv)  # the LOCOMO run's options, so the same flags find the same store
    args.data = locomo_data(args.data)
    db, _, _ = _paths(args)
    if not db.is_file():
        raise SystemExit(
            f"no store at {db}: build it first with python -m benchmarks.locomo.run "
            "(same --conversation / --sessions / --turns / --store / --db)"
        )
    config = agent_config(args)
    sample = load_sample(args.data, args.conversation)
    turns = sample_turns(sample, args.sessions)[: args.turns]
    categories = tuple(int(c) for c in args.categories.split(","))
    questions = select_questions(sample, turns, categories, args.limit)
    qdate = last_session_date(sample)
    dia = turn_dia_ids(turns)
    window = {dia[t.turn().turn_id] for t in fit_recent(turns, args.context_tokens)}
    flags: dict[str, dict[str, list[bool]]] = {"1-4": {}, "5": {}}
    with open_memory(args.store, db, memory_namespace(args.conversation)) as mem:
        assert mem.search_index is not None  # open_memory always builds one
        scope = turns[0].scope  # a LOCOMO conversation is its own scope
        store, searcher = ScopedStore(mem.store, scope), ScopedSearcher(mem.search_index, scope)
        for q in questions:
            found = prefetch(store, q.question, searcher, config, question_times(q.question, qdate))
            agent = {dia.get(t, t) for t in labels_shown(found.text, found.labels.by_label)}
            rag = {
                dia[t.turn().turn_id]
                for t in rag_turns(mem.search_index, q.question, turns, args.rag_k)
            }
            group = flags["5" if q.category == 5 else "1-4"]
            for system, shown in (("agent", agent), ("rag", rag), ("full_context", window)):
                group.setdefault(system, []).append(bool(set(q.evidence) & shown))
    recall = {g: {s: rate(f) for s, f in systems.items()} for g, systems in flags.items()}
    counts = {g: len(next(iter(systems.values()), [])) for g, systems in flags.items()}
    result: dict[str, Any] = {
        "benchmark": "locomo_context_recall",
        **provenance("benchmarks.locomo.context_recall", argv),
        "setup": {
            "conversation": args.conversation,
            "db": str(db),
            "turns": len(turns),
            "prefetch_entities": config.prefetch_entities,
            "prefetch_turns": config.prefetch_turns,
            "max_context_chars": config.max_context_chars,
            "rag_k": args.rag_k,
            "full_context_turns": len(window),
        },
        "questions": counts,
        "context_recall": recall,
    }
    for group_name, by_system in recall.items():
        cells = ", ".join(f"{s} {v:.1%}" for s, v in by_system.items() if v is not None)
        console.print(f"categories {group_name} (n={counts[group_name]}): {cells}")
    stem = f"context_recall_{args.conversation}" + (f"_{args.tag}" if args.tag else "")
    out = args.out_dir / f"{stem}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2))
    console.print(f"written to {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
