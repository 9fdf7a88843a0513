"""Forgetting: the cases every SearchIndex's ``delete_documents`` must pass.

Scope A holds a session whose turns (and the event citing them) name a secret word found
nowhere else in A, and a second, plain session; scope B holds a turn saying the secret too.
Erasing the secret session's documents from A must return them as stored, leave no search
of A able to find them, and leave A's other documents and all of B's as they were.

A backend's test module defines ``make_index`` (as for ``contract.py``) and imports the cases
with ``from tests.unit.search.forget_contract import *``.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from apexmem_neo.ontology import Session, Turn
from apexmem_neo.search.config import BM25_ONLY, HYBRID
from apexmem_neo.search.documents import DocKind, SearchDocument, turn_documents
from apexmem_neo.search.engine import HybridSearch
from apexmem_neo.search.protocol import SearchFilters, SearchIndex
from apexmem_neo.search.text import analyze
from apexmem_neo.testing import HashingEmbedder

ForgetIndexFactory = Callable[[], SearchIndex]

SECRET = "quokkazanzibar"
"""A word only the erased documents (and scope B's own turn) say."""
SECRET_FORMS = (SECRET, *analyze(SECRET))
SCOPE_A, SCOPE_B = "forget-a", "forget-b"
SECRET_SESSION = Session(conversation_id="conv-forget-a", seq=1, started_at="2024-03-01T10:00:00")
PLAIN_SESSION = Session(conversation_id="conv-forget-a", seq=2, started_at="2024-04-01T10:00:00")
B_SESSION = Session(conversation_id="conv-forget-b", seq=1, started_at="2024-03-01T10:00:00")


def _turns(session: Session, lines: list[tuple[str, str]]) -> list[Turn]:
    return [
        Turn(
            session_id=session.session_id,
            seq=i,
            speaker=who,
            text=text,
            anchor_datetime=session.started_at,
        )
        for i, (who, text) in enumerate(lines)
    ]


SECRET_TURNS = _turns(
    SECRET_SESSION,
    [
        ("Ann", f"My bank password hint is {SECRET} and nobody knows it."),
        ("Bo", f"I will never tell anyone about {SECRET}, promise."),
    ],
)
PLAIN_TURNS = _turns(
    PLAIN_SESSION,
    [("Ann", "We planted tomatoes in the garden."), ("Bo", "The garden looks lovely.")],
)
B_TURNS = _turns(B_SESSION, [("Cy", f"The {SECRET} is a small marsupial in my novel.")])
SECRET_EVENT = SearchDocument(
    kind=DocKind.EVENT,
    graph_id="evt_forget_hint",
    scope=SCOPE_A,
    title="shared_secret",
    text=f"shared secret on 1 March 2024: {SECRET}",
    time="2024-03-01T10:00:00",
)


def a_documents() -> list[SearchDocument]:
    """Scope A: the secret session's turns and event, the plain session's turns, an entity."""
    sessions = [SECRET_SESSION, PLAIN_SESSION]
    docs = turn_documents(SECRET_TURNS + PLAIN_TURNS, sessions, window=1, scope=SCOPE_A)
    entity = SearchDocument(
        kind=DocKind.ENTITY, graph_id="ent_forget_ann", scope=SCOPE_A, text="Ann (Person)"
    )
    return [*docs, SECRET_EVENT, entity]


def b_documents() -> list[SearchDocument]:
    return turn_documents(B_TURNS, [B_SESSION], window=1, scope=SCOPE_B)


SECRET_IDS = [t.turn_id for t in SECRET_TURNS] + [SECRET_EVENT.graph_id]
"""The graph ids to erase: every document of scope A that says the secret."""


def built(index: SearchIndex, config: object = HYBRID) -> HybridSearch:
    search = HybridSearch(index, HashingEmbedder(dimensions=32, seed=5), config)  # type: ignore[arg-type]
    search.create()
    search.index_documents(a_documents() + b_documents())
    return search


def graph_ids_found(search: HybridSearch, query: str, scope: str) -> set[str]:
    """Graph ids of every hit of every group for ``query`` in ``scope``."""
    results = search.search(query, k=20, filters=SearchFilters(scope=scope))
    groups = (results.entities, results.properties, results.events, results.turns)
    return {hit.graph_id for group in groups for hit in group}


@pytest.fixture
def forgetting(make_index: ForgetIndexFactory) -> HybridSearch:
    return built(make_index())


def test_forget_returns_and_erases_the_scope_documents_of_the_ids(
    forgetting: HybridSearch,
) -> None:
    before = forgetting.index.count()
    erased = forgetting.forget(SCOPE_A, SECRET_IDS)
    expected = [d for d in a_documents() if d.graph_id in SECRET_IDS]
    assert sorted(erased, key=lambda d: d.doc_id) == sorted(expected, key=lambda d: d.doc_id)
    assert forgetting.index.get([d.doc_id for d in expected]) == {}
    assert forgetting.index.count() == before - len(expected)
    assert all(SECRET in d.text or SECRET in d.context for d in erased)
    lexical = HybridSearch(forgetting.index, forgetting.embedder, BM25_ONLY)
    assert graph_ids_found(lexical, SECRET, SCOPE_A) == set()
    assert graph_ids_found(forgetting, SECRET, SCOPE_A).isdisjoint(SECRET_IDS)


def test_forget_leaves_the_rest_of_the_scope_and_other_scopes(forgetting: HybridSearch) -> None:
    forgetting.forget(SCOPE_A, SECRET_IDS)
    lexical = HybridSearch(forgetting.index, forgetting.embedder, BM25_ONLY)
    plain = {t.turn_id for t in PLAIN_TURNS}
    assert plain <= graph_ids_found(lexical, "tomatoes garden", SCOPE_A)
    assert "ent_forget_ann" in graph_ids_found(lexical, "Ann person", SCOPE_A)
    assert graph_ids_found(lexical, SECRET, SCOPE_B) == {B_TURNS[0].turn_id}
    kept = a_documents() + b_documents()
    stored = forgetting.index.get([d.doc_id for d in kept])
    assert set(stored) == {d.doc_id for d in kept if d.graph_id not in SECRET_IDS}


def test_forget_without_ids_erases_the_whole_scope(forgetting: HybridSearch) -> None:
    erased = forgetting.forget(SCOPE_A)
    assert {d.doc_id for d in erased} == {d.doc_id for d in a_documents()}
    assert forgetting.index.count() == len(b_documents())
    assert graph_ids_found(forgetting, "tomatoes garden Ann", SCOPE_A) == set()
    assert graph_ids_found(forgetting, SECRET, SCOPE_B) == {B_TURNS[0].turn_id}


def test_forget_stays_in_its_scope_and_is_idempotent(forgetting: HybridSearch) -> None:
    b_turn = B_TURNS[0].turn_id
    assert forgetting.forget(SCOPE_A, [b_turn]) == []  # B's id, asked of A: a wall
    assert forgetting.forget("forget-nobody") == []
    assert forgetting.forget(SCOPE_A, []) == []
    assert len(forgetting.forget(SCOPE_A, SECRET_IDS[:1])) == 1
    assert forgetting.forget(SCOPE_A, SECRET_IDS[:1]) == []
    assert set(forgetting.index.get([f"turn:{b_turn}"])) == {f"turn:{b_turn}"}


def test_forget_refuses_a_lone_id_string(forgetting: HybridSearch) -> None:
    with pytest.raises(TypeError, match="collection"):
        forgetting.forget(SCOPE_A, SECRET_IDS[0])


def test_forget_on_an_index_never_created_erases_nothing(make_index: ForgetIndexFactory) -> None:
    assert make_index().delete_documents(SCOPE_A) == []
