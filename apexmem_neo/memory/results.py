"""What the ``Memory`` methods return (pydantic data, no I/O)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel

from apexmem_neo.construction.checkpoint import DecisionRecord
from apexmem_neo.construction.pipeline import RunStats
from apexmem_neo.ontology import Entity
from apexmem_neo.store.protocol import ChangeRecord, FactRecord, StoreCounts

TurnStatus = Literal["stored", "done", "failed", "skipped"]


class StoredFact(BaseModel):
    """A fact as ``add`` reports it: the subject by name as well as by id."""

    fact_id: str
    entity_id: str
    entity: str
    property: str
    value: Any
    dtype: str
    t_from: str
    t_to: str | None
    confidence: float
    evidence: str | None = None


class AddedTurn(BaseModel):
    """One turn of an ``add``: ``stored`` (no extraction), ``done``, ``failed`` (kept as a bare
    turn, with the reason) or ``skipped`` (already in memory)."""

    turn_id: str
    speaker: str
    text: str
    anchor: str
    status: TurnStatus
    facts: list[StoredFact] = []
    decisions: list[DecisionRecord] = []
    error: str | None = None


class AddResult(BaseModel):
    """What one ``add`` or ``ingest_file`` stored."""

    scope: str | None
    turns: list[AddedTurn] = []
    llm_calls: int = 0
    tokens: int = 0
    seconds: float = 0.0
    indexed: int = 0
    """Search documents written or refreshed for these turns (0 without a search index)."""
    run: RunStats | None = None
    """The construction run's statistics (None when nothing was extracted)."""
    renamed: dict[str, str] = {}
    """Conversations stored under a scope made from their name, which is not a valid scope
    ({name: scope}, e.g. "my file (1)" -> "my-file-1"); read them with that scope."""

    @property
    def facts(self) -> list[StoredFact]:
        return [f for t in self.turns for f in t.facts]

    @property
    def failures(self) -> list[AddedTurn]:
        return [t for t in self.turns if t.status == "failed"]


class EntityHistory(BaseModel):
    """Every fact of one (entity, property) in time order, and when the value changed."""

    entity: Entity
    property: str
    facts: list[FactRecord]
    changes: list[ChangeRecord]


class MemoryStats(BaseModel):
    """What a memory holds and what it runs on."""

    store: str
    location: str
    counts: StoreCounts
    search: str | None
    search_documents: int | None
    embedder: str | None
    lm: str | None
