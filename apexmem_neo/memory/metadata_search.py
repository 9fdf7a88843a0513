"""``Memory.search(..., metadata=...)``: turn hits whose turn's metadata matches.

The search indexes hold no metadata, so the filter runs after retrieval: the store reads,
session by session, which of the hits' turns hold every wanted key with an equal value
(``GraphStore.page`` with ``metadata``). To still return up to ``k`` hits where the index
ranks that many matching turns, the search asks for ``OVERFETCH`` times ``k`` hits and
doubles that until ``k`` match, the index has no more to give, or ``MAX_FETCH`` is reached.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from apexmem_neo.errors import InvalidInputError
from apexmem_neo.memory.views import ScopedSearcher
from apexmem_neo.ontology import Turn
from apexmem_neo.ontology.metadata import Metadata
from apexmem_neo.search.documents import DocKind
from apexmem_neo.search.engine import SearchHit, SearchResults
from apexmem_neo.search.protocol import SearchFilters
from apexmem_neo.store.pages import TURNS, Page, every_item
from apexmem_neo.store.scoped import ScopedStore

OVERFETCH: Final = 4
"""Hits asked for per hit wanted on the first try."""
MAX_FETCH: Final = 1024
"""The most hits one try asks for: past it, fewer than ``k`` matching hits come back."""


def search_with_metadata(
    searcher: ScopedSearcher,
    store: ScopedStore,
    query: str,
    k: int,
    kinds: tuple[DocKind, ...] | None,
    metadata: Metadata,
) -> SearchResults:
    """The top ``k`` turn hits for ``query`` whose turns hold ``metadata`` (over-fetching,
    as the module says, since the index cannot filter on metadata itself). Only turns carry
    metadata, so ``kinds`` must include them (``InvalidInputError`` otherwise) and the other
    kinds come back empty."""
    if kinds is not None and DocKind.TURN not in kinds:
        raise InvalidInputError("a metadata filter selects turns: include 'turn' in kinds")
    filters = SearchFilters(kinds=(DocKind.TURN,))
    fetch = max(k, 1) * OVERFETCH
    while True:
        found = searcher.search(query, fetch, filters)
        kept = _matching(found.turns, store, metadata)
        if len(kept) >= k or len(found.turns) < fetch or fetch >= MAX_FETCH:
            return found.model_copy(update={"turns": kept[:k]})
        fetch = min(fetch * 2, MAX_FETCH)


def _matching(hits: list[SearchHit], store: ScopedStore, metadata: Metadata) -> list[SearchHit]:
    """``hits`` whose turns hold ``metadata``, in their order."""
    sessions = {hit.session_id for hit in hits if hit.session_id is not None}
    held = _held_turns(store, sessions, metadata)
    return [hit for hit in hits if hit.graph_id in held]


def _held_turns(store: ScopedStore, sessions: Iterable[str], metadata: Metadata) -> set[str]:
    """The ids of the turns of ``sessions`` whose metadata holds ``metadata``."""
    held: set[str] = set()
    for session_id in sessions:
        one = {"session_id": session_id}

        def read(after: str | None, one: dict[str, str] = one) -> Page[Turn]:
            return store.page(TURNS, after=after, filters=one, metadata=metadata)

        held.update(turn.turn_id for turn in every_item(read))
    return held
