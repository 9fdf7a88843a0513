"""Construction quality with known truth, end to end: generate a set, ingest it through
``Memory`` with the configured LM, ask its questions in the default mode, read ``current`` /
``as_of`` back, judge every stored fact, and score it all deterministically.

Sets (``generator.SETS``): ``tuning`` (templates A, seed 1: 4 conversations, 56 turns, 56
questions), ``test`` (templates B, seed 2, the same shape; read only for the final
evaluation), ``holdout`` (templates C, seed 3, the same shape; read once, for the final
evaluation of issue 48, and never tuned on), ``holdout2`` (templates D, seed 5, the same
shape; written after C was evaluated, read only for the final evaluation), ``holdout3``
(templates E, seed 7, the same shape; written blind, evaluated once), ``holdout4``
(templates F, seed 9, the same shape; written blind, without reading the library's rules,
evaluated once), ``holdout5`` (templates G, seed 10, the same shape; written blind, without
reading the library's rules, evaluated once), ``holdout6`` (templates H, seed 11, the same
shape; written blind, without reading the library's rules, evaluated once) and ``tiny`` (4
turns, a smoke run). On the local model a set takes about 10 s per turn to build and 10-30 s
per question.

Usage (from the repo root):
    .venv/bin/python -m benchmarks.construction_quality.run --set tuning --store sqlite \\
        --out benchmarks/results/construction_quality_tuning.json
    .venv/bin/python -m benchmarks.construction_quality.run --set test --publish
    .venv/bin/python -m benchmarks.construction_quality.run --from-results R.json --publish
    .venv/bin/python -m benchmarks.construction_quality.run --from-results A.json B.json --publish

Results go to ``--out`` (default ``benchmarks/results/construction_quality_<set>.json``),
with the generated JSONL, its truth and the store under ``benchmarks/results/work/``.
Resumable: the store keeps its checkpoint and answers are kept in ``<out>.answers.jsonl``
(only those of the same store file count); ``--fresh`` starts the store from empty.
``--publish`` writes ``benchmarks/published/construction_quality.json`` for the test set and
``construction_quality_holdout.json`` for the holdout set,
``construction_quality_holdout2.json`` for the holdout2 set,
``construction_quality_holdout3.json`` for the holdout3 set,
``construction_quality_holdout4.json`` for the holdout4 set,
``construction_quality_holdout5.json`` for the holdout5 set and
``construction_quality_holdout6.json`` for the holdout6 set (no other set is published).

``--systems apexmem,mem0`` adds the Mem0 arm (``mem0_arm``; the ``bench-mem0`` extra), on the
benchmark's own long-context llama-server (``mem0_server``) unless ``--mem0-api-base`` names
another; its figures sit under ``systems.mem0`` beside apexmem's, those it cannot have are
None with the reason under ``unsupported``, and its ``config`` says how Mem0 was set up.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from apexmem_neo.errors import ServiceError
from benchmarks.construction_quality import mem0_server
from benchmarks.construction_quality.generator import SETS, generate, write_set
from benchmarks.construction_quality.mem0_arm import Mem0, Mem0ArmError
from benchmarks.construction_quality.questions import reads
from benchmarks.construction_quality.scoring import (
    AnswerScore,
    FactJudgement,
    NameMap,
    ReadResult,
    concept_names,
    fact_figures,
    goals,
    judge_fact,
    naming_figures,
    read_right,
    recall,
    resolved_property,
    score_answer,
    share,
)
from benchmarks.construction_quality.systems import ApexMem, System
from benchmarks.construction_quality.truth import QUESTION_KINDS, Conversation, DataSet
from benchmarks.memory import RESULTS, WORK, AnswerLog, provenance
from benchmarks.published_results import PUBLISHED, wilson


@dataclass(frozen=True)
class HeldOut:
    """A set read only for evaluation, and where its run is published."""

    file: str
    label: str
    evaluated_on: str
    tuned_on: str = (
        "the tuning set: templates A, seed 1 (benchmarks.construction_quality, --set tuning)"
    )


HELD_OUT: dict[str, HeldOut] = {
    "test": HeldOut(
        "construction_quality.json",
        "held-out templates",
        "the test set: templates B (other phrasings, names and values)",
    ),
    "holdout": HeldOut(
        "construction_quality_holdout.json",
        "holdout templates C",
        "the holdout set: templates C (written without reading B, evaluated once)",
    ),
    "holdout2": HeldOut(
        "construction_quality_holdout2.json",
        "holdout templates D",
        "the holdout2 set: templates D (written without reading B or C, evaluated once)",
    ),
    "holdout3": HeldOut(
        "construction_quality_holdout3.json",
        "holdout templates E",
        "the holdout3 set: templates E (written without reading the engineers' tuning notes, "
        "evaluated once)",
        "templates A, B, C and D (sets 'tuning', 'test', 'holdout' and 'holdout2': each "
        "held-out set became a set to tune on once it had been evaluated)",
    ),
    "holdout4": HeldOut(
        "construction_quality_holdout4.json",
        "holdout templates F",
        "the holdout4 set: templates F (written blind, without reading the library's rules, "
        "evaluated once)",
        "templates A, B, C, D and E (sets 'tuning', 'test', 'holdout', 'holdout2' and "
        "'holdout3': each held-out set became a set to tune on once it had been evaluated); F "
        "was written blind, without reading the library's rules",
    ),
    "holdout5": HeldOut(
        "construction_quality_holdout5.json",
        "holdout templates G",
        "the holdout5 set: templates G (written blind, without reading the library's rules, "
        "evaluated once)",
        "templates A, B, C, D, E and F (sets 'tuning', 'test', 'holdout', 'holdout2', "
        "'holdout3' and 'holdout4': each held-out set became a set to tune on once it had been "
        "evaluated); G was written blind, without reading the library's rules",
    ),
    "holdout6": HeldOut(
        "construction_quality_holdout6.json",
        "holdout templates H",
        "the holdout6 set: templates H (written blind, without reading the library's rules, "
        "evaluated once)",
        "templates A, B, C, D, E, F and G (sets 'tuning', 'test', 'holdout', 'holdout2', "
        "'holdout3', 'holdout4' and 'holdout5': each held-out set became a set to tune on once "
        "it had been evaluated); H was written blind, without reading the library's rules",
    ),
}
"""The sets whose runs are published, each to its own file."""
SYSTEMS = ("apexmem", "mem0")
READ_FIGURES = ("current", "current_resolved", "as_of_read", "as_of_read_resolved")


def _args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    p.add_argument("--set", choices=sorted(SETS), default="tuning", dest="set_name")
    p.add_argument("--conversations", type=int, default=None, help="default: the set's")
    p.add_argument("--store", choices=("sqlite", "neo4j"), default="sqlite")
    p.add_argument("--systems", default="apexmem", help=f"comma-separated: {', '.join(SYSTEMS)}")
    p.add_argument("--out", type=Path, default=None)
    p.add_argument("--work-dir", type=Path, default=WORK, help="generated data and stores")
    p.add_argument("--db", type=Path, default=None, help="the store file (Neo4j: checkpoint)")
    p.add_argument("--fresh", action="store_true", help="start the store from empty")
    p.add_argument("--publish", action="store_true", help="write the held-out set's published file")
    p.add_argument("--from-results", type=Path, nargs="+", default=None,
                   help="publish these files (one per arm, same set), no run")  # fmt: skip
    mem0_help = "the Mem0 arm's server (default: the benchmark's own mem0_server)"
    p.add_argument("--mem0-api-base", default=None, help=mem0_help)
    p.add_argument("--mem0-store", type=Path, default=None, help="the Mem0 arm's directory")
    p.add_argument(
        "--extraction-program",
        type=Path,
        default=None,
        help="a compiled extraction program for apexmem's construction (demos.py makes one)",
    )
    p.add_argument(
        "--note",
        default="",
        help="with --publish: a sentence added to the notes "
        "(e.g. which evaluation of the test set this is and what came before)",
    )
    return p.parse_args(argv)


def _answers(system: System, data: DataSet, log: AnswerLog) -> list[dict[str, Any]]:
    """Every question asked (or taken from the log) and scored."""
    waiting = log.waiting()
    out = []
    for conv in data.conversations:
        for q in conv.questions:
            got = waiting.get((system.name, q.qid))
            if got is None:
                got = system.ask(conv, q)
                log.save_answer(system.name, q.qid, got)
                print(f"  ask {q.qid} {got['seconds']:.1f}s {q.text!r} -> "
                      f"{got['answer'][:70]!r} (gold {q.gold})", flush=True)  # fmt: skip
            score: AnswerScore = score_answer(q, got["answer"])
            out.append({
                "qid": q.qid, "kind": q.kind, "question": q.text, "at": q.at, "gold": q.gold,
                **got, **score.model_dump(),
            })  # fmt: skip
    return out


def _reads(system: System, conv: Conversation, names: NameMap) -> list[ReadResult]:
    """Each read under the canonical name, and under the resolved one when it differs."""
    out = []
    for r in reads(conv):
        out.append(system.read(conv, r, r.property, "canonical"))
        resolved = resolved_property(conv.timeline(r.owner, r.concept), names)
        if resolved == r.property:
            out.append(out[-1].model_copy(update={"style": "resolved"}))
        else:
            out.append(system.read(conv, r, resolved, "resolved"))
    return out


def _read_figures(results: list[tuple[Conversation, ReadResult]]) -> dict[str, Any]:
    def pick(kind: str, style: str) -> dict[str, Any]:
        return share([
            read_right(r, conv) for conv, r in results if r.read.kind == kind and r.style == style
        ])  # fmt: skip

    return {
        "current": pick("current", "canonical"),
        "current_resolved": pick("current", "resolved"),
        "as_of_read": pick("as_of", "canonical"),
        "as_of_read_resolved": pick("as_of", "resolved"),
    }


def _answer_figures(answers: list[dict[str, Any]]) -> dict[str, Any]:
    figures: dict[str, Any] = {
        k: share([a["correct"] for a in answers if a["kind"] == k]) for k in QUESTION_KINDS
    }
    figures["answers"] = share([a["correct"] for a in answers])
    seconds = [a["seconds"] for a in answers]
    figures["answer_seconds_p50"] = round(statistics.median(seconds), 2) if seconds else None
    calls = [a["llm_calls"] for a in answers]
    figures["answer_llm_calls_mean"] = round(statistics.mean(calls), 2) if calls else None
    return figures


def _names_record(names: NameMap) -> dict[str, dict[str, list[str]]]:
    return {
        f"{owner}/{concept}": {prop: sorted(values) for prop, values in sorted(per.items())}
        for (owner, concept), per in sorted(names.items())
    }


def evaluate(system: System, data: DataSet, jsonl: Path, log: AnswerLog) -> dict[str, Any]:
    """Ingest, ask, read and judge one system on a set; its figures and raw records."""
    cost = system.ingest(data, jsonl)
    answers = _answers(system, data, log)
    names: dict[str, NameMap] = {}
    judged: list[FactJudgement] = []
    found: list[bool] = []
    read_results: list[tuple[Conversation, ReadResult]] = []
    for conv in data.conversations:
        facts = system.facts(conv)
        names[conv.conversation_id] = concept_names(conv, facts)
        judged += [judge_fact(f, conv, names[conv.conversation_id]) for f in facts]
        found += [hit for *_, hit in recall(conv, facts)]
        if not set(READ_FIGURES) <= system.unsupported.keys():
            read_results += [(conv, r) for r in _reads(system, conv, names[conv.conversation_id])]
    figures: dict[str, Any] = {
        **_answer_figures(answers),
        **_read_figures(read_results),
        **naming_figures(data.conversations, names),
        **fact_figures(judged, found),
        "llm_calls_per_turn": cost["llm_calls_per_turn"],
        "seconds_per_turn": cost["seconds_per_turn"],
        "failed_turns": cost["failed_turns"],
    }
    figures |= dict.fromkeys(system.unsupported)  # None: cannot be computed (see "unsupported")
    return {
        "figures": figures,
        "unsupported": dict(system.unsupported),
        "goals": goals(figures),
        "construction": cost,
        "answers": answers,
        "reads": [{**r.model_dump(), "right": read_right(r, c)} for c, r in read_results],
        "property_names": {cid: _names_record(n) for cid, n in names.items()},
        "facts": [j.model_dump() for j in judged],
    }


def _names(args: argparse.Namespace) -> list[str]:
    names = [s.strip() for s in args.systems.split(",") if s.strip()]
    unknown = [n for n in names if n not in SYSTEMS]
    if unknown:
        raise SystemExit(f"unknown system {', '.join(unknown)}; known: {', '.join(SYSTEMS)}")
    return names


def _stores(args: argparse.Namespace, db: Path, data: DataSet) -> dict[str, Path]:
    """Each system's store: the answers of a system count only with the store they came from."""
    mem0 = args.mem0_store or args.work_dir / f"construction_quality_{data.name}_mem0"
    return {"apexmem": db, "mem0": mem0}


