"""SQL vs Cypher: run the study's arms on the gold questions and report per arm.

    python -m benchmarks.query_languages.run --arms sqlite-sql,neo4j-sql,neo4j-cypher,text2cypher \\
        --limit 10 --out benchmarks/results/query_languages.json

Resumable: every (arm, question) result is appended to a JSONL file (``--results``, default
the ``--out`` path with ``.jsonl``) and skipped on the next run. Questions are asked in file
order (kinds interleaved), each by every arm before the next, so that the shared CPU's load
falls on all arms alike. Neo4j: the gold graph (ids prefixed ``ql_``) is loaded into the
server at NEO4J_URI, so point it at a server of its own, or pass ``--private-neo4j``: a
Neo4j of the study's own (data under $APEXMEM_HOME/study-neo4j, Bolt on 127.0.0.1:7798,
borrowing the shared build), started for the run and stopped after it. The runner refuses a
server that holds entities other than the study's. ``--delete-after`` removes the gold nodes.
The model comes from APEXMEM_LM / APEXMEM_LM_API_BASE (the local Qwen2.5-Coder-1.5B-Instruct
Q4_K_M by default).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any, Final

from neo4j import Driver, GraphDatabase
from rich.console import Console
from rich.table import Table

from apexmem_neo.llm import make_lm
from apexmem_neo.services.neo4j_server import private_neo4j
from apexmem_neo.settings import Settings
from benchmarks.query_languages.arms import (
    AGENT_ARMS,
    AGENT_CONFIG,
    ARMS,
    build_agent_arm,
    delete_gold,
    open_stores,
)
from benchmarks.query_languages.generate import QUESTIONS, load_gold, load_questions
from benchmarks.query_languages.gold import PREFIX
from benchmarks.query_languages.metrics import QuestionRecord, aggregate
from benchmarks.query_languages.questions import Question
from benchmarks.query_languages.text2cypher import Text2CypherArm

DEFAULT_LM: Final = "openai/qwen2.5-coder-1.5b-instruct"
LOCAL_MODEL: Final = "Qwen2.5-Coder-1.5B-Instruct, Q4_K_M GGUF (1.5B parameters), llama-server"
COLUMNS: Final = (
    ("questions", "n"), ("accuracy_pct", "accuracy %"), ("queries", "queries"),
    ("query_success_pct", "query ok %"), ("first_try_success_pct", "first try ok %"),
    ("recovery_pct", "recovered %"), ("no_query_pct", "no query %"),
    ("tool_calls_mean", "tool calls"), ("tokens_mean", "tokens"),
    ("latency_p50_s", "p50 s"), ("latency_p95_s", "p95 s"), ("agent_errors", "agent errors"),
)  # fmt: skip
console = Console()


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description="SQL vs Cypher on the gold question set.")
    p.add_argument("--arms", default=",".join(ARMS), help=f"comma-separated, of {ARMS}")
    p.add_argument("--limit", type=int, default=None, help="first N questions (all: 120)")
    p.add_argument("--out", type=Path, default=Path("benchmarks/results/query_languages.json"))
    p.add_argument("--results", type=Path, default=None, help="per-question JSONL (resume)")
    p.add_argument("--questions", type=Path, default=QUESTIONS)
    p.add_argument("--sqlite", type=Path, default=None, help="gold SQLite file to (re)build")
    p.add_argument("--delete-after", action="store_true", help="delete ql_ nodes from Neo4j")
    p.add_argument(
        "--private-neo4j",
        action="store_true",
        help=f"run the Neo4j arms on a Neo4j of the study's own (port {STUDY_NEO4J_PORT})",
    )
    p.add_argument(
        "--allow-foreign-data",
        action="store_true",
        help="run although the Neo4j server holds entities that are not the study's",
    )
    p.add_argument("--report-only", action="store_true", help="only aggregate the JSONL")
    args = p.parse_args(argv)
    args.arms = [a.strip() for a in args.arms.split(",") if a.strip()]
    unknown = [a for a in args.arms if a not in ARMS]
    if unknown:
        p.error(f"unknown arm(s) {unknown}; choose from {list(ARMS)}")
    args.results = args.results or args.out.with_suffix(".jsonl")
    return args


def load_done(path: Path) -> list[QuestionRecord]:
    if not path.exists():
        return []
    lines = path.read_text(encoding="utf-8").splitlines()
    return [QuestionRecord.model_validate_json(line) for line in lines if line.strip()]


STUDY_NEO4J_PORT: Final = 7798


@contextmanager
def study_neo4j(settings: Settings) -> Iterator[str]:
    """The study's own Neo4j (started unless already up; stopped at the end if started here)."""
    home = settings.apexmem_home / "study-neo4j"
    service = private_neo4j(settings.apexmem_home, home, STUDY_NEO4J_PORT)
    console.print(f"starting the study's Neo4j at {service.uri} (data under {home})")
    started = service.up().started
    try:
        yield service.uri
    finally:
        if started:
            service.down()


