"""Erasure: the one exception to append-only, and the record it leaves.

``GraphStore.erase(target)`` deletes what ``target`` names within one scope and records an
``Erasure`` (what kind of thing was erased, its ids, how many rows, when; no content):

* the whole scope: every row of the scope;
* sessions: their turns, the evidence and events of those turns, the facts those events or
  that evidence assert, the events' participants, and then the scope's entities and
  properties that no remaining fact or participant uses;
* entities: their facts and participant rows, and the entities themselves (the turns that
  mentioned them stay: they are the user's conversation, not the entity).

The ``Erasure`` also lists the erased turn, event, evidence, entity and property ids and the
surviving entities whose facts changed, so the caller can erase the search documents and
checkpoint rows built from them and re-index the survivors.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

ErasureKind = Literal["scope", "sessions", "entities"]


class ErasureTarget(BaseModel):
    """What to erase in ``scope``: named sessions, named entities, or (neither) everything."""

    model_config = ConfigDict(frozen=True)

    scope: str = Field(min_length=1)
    sessions: tuple[str, ...] = ()
    entities: tuple[str, ...] = ()

    @property
    def kind(self) -> ErasureKind:
        if self.sessions and self.entities:
            raise ValueError("erase sessions or entities, not both at once")
        return "sessions" if self.sessions else "entities" if self.entities else "scope"


class Erasure(BaseModel):
    """What one erase removed. ``record()`` is the part a store keeps: no content."""

    erasure_id: str = Field(default_factory=lambda: uuid.uuid4().hex)
    scope: str
    kind: ErasureKind
    targets: tuple[str, ...] = ()
    erased_at: str = Field(
        default_factory=lambda: datetime.now(UTC).replace(tzinfo=None).isoformat("T", "seconds")
    )
    counts: dict[str, int] = {}
    erased_ids: dict[str, list[str]] = {}
    """Per kind (turn, event, evidence, entity, property, session), the ids erased."""
    touched_entities: list[str] = []
    """Entities that stay but lost facts or participants (their search documents change)."""

    def record(self) -> dict[str, object]:
        """The audit row: ids and counts, never text."""
        return self.model_dump(
            include={"erasure_id", "scope", "kind", "targets", "erased_at", "counts"}
        )