def _system(name: str, args: argparse.Namespace, stores: dict[str, Path], data: DataSet) -> System:
    if name == "mem0":
        return Mem0(stores["mem0"], args.mem0_api_base, fresh=args.fresh)
    system = ApexMem(args.store, stores["apexmem"], f"construction_quality_{data.name}",
                     fresh=args.fresh, extraction_program=args.extraction_program)  # fmt: skip
    if args.fresh and args.store == "neo4j":
        system.forget(data)
    return system


@contextmanager
def _mem0_server(args: argparse.Namespace, names: list[str]) -> Iterator[None]:
    """The Mem0 arm's LLM server: ``--mem0-api-base``, or the benchmark's own server
    (started here when it is not running, and then stopped at the end); either is refused
    when its slots are too small for Mem0's prompt."""
    if "mem0" not in names:
        yield
        return
    started = None
    if args.mem0_api_base is None:
        srv = mem0_server.server()
        started = srv if srv.up().started else None
        args.mem0_api_base = mem0_server.api_base(srv)
    try:
        mem0_server.check_context(args.mem0_api_base)
        yield
    finally:
        if started is not None:
            started.down()


def run(args: argparse.Namespace, argv: list[str]) -> dict[str, Any]:
    meta = provenance("benchmarks.construction_quality.run", argv)
    data = generate(args.set_name, args.conversations)
    jsonl, truth = write_set(data, args.work_dir)
    db = args.db or args.work_dir / f"construction_quality_{data.name}_{args.store}.sqlite"
    out: Path = args.out
    names, stores = _names(args), _stores(args, db, data)
    log = AnswerLog(out.with_suffix(".jsonl"), "system", lambda name: str(stores[name].resolve()))
    if args.fresh:
        log.answers.unlink(missing_ok=True)  # they answered the store being dropped
    record: dict[str, Any] = {
        "benchmark": "construction_quality", **meta, "set": data.name, "family": data.family,
        "seed": data.seed, "store": args.store, "mode": "default (Memory.ask, no mode given)",
        "data": {"conversations": len(data.conversations), "turns": data.turns,
                 "questions": sum(len(c.questions) for c in data.conversations),
                 "jsonl": str(jsonl), "truth": str(truth), "db": str(db)},
        "systems": {},
    }  # fmt: skip
    with _mem0_server(args, names):
        for name in names:
            t0 = time.perf_counter()
            system = _system(name, args, stores, data)
            try:
                record.setdefault("model", getattr(system, "model", None))
                record["systems"][name] = evaluate(system, data, jsonl, log)
                record["systems"][name]["store"] = str(stores[name])
                if hasattr(system, "config"):
                    record["systems"][name]["config"] = system.config
            finally:
                system.close()
            record["systems"][name]["wall_seconds"] = round(time.perf_counter() - t0, 1)
    return record


