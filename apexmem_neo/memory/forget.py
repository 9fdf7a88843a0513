"""``Memory.forget``: erase a scope, a session or an entity everywhere a copy of it lives.

The store deletes the rows and records the erasure (ids and counts, no content); then the
checkpoint drops the staged batches, raw LLM output, decisions and catalog entries built
from them; the search index drops their documents and the embedding cache the vectors of
those documents' texts; entities that stay but lost facts are indexed again; last, the
SQLite files are rewritten so no freed page keeps an erased byte.

A target must name something stored: a session by the name it was given (``add(session=...)``,
a JSONL turn's ``session``; a loaded conversation's ``session_N``), an entity by its id or
exact name, or a scope that holds anything. Otherwise ``NothingToForgetError`` names what the
scope does hold, and nothing is erased or recorded.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Final

from pydantic import BaseModel

from apexmem_neo.errors import NothingToForgetError as NothingToForgetError
from apexmem_neo.memory.views import scoped_backend
from apexmem_neo.ontology import GraphBatch, ids
from apexmem_neo.query.backend import QueryLimits
from apexmem_neo.store.erasure import Erasure, ErasureTarget

if TYPE_CHECKING:
    from apexmem_neo.memory.core import Memory

SEARCHABLE_KINDS = ("turn", "event", "evidence", "entity", "property")
"""The erased id kinds that have search documents."""
NUMBERED_SESSION: Final = re.compile(r"session_(\d{1,5})")
"""Numbered session names, as the conversation loader gives them (``session_N`` is stored as
seq N), and how a session without a name (numbered in file order) is named in messages."""
MAX_NUMBERED: Final = 100_000
LISTED_SESSIONS: Final = 10
LOOKUP_LIMITS: Final = QueryLimits(max_rows=10_000, timeout_s=60, max_cell_chars=64)


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
    """The target ``forget`` names: a session by its name, an entity by id or exact name
    (never a search's guess), or the whole scope; ``NothingToForgetError`` when it names
    nothing stored."""
    if session is not None and entity is not None:
        raise ValueError("forget a session or an entity, not both at once")
    if session is not None:
        return ErasureTarget(scope=scope, sessions=_session_ids(memory, scope, session))
    if entity is not None:
        return ErasureTarget(scope=scope, entities=_entity_ids(memory, scope, entity))
    if not _rows(memory, scope, "SELECT session_id FROM sessions LIMIT 1") and not _rows(
        memory, scope, "SELECT entity_id FROM entities LIMIT 1"
    ):
        raise NothingToForgetError(f"scope {scope!r} holds nothing to forget")
    return ErasureTarget(scope=scope)


def session_numbers(name: str) -> list[int]:
    """The seqs a session called ``name`` may be stored under: the number of its name, and
    N for ``session_N`` (a loaded conversation's sessions, and sessions numbered in file
    order)."""
    numbers = [ids.session_number(name)]
    numbered = NUMBERED_SESSION.fullmatch(name)
    if numbered is not None:
        numbers.append(int(numbered.group(1)))
    return numbers


def _rows(memory: Memory, scope: str, sql: str) -> tuple[tuple[object, ...], ...]:
    """``sql`` over ``scope``'s rows only, through its scoped query backend."""
    return scoped_backend(memory.backend, scope).run(sql, "sql", {}, LOOKUP_LIMITS).rows


def _session_ids(memory: Memory, scope: str, name: str) -> tuple[str, ...]:
    """The stored sessions of ``scope`` that ``name`` names; NothingToForgetError (naming the
    sessions there are) when none is."""
    stored = {
        str(r[0]): int(str(r[1]))
        for r in _rows(memory, scope, "SELECT session_id, seq FROM sessions")
    }
    wanted = {ids.session_id(scope, n) for n in session_numbers(name)}
    found = tuple(sorted(wanted & stored.keys()))
    if found:
        return found
    raise NothingToForgetError(
        f"no session {name!r} in scope {scope!r}; {_session_list(memory, scope, stored)}. "
        "Name a session as it was given: add(session=...), the JSONL 'session' value or "
        "an ingested file's session_N"
    )


def _session_list(memory: Memory, scope: str, stored: dict[str, int]) -> str:
    """The scope's sessions for a message: by name where the name is known (``default``,
    ``session_N``), else by their turns' first date."""
    if not stored:
        return "it holds no session"
    sql = "SELECT session_id, MIN(anchor_datetime), COUNT(*) FROM turns GROUP BY session_id"
    turns = {str(r[0]): (str(r[1])[:10], int(str(r[2]))) for r in _rows(memory, scope, sql)}
    default = ids.session_number("default")
    described = []
    for session_id, seq in sorted(stored.items(), key=lambda item: turns.get(item[0], ("", 0))):
        first, count = turns.get(session_id, ("", 0))
        name = "'default'" if seq == default else f"'session_{seq}'" if seq < MAX_NUMBERED else ""
        when = f"{count} turns from {first}" if count else "no turns"
        described.append(f"{name} ({when})" if name else f"one named at ingest ({when})")
    more = len(described) - LISTED_SESSIONS
    listed = ", ".join(described[:LISTED_SESSIONS]) + (f" and {more} more" if more > 0 else "")
    return f"its sessions: {listed}"


def _entity_ids(memory: Memory, scope: str, entity: str) -> tuple[str, ...]:
    """The entity with id ``entity``, else every entity named exactly ``entity`` (any type),
    in ``scope``; NothingToForgetError when there is none."""
    by_id = memory.store.get_entity(entity, scope=scope)
    if by_id is not None:
        return (by_id.entity_id,)
    named = memory.store.find_entities(entity, scope=scope)
    if named:
        return tuple(e.entity_id for e in named)
    raise NothingToForgetError(
        f"no entity named {entity!r} in scope {scope!r} (forget takes an entity id or its "
        "exact name; `apexmem entity NAME` shows the closest one)"
    )


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