FOREIGN_ENTITIES: Final = (
    "MATCH (e:Entity) WHERE NOT e.entity_id STARTS WITH $prefix RETURN count(e) AS n"
)


@contextmanager
def neo4j_driver(uri: str, needed: bool, allow_foreign: bool = False) -> Iterator[Driver | None]:
    if not needed:
        yield None
        return
    driver = GraphDatabase.driver(uri, auth=None)
    try:
        driver.verify_connectivity()
        records, _, _ = driver.execute_query(FOREIGN_ENTITIES, prefix=PREFIX)
    except Exception as exc:
        driver.close()
        raise SystemExit(f"error: Neo4j at {uri} is unavailable: {exc}") from exc
    foreign = int(records[0]["n"])
    if foreign and not allow_foreign:
        driver.close()
        raise SystemExit(
            f"error: Neo4j at {uri} holds {foreign:,} entities that are not the study's; the "
            "Neo4j arms would read them (counts, scans) and time their queries against them. "
            "Point NEO4J_URI at an empty server, or pass --allow-foreign-data."
        )
    try:
        yield driver
    finally:
        driver.close()


def run_arms(args: argparse.Namespace, settings: Settings, questions: list[Question]) -> None:
    """Ask every (arm, question) not yet in the results file; append each result at once."""
    done = {(r.arm, r.qid) for r in load_done(args.results)}
    todo = [(q, a) for q in questions for a in args.arms if (a, q.qid) not in done]
    if not todo:
        return
    needs_neo4j = any(a != "sqlite-sql" for a in args.arms)
    sqlite_path = args.sqlite or settings.data_dir / "query_languages_gold.sqlite"
    api_base, api_key = settings.lm_endpoint()
    lm = make_lm(settings.lm, api_base, api_key, max_tokens=400, timeout=600)
    args.results.parent.mkdir(parents=True, exist_ok=True)
    with ExitStack() as stack:
        uri = settings.neo4j_uri
        if args.private_neo4j and needs_neo4j:
            uri = stack.enter_context(study_neo4j(settings))
        driver = stack.enter_context(neo4j_driver(uri, needs_neo4j, args.allow_foreign_data))
        stores = stack.enter_context(
            open_stores(load_gold(), sqlite_path if "sqlite-sql" in args.arms else None, driver)
        )
        arms: dict[str, Any] = {a: build_agent_arm(a, lm, stores) for a in args.arms
                                if a in AGENT_ARMS}  # fmt: skip
        if "text2cypher" in args.arms and driver is not None and stores.neo4j_backend:
            arms["text2cypher"] = Text2CypherArm(
                driver, stores.neo4j_backend.schema(), settings.lm, api_base, api_key
            )
        for n, (question, arm) in enumerate(todo, 1):
            record = arms[arm].ask(question)
            with args.results.open("a", encoding="utf-8") as fh:
                fh.write(record.model_dump_json() + "\n")
            mark = "[green]ok[/]" if record.correct else "[red]wrong[/]"
            console.print(
                f"{n}/{len(todo)} {arm} {question.qid} {mark} {record.seconds:.0f}s "
                f"answer={record.answer[:60]!r} gold={record.gold!r}",
                highlight=False,
            )
        if args.delete_after and driver is not None:
            console.print(f"deleted {delete_gold(driver, load_gold())} gold nodes from Neo4j")