def summary(record: dict[str, Any]) -> str:
    """A short table of each system's headline figures."""
    keys = ("now", "as_of", "when", "before", "current", "current_resolved", "as_of_read",
            "as_of_read_resolved", "one_name_per_concept", "entities_one_name",
            "fact_precision", "fact_recall")  # fmt: skip
    lines = [f"set {record['set']} ({record['data']['turns']} turns, "
             f"{record['data']['questions']} questions), store {record['store']}"]  # fmt: skip
    for name, system in record["systems"].items():
        f = system["figures"]
        lines.append(f"[{name}]")
        for key in keys:
            if f[key] is None:
                lines.append(f"  {key:24} n/a ({system['unsupported'][key]})")
                continue
            lines.append(f"  {key:24} {f[key]['successes']}/{f[key]['n']} = {f[key]['rate']:.1%}")
        lines.append(f"  names per concept       {f['names_per_concept_mean']}")
        lines.append(f"  LLM calls per turn      {f['llm_calls_per_turn']}")
        lines.append(f"  seconds per turn        {f['seconds_per_turn']}")
        lines.append(f"  fact errors             {f['fact_errors']}")
    return "\n".join(lines)


PUBLISHED_FIGURES = (
    "now", "as_of", "when", "before", "current", "as_of_read", "current_resolved",
    "as_of_read_resolved", "one_name_per_concept", "entities_one_name", "fact_precision",
    "fact_recall",
)  # fmt: skip


