"""The Alice case as gold facts: favourite restaurant Italian Garden, then Sakura Sushi.

Written straight into a store (no extraction), with sessions, turns, evidence and events so
that every fact traces back to the turn that said it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final, TypeVar

from pydantic import BaseModel

from apexmem_neo.memory.views import ScopedSearcher
from apexmem_neo.ontology import (
    Entity,
    Event,
    EventParticipant,
    Evidence,
    Fact,
    GraphBatch,
    Session,
    Turn,
)
from apexmem_neo.search import HybridSearch, documents_from_batch
from apexmem_neo.search.backends.embedded import EmbeddedIndex
from apexmem_neo.store.sqlite import SQLiteGraphStore
from apexmem_neo.testing import HashingEmbedder

T = TypeVar("T", bound=BaseModel)

SESSION: Final = "alice_ses_1"
TURN_1: Final = "alice_turn_1"
TURN_2: Final = "alice_turn_2"
ALICE: Final = "alice_ent"
EVENT_1: Final = "alice_ev_1"
EVENT_2: Final = "alice_ev_2"
TEXT_1: Final = "My favourite restaurant is Italian Garden. I ate there last Saturday."
TEXT_2: Final = "I have a new favourite restaurant now: Sakura Sushi!"


def alice_batch(prefix: str = "", name: str = "Alice", scope: str = "default") -> GraphBatch:
    """The case in ``scope``; ``prefix`` goes before every id and ``name`` names Alice, so
    that a shared Neo4j database can hold a copy no other test's graph collides with."""
    p = prefix
    turns = [
        Turn(turn_id=p + TURN_1, session_id=p + SESSION, seq=0, speaker=name, listener="Bob",
             text=TEXT_1, anchor_datetime="2024-01-15T10:00:00"),
        Turn(turn_id=p + TURN_2, session_id=p + SESSION, seq=1, speaker=name, listener="Bob",
             text=TEXT_2, anchor_datetime="2024-03-20T10:00:00"),
    ]  # fmt: skip
    evidence = [
        Evidence(evidence_id=p + "alice_evd_1", turn_id=p + TURN_1, text=TEXT_1),
        Evidence(evidence_id=p + "alice_evd_2", turn_id=p + TURN_2, text=TEXT_2),
    ]
    events = [
        Event(event_id=p + EVENT_1, event_type="preference", anchor_datetime="2024-01-15T10:00:00",
              turn_id=p + TURN_1, evidence_id=p + "alice_evd_1"),
        Event(event_id=p + EVENT_2, event_type="preference_change",
              anchor_datetime="2024-03-20T10:00:00", turn_id=p + TURN_2,
              evidence_id=p + "alice_evd_2"),
    ]  # fmt: skip
    facts = [
        Fact(entity_id=p + ALICE, property="favourite_restaurant", dtype="str",
             value="Italian Garden", t_from="2024-01-15", event_id=p + EVENT_1,
             evidence_id=p + "alice_evd_1", fact_id=f"{p}alice_fact_1" if p else ""),
        Fact(entity_id=p + ALICE, property="favourite_restaurant", dtype="str",
             value="Sakura Sushi", t_from="2024-03-20", event_id=p + EVENT_2,
             evidence_id=p + "alice_evd_2", fact_id=f"{p}alice_fact_2" if p else ""),
    ]  # fmt: skip
    return GraphBatch(
        sessions=[Session(session_id=p + SESSION, conversation_id=p + "alice_conv", seq=1,
                          started_at="2024-01-15T10:00:00")],
        turns=turns,
        entities=[Entity(entity_id=p + ALICE, name=name, entity_type="Person", role="Speaker",
                         scope=scope)],
        evidence=evidence,
        events=events,
        participants=[EventParticipant(event_id=e.event_id, entity_id=p + ALICE, role="Agent")
                      for e in events],
        facts=facts,
        recorded_at="2024-03-21T00:00:00",
        scope=scope,
    )  # fmt: skip


def visit_batch(prefix: str = "", scope: str = "default") -> GraphBatch:
    """A fact of turn 1 dated by time words ("I ate there last Saturday"): it holds from two
    days before the turn was said, so the agent's context shows it under that turn."""
    p = prefix
    fact = Fact(
        entity_id=p + ALICE, property="visited", dtype="str", value="Italian Garden",
        t_from="2024-01-13", event_id=p + EVENT_1, evidence_id=p + "alice_evd_1",
    )  # fmt: skip
    return GraphBatch(facts=[fact], recorded_at="2024-03-21T00:00:00", scope=scope)


def alice_store(path: Path, scope: str = "default") -> SQLiteGraphStore:
    """A SQLite store at ``path`` holding the Alice case in ``scope`` (schema ready, open)."""
    store = SQLiteGraphStore(path)
    store.init_schema()
    store.write(alice_batch(scope=scope))
    return store


def alice_search() -> ScopedSearcher:
    """An in-memory hybrid search over the Alice case (scope "default") with the hashing
    embedder, seen from that scope as the tools see it."""
    search = HybridSearch(EmbeddedIndex(), HashingEmbedder())
    search.create()
    search.index_documents(documents_from_batch(alice_batch()))
    return ScopedSearcher(search, "default")


def quotes(base: T, n: int) -> list[T]:
    """``n`` long free-text values of one property of Alice (notes rather than states), as a
    small model extracts them, copied from the fact ``base``; quote 3 is about hiking."""
    return [
        base.model_copy(
            update={
                "property": "inspiring_story",
                "value": f"Quote {i}: " + ("we went hiking " if i == 3 else "so much fun ") * 6,
                "fact_id": f"q{i}",
                "t_from": f"2024-02-{i % 28 + 1:02d}T00:00:00",
            }
        )
        for i in range(n)
    ]