def report(
    args: argparse.Namespace, settings: Settings, questions: list[Question]
) -> dict[str, Any]:
    wanted = {q.qid for q in questions}
    records = [r for r in load_done(args.results) if r.qid in wanted and r.arm in args.arms]
    per_arm = {a: aggregate([r for r in records if r.arm == a]) for a in args.arms}
    return {
        "command": "python -m benchmarks.query_languages." + " ".join(["run", *sys.argv[1:]]),
        "model": settings.lm,
        "model_note": LOCAL_MODEL if settings.lm == DEFAULT_LM else settings.lm,
        "lm_api_base": settings.lm_endpoint()[0],
        "neo4j_uri": (
            f"bolt://127.0.0.1:{STUDY_NEO4J_PORT} (the study's own, --private-neo4j)"
            if args.private_neo4j
            else settings.neo4j_uri
        ),
        "agent_config": AGENT_CONFIG.model_dump(mode="json"),
        "load_average": list(os.getloadavg()),
        "questions": len(questions),
        "arms": per_arm,
    }


def print_table(summary: dict[str, Any]) -> None:
    table = Table(title=f"SQL vs Cypher, {summary['model_note']}")
    table.add_column("arm")
    for _, label in COLUMNS:
        table.add_column(label, justify="right")
    for arm, figures in summary["arms"].items():
        table.add_row(arm, *[_fmt(figures.get(key)) for key, _ in COLUMNS])
    console.print(table)
    errors = Table(title="query error classes (count of queries)")
    errors.add_column("arm")
    classes = sorted({c for f in summary["arms"].values() for c in f["error_classes"]})
    for c in classes:
        errors.add_column(c, justify="right")
    for arm, figures in summary["arms"].items():
        errors.add_row(arm, *[str(figures["error_classes"].get(c, 0)) for c in classes])
    console.print(errors)


def _fmt(value: Any) -> str:
    return "-" if value is None else str(value)


def markdown(summary: dict[str, Any]) -> str:
    head = ["arm", *[label for _, label in COLUMNS]]
    lines = [
        f"# SQL vs Cypher (first {summary['questions']} questions; n = answered per arm)", "",
        f"Model: {summary['model']} ({summary['model_note']}). Command: `{summary['command']}`.",
        f"Load average at the end: {summary['load_average']}.", "",
        "| " + " | ".join(head) + " |", "|" + "---|" * len(head),
    ]  # fmt: skip
    for arm, f in summary["arms"].items():
        lines.append("| " + " | ".join([arm, *[_fmt(f.get(k)) for k, _ in COLUMNS]]) + " |")
    classes = sorted({c for f in summary["arms"].values() for c in f["error_classes"]})
    lines += ["", "## Query error classes", "", "| arm | " + " | ".join(classes) + " |",
              "|" + "---|" * (len(classes) + 1)]  # fmt: skip
    for arm, f in summary["arms"].items():
        cells = [str(f["error_classes"].get(c, 0)) for c in classes]
        lines.append("| " + " | ".join([arm, *cells]) + " |")
    kinds = sorted({k for f in summary["arms"].values() for k in f["accuracy_by_kind"]})
    lines += ["", "## Accuracy by question kind (%)", "", "| arm | " + " | ".join(kinds) + " |",
              "|" + "---|" * (len(kinds) + 1)]  # fmt: skip
    for arm, f in summary["arms"].items():
        cells = [_fmt(f["accuracy_by_kind"].get(k)) for k in kinds]
        lines.append("| " + " | ".join([arm, *cells]) + " |")
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    settings = Settings()
    questions = load_questions(args.questions)[: args.limit]
    if not args.report_only:
        run_arms(args, settings, questions)
    summary = report(args, settings, questions)
    print_table(summary)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    args.out.with_suffix(".md").write_text(markdown(summary), encoding="utf-8")
    console.print(f"wrote {args.out}, {args.out.with_suffix('.md')} and {args.results}")


if __name__ == "__main__":
    main()