def published(record: dict[str, Any], system: str = "apexmem") -> dict[str, Any]:
    """The headline summary of a run on a held-out set (``HELD_OUT``) in the format of
    ``benchmarks/published``."""
    held_out = HELD_OUT.get(record["set"])
    if held_out is None:
        raise SystemExit(
            f"only a run on a held-out set ({', '.join(HELD_OUT)}) is published "
            f"(the {record['set']} set is not one)"
        )
    f = record["systems"][system]["figures"]
    figures: dict[str, Any] = {k: f[k] for k in PUBLISHED_FIGURES}
    figures |= {k: f[k] for k in ("names_per_concept_mean", "llm_calls_per_turn",
                                  "seconds_per_turn", "answer_seconds_p50")}  # fmt: skip
    peers = {name: s for name, s in record["systems"].items() if name != system}
    for name, peer in peers.items():
        figures |= {f"{name}_{k}": v for k, v in peer["figures"].items() if k in PEER_FIGURES}
    data = record["data"]
    out = {
        "order": 5,
        "name": "Construction quality with known truth: answers, reads, property names, facts",
        "command": record["command"],
        "commit": record["commit"],
        "date": record["started_at"][:10],
        "model": record.get("model"),
        "tuned_on": held_out.tuned_on,
        "evaluated_on": f"{held_out.evaluated_on}, seed {record['seed']}; "
        f"{data['conversations']} generated conversations, {data['turns']} turns, "
        f"{data['questions']} questions, {record['store']} store, answers in the default mode",
        "figures": figures,
        "ci95": {
            k: [round(x, 4) for x in wilson(f[k]["successes"], f[k]["n"])]
            for k in PUBLISHED_FIGURES
            if f[k]["n"]
        },  # fmt: skip
        "table": [
            {
                "result": f"Construction quality ({held_out.label}): now / as-of / "
                "when-changed answers (n={now[n]} / {as_of[n]} / {when[n]})",
                "figure": "{now[rate]:.0%} / {as_of[rate]:.0%} / {when[rate]:.0%}",
                "ci95": "now",
            },
            {
                "result": f"Construction quality ({held_out.label}): current() / as_of() "
                "right on the canonical name (n={current[n]} / {as_of_read[n]})",
                "figure": "{current[rate]:.0%} / {as_of_read[rate]:.0%}",
                "ci95": "current",
            },
            {
                "result": f"Construction quality ({held_out.label}): one property name per concept "
                "(n={one_name_per_concept[n]})",
                "figure": "{one_name_per_concept[rate]:.0%} ({names_per_concept_mean} names per "
                "concept; {llm_calls_per_turn} LLM calls per turn)",
                "ci95": "one_name_per_concept",
            },
            {
                "result": f"Construction quality ({held_out.label}): fact precision / recall "
                "(n={fact_precision[n]} / {fact_recall[n]})",
                "figure": "{fact_precision[rate]:.0%} / {fact_recall[rate]:.0%}",
                "ci95": "fact_precision",
            },
        ],  # fmt: skip
        **({"runs": record["runs"]} if "runs" in record else {}),
        "notes": "Deterministic scoring, no LLM judge: a value answer is right when it names "
        "the gold value, a when-answer when it names the gold day (or month, for 'last "
        "month'). Intervals: Wilson.",
    }
    for name, peer in peers.items():
        out["ci95"] |= {
            f"{name}_{k}": [round(x, 4) for x in wilson(v["successes"], v["n"])]
            for k, v in peer["figures"].items()
            if k in PEER_FIGURES and isinstance(v, dict) and v["n"]
        }  # fmt: skip
        out["table"] += _peer_rows(name, peer)
        out.setdefault("peers", {})[name] = {
            "config": peer.get("config"), "unsupported": peer.get("unsupported", {}),
        }  # fmt: skip
    return out


