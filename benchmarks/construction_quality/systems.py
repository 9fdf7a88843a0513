"""The systems a construction-quality run measures, each behind one small interface, so a
second arm (``mem0_arm.Mem0``) sits beside apexmem-neo with its results keyed by its name.

``ApexMem`` goes through the public API only: ``Memory.from_settings`` (as the CLI builds a
memory), ``ingest_file`` on the generated JSONL, ``ask`` in the default mode, ``query`` (SQL,
on either store) to list a scope's facts, and ``entity`` / ``current`` / ``as_of`` for reads.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Protocol

from apexmem_neo import Memory
from apexmem_neo.construction import PipelineConfig
from apexmem_neo.memory import NothingToForgetError, UnknownEntityError
from benchmarks.construction_quality.questions import Read
from benchmarks.construction_quality.scoring import FactRow, ReadResult
from benchmarks.construction_quality.truth import Conversation, DataSet, Question
from benchmarks.memory import construction_cost, print_progress

FACTS_SQL = (
    "SELECT f.fact_id, e.name, f.property, f.value_json, f.t_from, f.t_to, t.text "
    "FROM facts f JOIN entities e ON e.entity_id = f.entity_id "
    "LEFT JOIN evidence ev ON ev.evidence_id = f.evidence_id "
    "LEFT JOIN turns t ON t.turn_id = ev.turn_id ORDER BY f.t_from, f.fact_id"
)
MAX_FACTS = 20_000


class System(Protocol):
    """What the run needs from a memory system."""

    name: str
    unsupported: dict[str, str]
    """Figures that cannot be computed for this system, each with the reason (None in the
    results, never a number)."""

    def ingest(self, data: DataSet, jsonl: Path) -> dict[str, Any]: ...

    def ask(self, conv: Conversation, question: Question) -> dict[str, Any]: ...

    def facts(self, conv: Conversation) -> list[FactRow]: ...

    def read(self, conv: Conversation, read: Read, prop: str | None, style: str) -> ReadResult: ...

    def close(self) -> None: ...


def _decode(raw: Any) -> Any:
    try:
        return json.loads(raw)
    except (TypeError, ValueError):
        return raw


class ApexMem:
    """apexmem-neo as a user builds it from the environment (store, LM, embedder)."""

    name = "apexmem"
    unsupported: dict[str, str] = {}

    def __init__(
        self,
        store: str,
        db: Path,
        namespace: str,
        fresh: bool = False,
        extraction_program: Path | None = None,
    ) -> None:
        if fresh:
            _remove(store, db)
        db.parent.mkdir(parents=True, exist_ok=True)
        self.memory = Memory.from_settings(store=store, db=db, index_name=namespace)
        self.model = str(getattr(self.memory.lm, "model", None))
        self.pipeline = PipelineConfig(extraction_program=extraction_program)
        self.config = {"extraction_program": str(extraction_program)} if extraction_program else {}

    def forget(self, data: DataSet) -> None:
        """Erase the set's conversations (a fresh run on a shared Neo4j)."""
        for conv in data.conversations:
            try:
                self.memory.forget(scope=conv.conversation_id)
            except NothingToForgetError:
                continue

    def ingest(self, data: DataSet, jsonl: Path) -> dict[str, Any]:
        """Ingest the set (turns already done are skipped), then the cost of every
        construction run this store's checkpoint holds."""
        self.memory.ingest_file(jsonl, config=self.pipeline, on_turn=print_progress)
        cost = construction_cost(self.memory.checkpoint)
        turns = cost["turns"] or 1.0
        return {
            **cost,
            "llm_calls_per_turn": round(cost["llm_calls"] / turns, 3),
            "seconds_per_turn": round(cost["wall_seconds"] / turns, 2),
            "failed_turns": len(self.memory.checkpoint.failed()),
        }

    def ask(self, conv: Conversation, question: Question) -> dict[str, Any]:
        res = self.memory.ask(question.text, scope=conv.conversation_id, at=question.at)
        return {
            "answer": res.answer, "seconds": res.seconds, "llm_calls": res.llm_calls,
            "tokens": res.tokens, "mode": res.mode, "error": res.error,
        }  # fmt: skip

    def facts(self, conv: Conversation) -> list[FactRow]:
        rows = self.memory.query(FACTS_SQL, "sql", scope=conv.conversation_id, limit=MAX_FACTS).rows
        return [
            FactRow(
                fact_id=str(r[0]), entity=str(r[1]), property=str(r[2]), value=_decode(r[3]),
                t_from=r[4], t_to=r[5], turn_text=r[6],
            )
            for r in rows
        ]  # fmt: skip

    def read(self, conv: Conversation, read: Read, prop: str | None, style: str) -> ReadResult:
        """``current`` or ``as_of`` of the owner's name under ``prop``, and the entity the
        name resolved to."""
        scope = conv.conversation_id
        result = ReadResult(read=read, style=style, property=prop, entity=None)
        if prop is None:
            result.error = "no property holds the concept"
            return result
        try:
            result.entity = self.memory.entity(read.owner, scope=scope).name
        except UnknownEntityError:
            result.error = "no entity"
            return result
        if read.at is None:
            fact = self.memory.current(read.owner, prop, scope=scope)
        else:
            fact = self.memory.as_of(read.owner, prop, read.at, scope=scope)
        result.value = fact.value if fact is not None else None
        return result

    def close(self) -> None:
        self.memory.close()


def _remove(store: str, db: Path) -> None:
    """Delete a SQLite store (and its search index) or a Neo4j run's checkpoint file."""
    files = [db, Path(f"{db}-wal"), Path(f"{db}-shm")]
    if store == "sqlite":
        search = db.with_suffix(".search.sqlite")
        files += [search, Path(f"{search}-wal"), Path(f"{search}-shm")]
    for file in files:
        file.unlink(missing_ok=True)
