"""Scopes are walls: the cases every SearchIndex must pass, in every search mode.

Two scopes hold documents of every kind that share their words ("Mom lives in Lisbon" /
"Mom lives in Oslo"); a search in one scope must return only that scope's documents, in the
lexical, dense and hybrid modes, and still ``k`` of them when the other scope holds most of
the index and ranks above them. A backend's test module defines ``make_index`` (as for
``contract.py``) and imports the cases with ``from tests.unit.search.scope_contract import *``.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from apexmem_neo.search.config import BM25_ONLY, DENSE_ONLY, HYBRID, SearchConfig
from apexmem_neo.search.documents import ALL_KINDS, DocKind, SearchDocument
from apexmem_neo.search.engine import HybridSearch, SearchHit
from apexmem_neo.search.protocol import SearchFilters, SearchIndex
from apexmem_neo.testing import HashingEmbedder

ScopedIndexFactory = Callable[[], SearchIndex]

SCOPE_A, SCOPE_B = "scope-a", "scope-b"
CITIES = {SCOPE_A: "Lisbon", SCOPE_B: "Oslo"}
MODES = [BM25_ONLY, DENSE_ONLY, HYBRID]


def scoped_documents(scope: str, text: str, copies: int = 1) -> list[SearchDocument]:
    """``copies`` documents of every kind in ``scope``, all saying ``text``. Graph ids name
    the scope, as real ones hash it, so the two scopes' documents never share an id."""
    return [
        SearchDocument(
            kind=kind,
            graph_id=f"{kind.value}_{scope}_{i}",
            scope=scope,
            text=text,
            speaker="Ann" if kind is DocKind.TURN else None,
            time="2024-01-01T10:00:00" if kind in (DocKind.TURN, DocKind.EVENT) else None,
        )
        for kind in ALL_KINDS
        for i in range(copies)
    ]


def in_scope(hits: list[SearchHit], scope: str) -> bool:
    return all(f"_{scope}_" in h.graph_id for h in hits)


def channels_in_scope(search: HybridSearch, query: str, filters: SearchFilters) -> bool:
    """Whether every channel of the backend (before fusion, which drops other scopes once
    more) returned documents of ``filters.scope`` only, and at least one."""
    scope = filters.scope or ""
    lists = search.index.retrieve(search._requests(query, [filters]))
    return all(lists) and all(f"_{scope}_" in h.doc_id for hits in lists for h in hits)


def built(index: SearchIndex, docs: list[SearchDocument], config: SearchConfig) -> HybridSearch:
    search = HybridSearch(index, HashingEmbedder(dimensions=48, seed=3), config)
    search.create()
    search.index_documents(docs)
    return search


@pytest.mark.parametrize("config", MODES, ids=lambda c: c.name)
def test_a_search_sees_its_own_scope_only(
    make_index: ScopedIndexFactory, config: SearchConfig
) -> None:
    docs = [
        d for scope, city in CITIES.items() for d in scoped_documents(scope, f"Mom lives in {city}")
    ]
    search = built(make_index(), docs, config)
    for scope in CITIES:
        for query in ("Mom lives in Lisbon", "Mom lives in Oslo"):
            results = search.search(query, k=10, filters=SearchFilters(scope=scope))
            for kind in ALL_KINDS:
                hits = results.group(kind)
                assert len(hits) == 1 and in_scope(hits, scope), (scope, query, kind, hits)
            ranked = search.rank(query, 10, SearchFilters(scope=scope))
            assert len(ranked) == len(ALL_KINDS) and in_scope(ranked, scope)
            for kinds in (None, *((kind,) for kind in ALL_KINDS)):
                filters = SearchFilters(scope=scope, kinds=kinds)
                assert channels_in_scope(search, query, filters), (scope, query, kinds)
        for city in CITIES.values():  # the word only one scope's documents hold
            results = search.search(city, k=10, filters=SearchFilters(scope=scope))
            assert all(in_scope(results.group(kind), scope) for kind in ALL_KINDS)


@pytest.mark.parametrize("config", MODES, ids=lambda c: c.name)
def test_other_filters_keep_the_scope(make_index: ScopedIndexFactory, config: SearchConfig) -> None:
    """Filters beyond kind (speaker, time) take the exact paths of some backends."""
    docs = [
        d for scope, city in CITIES.items() for d in scoped_documents(scope, f"Mom lives in {city}")
    ]
    search = built(make_index(), docs, config)
    for scope in CITIES:
        by_speaker = SearchFilters(scope=scope, speakers=("Ann",))
        hits = search.rank("Mom lives in Lisbon", 10, by_speaker)
        assert [h.kind for h in hits] == [DocKind.TURN] and in_scope(hits, scope)
        assert channels_in_scope(search, "Mom lives in Lisbon", by_speaker)
        dated = SearchFilters(scope=scope, time_from="2024-01-01T00:00:00")
        hits = search.rank("Mom lives in Lisbon", 10, dated)
        assert len(hits) == 2 and in_scope(hits, scope)
        assert channels_in_scope(search, "Mom lives in Lisbon", dated)


@pytest.mark.parametrize("config", MODES, ids=lambda c: c.name)
def test_k_hits_come_back_when_another_scope_dominates(
    make_index: ScopedIndexFactory, config: SearchConfig
) -> None:
    """Scope B holds five times as many documents as A, each closer to the query; a small
    kNN beam (num_candidates = depth = 5) then finds only B's in every HNSW walk, and a
    search in A must still return k of A's documents."""
    docs = scoped_documents(SCOPE_A, "Mom lives in Oslo", copies=8)
    docs += scoped_documents(SCOPE_B, "Mom lives in Lisbon", copies=40)
    narrow = config.model_copy(update={"depth": 5, "num_candidates": 5})
    search = built(make_index(), docs, narrow)
    results = search.search("Mom lives in Lisbon", k=5, filters=SearchFilters(scope=SCOPE_A))
    for kind in ALL_KINDS:
        hits = results.group(kind)
        assert len(hits) == 5 and in_scope(hits, SCOPE_A), (kind, hits)
    only_turns = SearchFilters(scope=SCOPE_A, kinds=(DocKind.TURN,))
    ranked = search.rank("Mom lives in Lisbon", 5, only_turns)
    assert len(ranked) == 5 and in_scope(ranked, SCOPE_A)
    ranked = search.rank("Mom lives in Lisbon", 5, SearchFilters(scope=SCOPE_B))
    assert len(ranked) == 5 and in_scope(ranked, SCOPE_B)