PEER_FIGURES = ("now", "as_of", "when", "before", "fact_precision", "fact_recall",
                "llm_calls_per_turn", "seconds_per_turn")  # fmt: skip


def _peer_rows(name: str, peer: dict[str, Any]) -> list[dict[str, str]]:
    """The table rows of a second arm: its answers and, when it stores them, its facts."""
    label = {"mem0": "Mem0 (stock mem0ai, same model and embedder)"}.get(name, name)
    rows = [{
        "result": f"Construction quality, {label}: now / as-of / when-changed answers "
        f"(n={{{name}_now[n]}} / {{{name}_as_of[n]}} / {{{name}_when[n]}})",
        "figure": f"{{{name}_now[rate]:.0%}} / {{{name}_as_of[rate]:.0%}} / "
        f"{{{name}_when[rate]:.0%}} ({{{name}_seconds_per_turn}} s per turn)",
        "ci95": f"{name}_now",
    }]  # fmt: skip
    if peer["figures"].get("fact_precision") is not None:
        rows.append({
            "result": f"Construction quality, {label}: fact precision / recall "
            f"(n={{{name}_fact_precision[n]}} / {{{name}_fact_recall[n]}})",
            "figure": f"{{{name}_fact_precision[rate]:.0%}} / {{{name}_fact_recall[rate]:.0%}}",
            "ci95": f"{name}_fact_precision",
        })  # fmt: skip
    return rows


