"""The shared SearchIndex suite: every backend must pass these cases.

A backend's test module defines a ``make_index`` fixture (a callable returning a fresh, empty,
uniquely named index; the fixture drops what it made) and imports the cases with
``from tests.unit.search.contract import *``.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from apexmem_neo.ontology import Session, Turn
from apexmem_neo.search.config import BM25_ONLY, DENSE_ONLY, HYBRID, HYBRID_WEIGHTED
from apexmem_neo.search.documents import DocKind, SearchDocument, turn_documents
from apexmem_neo.search.engine import HybridSearch, QueryTruncatedWarning
from apexmem_neo.search.protocol import EmptyQueryError, SearchFilters, SearchIndex
from apexmem_neo.testing import HashingEmbedder

IndexFactory = Callable[[], SearchIndex]
SCOPE = "conv-a"
IN_SCOPE = SearchFilters(scope=SCOPE)

SESSION_A = Session(conversation_id="conv-a", seq=1, started_at="2023-05-08T13:56:00")
SESSION_B = Session(conversation_id="conv-a", seq=2, started_at="2023-06-01T09:00:00")
LINES_A = [
    ("Caroline", "I went to a support group yesterday and it was powerful."),
    ("Melanie", "That sounds great. I painted a sunrise over the lake last week."),
    ("Caroline", "I am researching adoption agencies for my future family."),
]
LINES_B = [
    ("Melanie", "We went camping at the beach with the kids."),
    ("Caroline", "My friends gave me a necklace from my grandmother in Sweden."),
]


def corpus() -> list[SearchDocument]:
    turns = [
        Turn(session_id=s.session_id, seq=i, speaker=who, text=text, anchor=s.started_at)
        for s, lines in ((SESSION_A, LINES_A), (SESSION_B, LINES_B))
        for i, (who, text) in enumerate(lines)
    ]
    docs = turn_documents(turns, [SESSION_A, SESSION_B], window=1, scope=SCOPE)
    docs.append(
        SearchDocument(
            scope=SCOPE,
            kind=DocKind.ENTITY,
            graph_id="ent_caroline",
            title="Caroline",
            text="Caroline, Caro (Person). researching adoption agencies",
        )
    )
    docs.append(
        SearchDocument(
            scope=SCOPE,
            kind=DocKind.PROPERTY,
            graph_id="prop_hobby",
            title="hobby",
            text="hobby (str): painting, camping",
        )
    )
    docs.append(
        SearchDocument(
            scope=SCOPE,
            kind=DocKind.EVENT,
            graph_id="evt_paint",
            title="painting",
            text="painting at the lake on 1 May 2023: painted a sunrise",
            time="2023-05-01T00:00:00",
        )
    )
    return docs


@pytest.fixture
def embedder() -> HashingEmbedder:
    return HashingEmbedder(dimensions=48, seed=7, max_tokens=12)


@pytest.fixture
def loaded(make_index: IndexFactory, embedder: HashingEmbedder) -> HybridSearch:
    search = HybridSearch(make_index(), embedder, HYBRID)
    search.create()
    search.index_documents(corpus())
    return search


def test_search_returns_four_groups_with_graph_ids(loaded: HybridSearch) -> None:
    results = loaded.search("Caroline adoption agencies", k=3, filters=IN_SCOPE)
    assert results.turns and results.turns[0].text.startswith("Caroline: I am researching")
    assert results.entities[0].graph_id == "ent_caroline"
    assert [h.graph_id for h in results.properties] == ["prop_hobby"]
    assert results.events[0].graph_id == "evt_paint"
    assert all(h.score > 0 for h in results.turns)
    assert len(results.turns) <= 3


@pytest.mark.parametrize("config", [BM25_ONLY, DENSE_ONLY, HYBRID_WEIGHTED])
def test_every_preset_finds_the_turn(loaded: HybridSearch, config: object) -> None:
    search = HybridSearch(loaded.index, loaded.embedder, config)  # type: ignore[arg-type]
    hits = search.rank(
        "necklace grandmother Sweden", 2, SearchFilters(scope=SCOPE, kinds=(DocKind.TURN,))
    )
    assert "necklace" in hits[0].text


def test_dropping_a_never_created_index_is_harmless(
    make_index: IndexFactory, embedder: HashingEmbedder
) -> None:
    """`apexmem index --rebuild` drops before it creates, also on a fresh memory."""
    search = HybridSearch(make_index(), embedder, HYBRID)
    search.index.drop()
    search.create()
    search.index_documents(corpus())
    assert search.index.count() == len(corpus())


def test_dense_ranking_spans_every_admitted_kind(loaded: HybridSearch) -> None:
    """Without a kind filter (or with several kinds) one dense ranking covers them all, in the
    same order as the full ranking restricted to those kinds."""
    dense = HybridSearch(loaded.index, loaded.embedder, DENSE_ONLY)
    query = "painting at the lake on 1 May 2023: painted a sunrise"
    everything = dense.rank(query, 20, IN_SCOPE)
    assert everything[0].graph_id == "evt_paint"
    assert {h.kind for h in everything} == set(DocKind)
    two = (DocKind.EVENT, DocKind.ENTITY)
    both = dense.rank(query, 20, SearchFilters(scope=SCOPE, kinds=two))
    assert [h.doc_id for h in both] == [h.doc_id for h in everything if h.kind in two]


@pytest.mark.parametrize("query", ["", "   ", "\n\t"])
def test_empty_query_is_a_clear_error(loaded: HybridSearch, query: str) -> None:
    with pytest.raises(EmptyQueryError, match="empty"):
        loaded.search(query, filters=IN_SCOPE)


def test_long_query_is_truncated_with_a_warning(loaded: HybridSearch) -> None:
    query = "necklace " + " ".join(["grandmother"] * 40)
    with pytest.warns(QueryTruncatedWarning, match="12"):
        hits = loaded.rank(query, 2, SearchFilters(scope=SCOPE, kinds=(DocKind.TURN,)))
    assert "necklace" in hits[0].text


def test_reindexing_is_idempotent(loaded: HybridSearch) -> None:
    before = loaded.search("painted sunrise lake", k=5, filters=IN_SCOPE)
    count = loaded.index.count()
    loaded.index_documents(corpus())
    assert loaded.index.count() == count == len(corpus())
    after = loaded.search("painted sunrise lake", k=5, filters=IN_SCOPE)
    assert [h.doc_id for h in after.turns] == [h.doc_id for h in before.turns]


def test_filters_by_session_speaker_and_time(loaded: HybridSearch) -> None:
    turn_only = SearchFilters(scope=SCOPE, kinds=(DocKind.TURN,))
    by_session = turn_only.model_copy(update={"session_ids": (SESSION_B.session_id,)})
    hits = loaded.rank("went", 10, by_session)
    assert hits and {h.session_id for h in hits} == {SESSION_B.session_id}
    by_speaker = turn_only.model_copy(update={"speakers": ("Melanie",)})
    assert {h.speaker for h in loaded.rank("went kids sunrise", 10, by_speaker)} == {"Melanie"}
    late = turn_only.model_copy(update={"time_from": "2023-05-20T00:00:00"})
    assert {h.time for h in loaded.rank("went", 10, late)} == {SESSION_B.started_at}
    early = SearchFilters(scope=SCOPE, time_to="2023-05-02T00:00:00")
    assert [h.graph_id for h in loaded.rank("painted sunrise", 10, early)] == ["evt_paint"]
    other = SearchFilters(scope=SCOPE, conversation_ids=("conv-zzz",), kinds=(DocKind.TURN,))
    assert loaded.rank("went", 10, other) == []


def test_kind_filter_limits_the_groups(loaded: HybridSearch) -> None:
    results = loaded.search(
        "painting", k=5, filters=SearchFilters(scope=SCOPE, kinds=(DocKind.PROPERTY,))
    )
    assert results.turns == [] and results.entities == [] and results.events == []
    assert [h.graph_id for h in results.properties] == ["prop_hobby"]


def test_no_match_gives_empty_groups(loaded: HybridSearch) -> None:
    search = HybridSearch(loaded.index, loaded.embedder, BM25_ONLY)
    assert search.search("zeppelin", k=5, filters=IN_SCOPE).turns == []


def test_get_returns_the_documents(loaded: HybridSearch) -> None:
    docs = corpus()
    found = loaded.index.get([docs[0].doc_id, "turn:missing"])
    assert found == {docs[0].doc_id: docs[0]}


def test_optimize_changes_no_result(loaded: HybridSearch) -> None:
    before = loaded.search("painted sunrise lake", k=5, filters=IN_SCOPE)
    count = loaded.index.count()
    loaded.index.optimize()
    after = loaded.search("painted sunrise lake", k=5, filters=IN_SCOPE)
    assert loaded.index.count() == count
    assert [(h.doc_id, round(h.score, 6)) for h in after.turns] == [
        (h.doc_id, round(h.score, 6)) for h in before.turns
    ]
