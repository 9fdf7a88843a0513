"""Write every arm's compiled few-shot program from the train split (no LLM call).

    python -m benchmarks.query_languages.compile [--gold-seeds 7,8] [--per-op 1] [--out-dir DIR]

Chooses the demo questions (``fewshot.select_demos``), runs each one's reference queries
where the arms run theirs (SQL on SQLite and through the shim on Neo4j, Cypher on Neo4j) and
writes nothing unless the judge accepts every answer; then saves the agent arms' ReAct
programs and the text2sql program with DSPy's ``save``, the text2cypher examples, and a
manifest, to ``compiled/s<seeds>/`` by default. Deterministic: re-running rewrites identical
files. Neo4j is the server at NEO4J_URI (``--private-neo4j``: the study's own), which, as for
the run, must hold no entities but the study's unless ``--allow-foreign-data``; the gold
nodes are deleted from it afterwards.
"""

from __future__ import annotations

import argparse
import tempfile
from collections.abc import Sequence
from contextlib import ExitStack
from pathlib import Path

from rich.console import Console

from apexmem_neo.query.backend import Language, QueryBackend
from apexmem_neo.settings import Settings
from benchmarks.query_languages.arms import (
    Stores,
    delete_gold,
    open_stores,
)
from benchmarks.query_languages.fewshot import (
    AGENT_LANGUAGES,
    FILES,
    MANIFEST,
    PER_OP,
    Demo,
    compile_agent,
    compile_text2sql,
    compiled_dir,
    manifest_for,
    select_demos,
    text2cypher_examples,
    write_json,
)
from benchmarks.query_languages.generate import QUESTIONS
from benchmarks.query_languages.gold import DEFAULT_SEED
from benchmarks.query_languages.reference import judged_correct
from benchmarks.query_languages.run import load_study, neo4j_driver, parse_seeds, study_neo4j
from benchmarks.query_languages.text2sql import text2sql_program

console = Console()


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--gold-seeds", type=parse_seeds, default=None,
                   help=f"seeds of a generated gold graph (default: the data files, seed "
                   f"{DEFAULT_SEED})")  # fmt: skip
    p.add_argument("--per-op", type=int, default=PER_OP, help="demo questions per op")
    p.add_argument("--out-dir", type=Path, default=None, help="default: compiled/s<seeds>")
    p.add_argument("--private-neo4j", action="store_true", help="the study's own Neo4j")
    p.add_argument("--allow-foreign-data", action="store_true",
                   help="verify on a Neo4j that holds entities other than the study's")  # fmt: skip
    args = p.parse_args(argv)
    args.questions = QUESTIONS  # the data files, as the run reads them without --gold-seeds
    args.seeds = args.gold_seeds or [DEFAULT_SEED]
    args.out_dir = args.out_dir or compiled_dir(args.seeds)
    return args


def query_paths(stores: Stores) -> list[tuple[str, QueryBackend, Language]]:
    """(label, backend, language) of every way an arm runs a query."""
    assert stores.sqlite_backend is not None and stores.neo4j_backend is not None
    return [("SQL on SQLite", stores.sqlite_backend, "sql"),
            ("SQL through the shim", stores.neo4j_backend, "sql"),
            ("Cypher on Neo4j", stores.neo4j_backend, "cypher")]  # fmt: skip


def failures(demos: Sequence[Demo], stores: Stores) -> list[str]:
    """A line per reference query of ``demos`` whose judged answer is not the gold."""
    out = []
    for demo in demos:
        q = demo.question
        for label, backend, language in query_paths(stores):
            ok, answer = judged_correct(backend, demo.query(language), language, q)
            if not ok:
                out.append(f"{q.qid} {label}: answered {answer!r}, gold {q.gold!r}")
    return out


def write_programs(demos: Sequence[Demo], stores: Stores, out_dir: Path) -> None:
    """Every arm's compiled file, each program built as the run builds the arm."""
    out_dir.mkdir(parents=True, exist_ok=True)
    for arm, language in AGENT_LANGUAGES.items():
        compile_agent(demos, language).save(str(out_dir / FILES[arm]))
    assert stores.sqlite_backend is not None
    plain = text2sql_program(stores.sqlite_backend, stores.sqlite_backend.schema())
    compile_text2sql(plain, demos).save(str(out_dir / FILES["text2sql"]))
    write_json(out_dir / FILES["text2cypher"], {"examples": text2cypher_examples(demos)})


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    settings = Settings()
    gold, questions = load_study(args)
    names = {e.entity_id: e.name for e in gold.entities}
    demos = select_demos(questions, names, args.per_op)
    with ExitStack() as stack:
        uri = stack.enter_context(study_neo4j(settings)) if args.private_neo4j else None
        driver = stack.enter_context(
            neo4j_driver(uri or settings.neo4j_uri, True, args.allow_foreign_data)
        )
        sqlite = Path(stack.enter_context(tempfile.TemporaryDirectory())) / "gold.sqlite"
        try:
            stores = stack.enter_context(open_stores(gold, sqlite, driver))
            wrong = failures(demos, stores)
            if wrong:
                raise SystemExit("error: reference queries the judge refuses; nothing "
                                 "written:\n" + "\n".join(wrong))  # fmt: skip
            write_programs(demos, stores, args.out_dir)
        finally:
            assert driver is not None
            delete_gold(driver, gold)
    write_json(args.out_dir / MANIFEST,
               manifest_for(demos, args.seeds, args.per_op).model_dump(mode="json"))  # fmt: skip
    ops = ", ".join(d.question.spec.op for d in demos)
    console.print(f"{len(demos)} verified demos per arm ({ops}) -> {args.out_dir}")


if __name__ == "__main__":
    main()
