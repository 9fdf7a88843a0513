"""The study's gold-graph form of a memory that construction built, with questions over it.

    python -m benchmarks.query_languages.real_memory \\
        --store benchmarks/results/conv30/s10_f8300f9.sqlite [--out-dir DIR] [--seed 7]

Reads one scope of a SQLite store (copied first with SQLite's backup, so the store itself is
never opened for writing) and writes to ``--out-dir`` (default under ``benchmarks/results/``,
which git ignores: the values come from LOCOMO and are never committed):

* ``gold_graph.json``: a GraphBatch of the scope's entities, events, participants and facts
  only (no sessions, turns or evidence, so no conversation text), every id of an entity or
  event prefixed ``ql_`` as the study's loader wants, fact ids and ``recorded_at`` kept so the
  store's fact order is the original's; entity descriptions are left out;
* ``questions.jsonl``: questions chosen by ``real_questions`` (its docstring says how), drawn
  with ``--seed``, gold computed on the reference store, each checked against its reference
  SQL on SQLite before anything is written;
* ``real_memory.json``: where it came from (store path, sha256, scope, seed, counts), which
  ``run --real-memory DIR`` copies into its record.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sqlite3
import tempfile
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Any, Final

from pydantic import BaseModel

from apexmem_neo.ontology import Entity, Event, Fact, GraphBatch
from apexmem_neo.query.sqlite_backend import SQLiteQueryBackend
from apexmem_neo.search.indexer import read_all
from apexmem_neo.store.columns import fact_model
from apexmem_neo.store.pages import ENTITIES, EVENTS, FACTS, PARTICIPANTS
from apexmem_neo.store.sqlite import SQLiteGraphStore
from benchmarks.query_languages.arms import sqlite_gold
from benchmarks.query_languages.generate import GOLD_GRAPH, QUESTIONS, reference_store
from benchmarks.query_languages.gold import DEFAULT_SEED, PREFIX
from benchmarks.query_languages.questions import Question, as_record
from benchmarks.query_languages.real_questions import PER_KIND, real_questions
from benchmarks.query_languages.reference import judged_correct, reference_query

EXAMPLE: Final = "benchmarks/results/conv30/s10_f8300f9.sqlite"
DEFAULT_OUT: Final = Path("benchmarks/results/query_languages_real/conv30_s10")
SOURCE: Final = "real_memory.json"
NEEDED_TABLES: Final = frozenset({"schema_version", "entities", "events", "event_participants",
                                  "facts"})  # fmt: skip


class NotAStoreError(ValueError):
    """A path that is not an apexmem SQLite store (missing, not SQLite, other tables)."""


class Source(BaseModel):
    """Where a real-memory question set came from, for the run's record."""

    store: str
    store_sha256: str
    scope: str
    seed: int
    per_kind: int
    entities: int
    facts: int
    questions: int
    by_kind: dict[str, int]


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def check_store(path: Path) -> None:
    """Raise ``NotAStoreError`` unless ``path`` is a SQLite file with the store's tables."""
    if not path.is_file():
        raise NotAStoreError(f"{path}: no such file")
    try:
        with closing(sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True)) as conn:
            rows = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
    except sqlite3.DatabaseError as exc:
        raise NotAStoreError(f"{path}: not a SQLite database ({exc})") from None
    missing = NEEDED_TABLES - {r[0] for r in rows}
    if missing:
        raise NotAStoreError(
            f"{path}: not an apexmem store (no table {', '.join(sorted(missing))})"
        )


@contextmanager
def opened_copy(path: Path) -> Iterator[SQLiteGraphStore]:
    """A ``SQLiteGraphStore`` on a temporary copy of ``path`` (SQLite's backup from a
    read-only connection, so a write-ahead log is included and the original stays as it is)."""
    check_store(path)
    with tempfile.TemporaryDirectory(prefix="apexmem-real-") as tmp:
        copy = Path(tmp) / "store.sqlite"
        source = sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True)
        with closing(source), closing(sqlite3.connect(copy)) as target:
            source.backup(target)
        store = SQLiteGraphStore(copy)
        store.init_schema()
        try:
            yield store
        finally:
            store.close()


def only_scope(store: SQLiteGraphStore, scope: str | None) -> str:
    """``scope``, or the store's one scope; ``NotAStoreError`` when that is ambiguous."""
    scopes = store.scopes()
    if scope is not None and scope not in scopes:
        raise NotAStoreError(f"the store has no scope {scope!r} (it has {scopes})")
    if scope is None and len(scopes) != 1:
        raise NotAStoreError(f"the store holds scopes {scopes}: name one with --scope")
    return scope or scopes[0]


def ql(any_id: str) -> str:
    return PREFIX + any_id


