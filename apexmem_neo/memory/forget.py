"""``Memory.forget``: erase a scope, a session or an entity everywhere a copy of it lives.

The store deletes the rows and records the erasure (ids and counts, no content); then the
checkpoint drops the staged batches, raw LLM output, decisions and catalog entries built
from them; the search index drops their documents and the embedding cache the vectors of
those documents' texts; entities that stay but lost facts are indexed again; last, the
SQLite files are rewritten so no freed page keeps an erased byte.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import BaseModel

from apexmem_neo.memory.messages import session_number
from apexmem_neo.ontology import GraphBatch, ids
from apexmem_neo.store.erasure import Erasure, ErasureTarget

if TYPE_CHECKING:
    from apexmem_neo.memory.core import Memory

SEARCHABLE_KINDS = ("turn", "event", "evidence", "entity", "property")
"""The erased id kinds that have search documents."""


class ForgetResult(BaseModel):
    """What ``forget`` erased: the store's record, and the copies removed elsewhere."""

    erasure: Erasure
    checkpoint_rows: int = 0
    documents: int = 0
    """Search documents removed (0 without a search index)."""
    reindexed: int = 0
    """Documents written again for entities that stay but lost facts."""


def erasure_target(
    memory: Memory, scope: str, session: str | None, entity: str | None
) -> ErasureTarget:
    """The target ``forget`` names: a session by its name, an entity by name or id."""
    if session is not None and entity is not None:
        raise ValueError("forget a session or an entity, not both at once")
    if session is not None:
        return ErasureTarget(
            scope=scope, sessions=(ids.session_id(scope, session_number(session)),)
        )
    if entity is not None:
        return ErasureTarget(scope=scope, entities=(memory.entity(entity, scope=scope).entity_id,))
    return ErasureTarget(scope=scope)


def forget(memory: Memory, target: ErasureTarget) -> ForgetResult:
    """Erase ``target`` from the store, the checkpoint, the search index and the embedding
    cache (the caller holds the write lock)."""
    erasure = memory.store.erase(target)
    result = ForgetResult(erasure=erasure)
    result.checkpoint_rows = memory.checkpoint.forget(erasure)
    if memory.search_index is not None:
        result.documents, result.reindexed = _forget_documents(memory, erasure)
    memory.store.compact()
    memory.checkpoint.compact()
    return result


def _forget_documents(memory: Memory, erasure: Erasure) -> tuple[int, int]:
    search = memory.search_index
    assert search is not None
    if erasure.kind == "scope":
        return len(search.forget(erasure.scope)), 0
    graph_ids = [i for kind in SEARCHABLE_KINDS for i in erasure.erased_ids.get(kind, [])]
    removed = search.forget(erasure.scope, [*graph_ids, *erasure.touched_entities])
    stays = [memory.store.get_entity(e, scope=erasure.scope) for e in erasure.touched_entities]
    survivors = [e for e in stays if e is not None]
    if not survivors:
        return len(removed), 0
    batch = GraphBatch(scope=erasure.scope, entities=survivors)
    return len(removed), memory._follow([batch], None)  # the package's own indexing path