def merge_results(records: list[dict[str, Any]]) -> dict[str, Any]:
    """One record holding the systems of several runs of one set (each arm run on its own,
    e.g. when an arm's server cannot share the machine); the first run's provenance leads
    and every run's own provenance is kept under ``runs``."""
    first = records[0]
    for other in records[1:]:
        if (other["set"], other["seed"]) != (first["set"], first["seed"]):
            raise SystemExit(
                f"cannot merge runs of different sets: {first['set']} seed {first['seed']} "
                f"and {other['set']} seed {other['seed']}"
            )
    if len(records) == 1:
        return first
    merged = {**first, "systems": {}}
    merged["runs"] = [{k: r[k] for k in ("command", "commit", "started_at", "load_avg_1_5_15")
                       if k in r} | {"systems": sorted(r["systems"])} for r in records]  # fmt: skip
    for record in records:
        merged["systems"] |= record["systems"]
    return merged


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = _args(argv)
    if args.from_results is not None:
        record = merge_results([json.loads(p.read_text("utf-8")) for p in args.from_results])
    else:
        args.out = args.out or RESULTS / f"construction_quality_{args.set_name}.json"
        try:
            record = run(args, argv)
        except (Mem0ArmError, ServiceError) as exc:
            print(exc, file=sys.stderr)
            return 1
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(record, indent=1, default=str), encoding="utf-8")
        print(summary(record))
        print(f"written to {args.out}")
    if args.publish:
        summary_out = published(record)
        summary_out["notes"] = " ".join(filter(None, (summary_out["notes"], args.note)))
        target = PUBLISHED / HELD_OUT[record["set"]].file
        target.write_text(json.dumps(summary_out, indent=2) + "\n", "utf-8")
        print(f"published to {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