def study_fact(fact: Fact) -> Fact:
    """``fact`` on the study's ids, without its evidence (its id and times kept)."""
    event = ql(fact.event_id) if fact.event_id else None
    update = {"entity_id": ql(fact.entity_id), "event_id": event, "evidence_id": None}
    return fact.model_copy(update=update)


def graph_of(store: SQLiteGraphStore, scope: str) -> GraphBatch:
    """The scope's entities, events, participants and facts as the study's gold graph."""
    entities = [Entity(name=e.name, entity_type=e.entity_type, role=e.role, aliases=e.aliases,
                       recorded_at=e.recorded_at, entity_id=ql(e.entity_id))
                for e in read_all(store, ENTITIES, scope)]  # fmt: skip
    events = [Event(event_type=e.event_type, anchor_datetime=e.anchor_datetime,
                    location=e.location, recorded_at=e.recorded_at, event_id=ql(e.event_id))
              for e in read_all(store, EVENTS, scope)]  # fmt: skip
    participants = [p.model_copy(update={"event_id": ql(p.event_id), "entity_id": ql(p.entity_id)})
                    for p in read_all(store, PARTICIPANTS, scope)]  # fmt: skip
    facts = [study_fact(fact_model(r)) for r in read_all(store, FACTS, scope)]
    return GraphBatch(entities=entities, events=events, participants=participants, facts=facts)


def sql_disagreements(batch: GraphBatch, questions: Sequence[Question], path: Path) -> list[str]:
    """A line per question whose reference SQL, on ``batch`` in SQLite at ``path``, does not
    answer its gold by the study's judge."""
    names = {e.entity_id: e.name for e in batch.entities}
    sqlite_gold(path, batch).close()
    backend = SQLiteQueryBackend(path)
    wrong = []
    for q in questions:
        ok, answer = judged_correct(backend, reference_query(q, "sql", names), "sql", q)
        if not ok:
            wrong.append(f"{q.qid} ({q.spec.op}): SQL answers {answer!r}, gold {q.gold!r}")
    return wrong


def build(
    store_path: Path, seed: int = DEFAULT_SEED, per_kind: int = PER_KIND, scope: str | None = None
) -> tuple[GraphBatch, list[Question], Source]:
    """The gold graph of the store's scope, its questions and their source."""
    with opened_copy(store_path) as store:
        scope = only_scope(store, scope)
        batch = graph_of(store, scope)
    questions = real_questions(batch, reference_store(batch), seed, per_kind)
    source = Source(store=str(store_path), store_sha256=sha256_of(store_path), scope=scope,
                    seed=seed, per_kind=per_kind, entities=len(batch.entities),
                    facts=len(batch.facts), questions=len(questions),
                    by_kind=dict(Counter(q.kind for q in questions)))  # fmt: skip
    return batch, questions, source


def write_files(
    batch: GraphBatch, questions: Sequence[Question], source: Source, out_dir: Path
) -> None:
    """The graph (ends kept: a fact's None value is data), the questions and the source."""
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / GOLD_GRAPH.name).write_text(batch.model_dump_json(indent=1) + "\n", encoding="utf-8")
    rows = [json.dumps(as_record(q), ensure_ascii=False) for q in questions]
    (out_dir / QUESTIONS.name).write_text("\n".join(rows) + "\n", encoding="utf-8")
    (out_dir / SOURCE).write_text(source.model_dump_json(indent=2) + "\n", encoding="utf-8")


def load_source(directory: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((directory / SOURCE).read_text(encoding="utf-8"))
    return data


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--store", type=Path, required=True, help=f"a SQLite store, e.g. {EXAMPLE}")
    p.add_argument("--out-dir", type=Path, default=DEFAULT_OUT)
    p.add_argument("--seed", type=int, default=DEFAULT_SEED)
    p.add_argument("--per-kind", type=int, default=PER_KIND)
    p.add_argument("--scope", default=None, help="the scope to read (default: the only one)")
    return p.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    try:
        batch, questions, source = build(args.store, args.seed, args.per_kind, args.scope)
    except NotAStoreError as exc:
        raise SystemExit(f"error: {exc}") from None
    with tempfile.TemporaryDirectory(prefix="apexmem-real-sql-") as tmp:
        wrong = sql_disagreements(batch, questions, Path(tmp) / "gold.sqlite")
    if wrong:
        raise SystemExit("error: reference SQL disagrees with the gold; nothing written:\n"
                         + "\n".join(wrong))  # fmt: skip
    write_files(batch, questions, source, args.out_dir)
    print(f"store {args.store} sha256 {source.store_sha256} (scope {source.scope!r})")
    print(f"{source.entities} entities, {source.facts} facts, {len(questions)} questions "
          f"(seed {args.seed}), reference SQL agrees on all -> {args.out_dir}")  # fmt: skip
    for kind, n in sorted(source.by_kind.items()):
        print(f"  {kind}: {n}")


if __name__ == "__main__":
    main()
