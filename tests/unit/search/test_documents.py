"""Search documents built from ontology objects."""

from __future__ import annotations

from apexmem_neo.ontology import (
    Entity,
    Event,
    Evidence,
    Fact,
    GraphBatch,
    Property,
    Session,
    Turn,
)
from apexmem_neo.search.documents import (
    DEFAULT_WINDOW,
    DocKind,
    documents_from_batch,
    entity_document,
    human_date,
    turn_documents,
)


def _turns(session: Session, n: int) -> list[Turn]:
    return [
        Turn(
            session_id=session.session_id,
            seq=i,
            speaker="Ann" if i % 2 == 0 else "Bob",
            text=f"line {i}",
            anchor=session.started_at,
        )
        for i in range(n)
    ]


def test_turn_windows_stay_inside_their_session() -> None:
    s1 = Session(conversation_id="c", seq=1, started_at="2023-05-08T13:56:00")
    s2 = Session(conversation_id="c", seq=2, started_at="2023-06-01T00:00:00")
    turns = _turns(s1, 3) + _turns(s2, 2)
    captions = {turns[1].turn_id: "a dog on a beach"}
    docs = {d.graph_id: d for d in turn_documents(turns, [s1, s2], captions, window=1, scope="c")}
    first, middle = docs[turns[0].turn_id], docs[turns[1].turn_id]
    # Hits show the line as said; the date in words is indexed with it.
    assert first.text == "Ann: line 0" and first.date_words == "8 May 2023"
    assert first.indexed_text == "Ann: line 0 (8 May 2023)"
    assert first.context == "Ann: line 0 Bob: line 1 [shares an image: a dog on a beach]"
    assert middle.context.startswith("Ann: line 0 Bob: line 1") and "line 2" in middle.context
    last = docs[turns[2].turn_id]
    assert "line 0" not in last.context and "2023-06" not in last.context
    assert docs[turns[3].turn_id].context == "Ann: line 0 Bob: line 1"
    assert first.conversation_id == "c" and first.kind is DocKind.TURN
    assert first.doc_id == f"turn:{turns[0].turn_id}"


def test_default_window_is_two_turns_each_side() -> None:
    s = Session(conversation_id="c", seq=1, started_at="2023-05-08T13:56:00")
    docs = turn_documents(_turns(s, 6), [s], scope="c")
    assert docs[2].context == " ".join(
        f"{'Ann' if i % 2 == 0 else 'Bob'}: line {i}" for i in range(5)
    )
    assert DEFAULT_WINDOW == 2


def test_window_zero_is_the_turn_alone() -> None:
    s = Session(conversation_id="c", seq=1, started_at="2023-05-08T13:56:00")
    docs = turn_documents(_turns(s, 2), [s], window=0, scope="c")
    assert [d.context for d in docs] == ["Ann: line 0", "Bob: line 1"]


def test_entity_summary_uses_the_latest_fact_per_property() -> None:
    ann = Entity(name="Ann", type="Person", aliases=("Annie",))
    facts = [
        Fact(
            entity_id=ann.entity_id,
            property="home_city",
            dtype="str",
            value="Oslo",
            t_from="2020-01-01",
        ),
        Fact(
            entity_id=ann.entity_id,
            property="home_city",
            dtype="str",
            value="Rome",
            t_from="2022-01-01",
        ),
    ]
    doc = entity_document(ann, facts)
    assert doc.text == "Ann, Annie (Person)"
    assert doc.context == "Ann, Annie (Person). home city: Rome"
    assert doc.graph_id == ann.entity_id and doc.title == "Ann"


def test_documents_from_batch_cover_every_kind() -> None:
    s = Session(conversation_id="c", seq=1, started_at="2023-05-08T13:56:00")
    turns = _turns(s, 2)
    ann = Entity(name="Ann", type="Person")
    cited = Evidence(text="line 0", turn_id=turns[0].turn_id)
    loose = Evidence(text="line 1", turn_id=turns[1].turn_id)
    event = Event(
        type="chat", timestamp="2023-05-08", turn_id=turns[0].turn_id, evidence_id=cited.evidence_id
    )
    prop = Property(name="home_city", dtype="str")
    batch = GraphBatch(
        sessions=[s],
        turns=turns,
        entities=[ann],
        properties=[prop],
        evidence=[cited, loose],
        events=[event],
    )
    docs = documents_from_batch(batch)
    kinds = sorted(d.kind.value for d in docs)
    assert kinds == ["entity", "event", "event", "property", "turn", "turn"]
    texts = {d.graph_id: d.indexed_text for d in docs}
    assert texts[event.event_id] == "chat on 8 May 2023: line 0"
    assert texts[loose.evidence_id] == "line 1 (8 May 2023)"
    assert texts[prop.property_id] == "home city (str)"
    assert documents_from_batch(batch) == docs
    assert human_date(None) == ""
