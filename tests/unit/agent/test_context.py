"""The fast path's prefetched context: question times, property ranking, timelines."""

from __future__ import annotations

import pytest
from elasticsearch import Elasticsearch

from apexmem_neo.agent.context import (
    TurnLabels,
    became_date,
    compact_entity,
    computed_for_question,
    dated_matches,
    prefetch,
)
from apexmem_neo.agent.models import AgentConfig
from apexmem_neo.agent.question import rank_properties
from apexmem_neo.agent.timewords import (
    QuestionTime,
    question_times,
    resolve_time_words,
)
from apexmem_neo.errors import ServiceUnavailableError
from apexmem_neo.memory.views import ScopedSearcher
from apexmem_neo.ontology import Entity, Fact, GraphBatch, Session, Turn
from apexmem_neo.search import HybridSearch
from apexmem_neo.search.backends.elasticsearch import ElasticsearchIndex
from apexmem_neo.search.backends.embedded import EmbeddedIndex
from apexmem_neo.search.documents import turn_documents
from apexmem_neo.store.sqlite import SQLiteGraphStore
from apexmem_neo.testing import HashingEmbedder
from apexmem_neo.tools import SQLiteQueryBackend
from apexmem_neo.tools.entity_lookup import EntityView
from tests.unit.agent.alice import (
    ALICE,
    TEXT_1,
    TEXT_2,
    TURN_1,
    TURN_2,
    alice_search,
    quotes,
    visit_batch,
)


def test_absolute_dates_are_found_even_without_a_question_date() -> None:
    times = question_times("Where did she live on 2024-02-01 and on April 15, 2024?", None)
    assert [(t.expression, t.start, t.end) for t in times] == [
        ("2024-02-01", "2024-02-01", "2024-02-01"),
        ("April 15, 2024", "2024-04-15", "2024-04-15"),
    ]


def test_relative_words_need_the_question_date() -> None:
    assert question_times("What did she eat last month?", None) == []
    assert resolve_time_words("What did she eat last month?", "2024-07-10") == [
        '"last month" = 2024-06-01 to 2024-06-30'
    ]


def _view(store: SQLiteGraphStore, extra: list[Fact] | None = None) -> EntityView:
    entity = store.get_entity(ALICE)
    assert isinstance(entity, Entity)
    facts = tuple(store.history(ALICE, "favourite_restaurant")) + tuple(extra or ())
    return EntityView(entity=entity, facts=facts, events={})


def test_properties_sharing_words_with_the_question_come_first(store: SQLiteGraphStore) -> None:
    base = store.history(ALICE, "favourite_restaurant")[0]
    city = base.model_copy(update={"property": "city", "value": "Boston", "fact_id": "c1"})
    view = _view(store, [city])
    ranked = rank_properties(view, "Which city did Alice live in?")
    assert ranked == ["city", "favourite_restaurant"]
    assert rank_properties(view, "Did she like Sakura Sushi?")[0] == "favourite_restaurant"


def test_timeline_closes_each_value_at_the_next_and_answers_the_question_times(
    store: SQLiteGraphStore,
) -> None:
    times = [QuestionTime("two months ago", "2024-02-01", "2024-02-01"),
             QuestionTime("in 2023", "2023-01-01", "2023-12-31")]  # fmt: skip
    text = compact_entity(_view(store), max_facts=10, question="restaurant", times=times)
    assert "favourite_restaurant:\n  - 2024-01-15 to 2024-03-20: Italian Garden" in text
    assert "  - 2024-03-20 to now: Sakura Sushi" in text
    assert "changed 1 time(s): on 2024-03-20 from Italian Garden to Sakura Sushi" in text
    assert "value on 2024-02-01 (two months ago): Italian Garden" in text
    assert "value on 2023-01-01 (in 2023): nothing recorded yet" in text


def test_a_value_corrected_at_its_own_start_is_not_shown(store: SQLiteGraphStore) -> None:
    sakura = store.history(ALICE, "favourite_restaurant")[-1]
    corrected = sakura.model_copy(
        update={"value": "Sushi Zen", "fact_id": "z1", "recorded_at": "2099-01-01T00:00:00"}
    )
    text = compact_entity(_view(store, [corrected]), max_facts=10, question="restaurant", times=[])
    assert "Sakura Sushi" not in text
    assert "changed 1 time(s): on 2024-03-20 from Italian Garden to Sushi Zen" in text


def test_computed_lines_answer_as_of_before_and_count(store: SQLiteGraphStore) -> None:
    view = _view(store)
    asked = [QuestionTime("2024-02-01", "2024-02-01", "2024-02-01")]
    as_of = computed_for_question(view, "Her favourite restaurant on 2024-02-01?", asked)
    assert as_of[0] == "Alice's favourite_restaurant on 2024-02-01: Italian Garden"
    before = computed_for_question(view, "Which restaurant did she like before Sakura Sushi?", [])
    assert before[0] == (
        "Alice's favourite_restaurant before Sakura Sushi: Italian Garden (until 2024-03-20)"
    )
    assert not any(" now: " in line for line in before)  # the present would distract
    count = computed_for_question(view, "How often did her favourite restaurant change?", [])
    assert count == [
        "Alice's favourite_restaurant now: Sakura Sushi (since 2024-03-20)",
        "Alice's favourite_restaurant changed 1 time(s): on 2024-03-20 from Italian Garden "
        "to Sakura Sushi",
    ]
    when = computed_for_question(view, "When did her favourite restaurant change?", [])
    assert when == [count[1]]  # a when-question gets the change, not the value now
    became = computed_for_question(view, "When did Sakura Sushi become her favourite?", [])
    assert became[0] == "Alice's favourite_restaurant became Sakura Sushi on 2024-03-20"
    assert computed_for_question(view, "What is the weather?", []) == []  # nothing relevant


def test_before_a_value_that_followed_an_end_is_the_value_that_ended(
    store: SQLiteGraphStore,
) -> None:
    """ "I no longer rate Italian Garden", then "it's Sakura Sushi now": what she liked
    before Sakura Sushi is Italian Garden, not the end between them."""
    italian = store.history(ALICE, "favourite_restaurant")[0]
    ended = italian.model_copy(update={"value": None, "t_from": "2024-02-10T00:00:00",
                                       "fact_id": "e1"})  # fmt: skip
    view = _view(store, [ended])
    before = computed_for_question(view, "Which restaurant did she like before Sakura Sushi?", [])
    assert before[0] == (
        "Alice's favourite_restaurant before Sakura Sushi: Italian Garden (until 2024-02-10)"
    )


def test_a_span_that_held_one_value_gets_one_line(store: SQLiteGraphStore) -> None:
    view = _view(store)
    february = [QuestionTime("in February 2024", "2024-02-01", "2024-02-29")]
    lines = computed_for_question(view, "Her favourite restaurant in February 2024?", february)
    assert lines == [
        "Alice's favourite_restaurant in February 2024 (2024-02-01 to 2024-02-29): Italian Garden"
    ]  # and no "changed" line: the question asks about no change
    march = [QuestionTime("in March 2024", "2024-03-01", "2024-03-31")]
    lines = computed_for_question(view, "Her favourite restaurant in March 2024?", march)
    assert lines == [
        "Alice's favourite_restaurant on 2024-03-01: Italian Garden",
        "Alice's favourite_restaurant on 2024-03-31: Sakura Sushi",
    ]


def test_a_when_answer_that_names_the_value_gets_the_day_it_began() -> None:
    context = (
        "Computed for this question:\n- Alice's lives_in became Tucson on 2024-05-30\n\n"
        "Turns, oldest first:\n[T1] 30 May 2024 Alice: it's Tucson, not Omaha."
    )
    question = "When did Alice move to Tucson?"
    assert became_date(question, "Tucson", context) == "30 May 2024"
    assert became_date(question, "30 May 2024", context) is None  # a date is kept
    assert became_date(question, "Omaha", context) is None  # no line for that value
    assert became_date("Where does Alice live?", "Tucson", context) is None  # not a when


def test_prefetched_turns_are_listed_in_time_order(store: SQLiteGraphStore) -> None:
    session = Session(conversation_id="c", seq=1, started_at="2024-01-01T00:00:00")
    said = [("2024-01-05", "I like pizza"), ("2024-05-05", "pizza pizza, my favourite pizza now")]
    turns = [
        Turn(
            session_id=session.session_id,
            seq=i,
            speaker="Alice",
            text=text,
            anchor=f"{day}T10:00:00",
        )
        for i, (day, text) in enumerate(said)
    ]
    engine = HybridSearch(EmbeddedIndex(), HashingEmbedder())
    engine.create()
    engine.index_documents(turn_documents(turns, [session], window=0, scope="default"))
    searcher = ScopedSearcher(engine, "default")
    assert (searcher.search("pizza", k=2).turns[0].time or "").startswith("2024-05")  # ranked first
    config = AgentConfig(prefetch_entities=0, prefetch_turns=2, context_style="entities")
    listed = prefetch(store, "pizza", searcher, config).text.split("Turns:\n", 1)[1].splitlines()
    assert [line.split("(", 1)[1][:10] for line in listed] == ["2024-01-05", "2024-05-05"]
    assert listed[1].endswith("pizza pizza, my favourite pizza now")  # no date in words too


def test_a_search_server_that_is_down_is_named_not_hidden(store: SQLiteGraphStore) -> None:
    url = "http://127.0.0.1:9"  # nothing listens on the discard port
    client = Elasticsearch(url, request_timeout=2, max_retries=0)
    engine = HybridSearch(ElasticsearchIndex(client, "nowhere", url), HashingEmbedder())
    searcher = ScopedSearcher(engine, "default")
    config = AgentConfig(prefetch_entities=0, prefetch_turns=2)
    with pytest.raises(ServiceUnavailableError, match="127.0.0.1:9"):
        prefetch(store, "pizza", searcher, config)
    client.close()


def _quotes(store: SQLiteGraphStore, n: int) -> list[Fact]:
    """``n`` long free-text values of one property, as a small model extracts them."""
    return quotes(store.history(ALICE, "favourite_restaurant")[0], n)


def test_free_text_properties_show_only_the_notes_that_match(store: SQLiteGraphStore) -> None:
    view = _view(store, _quotes(store, 30))
    text = compact_entity(view, max_facts=12, question="When did Alice go hiking?")
    notes = text.split("inspiring_story (notes):\n", 1)[1].split("\n")
    assert notes[0].startswith("  - 2024-02-04: Quote 3: we went hiking")
    assert not notes[1].startswith("  - 2024-02")  # no other quote: they share no word
    assert "inspiring_story changed" not in text
    # free text gives no computed lines; the state property still does
    computed = computed_for_question(view, "When did Alice go hiking?", [])
    assert computed == []
    assert computed_for_question(view, "Her favourite restaurant now?", [])[0].startswith(
        "Alice's favourite_restaurant now: Sakura Sushi"
    )


def test_turns_keep_their_share_of_the_budget(store: SQLiteGraphStore) -> None:
    session = Session(conversation_id="c", seq=1, started_at="2024-01-01T00:00:00")
    turns = [
        Turn(session_id=session.session_id, seq=i, speaker="Alice", text=f"hiking trip {i}",
             anchor=f"2024-01-0{i + 1}T10:00:00")
        for i in range(3)
    ]  # fmt: skip
    engine = HybridSearch(EmbeddedIndex(), HashingEmbedder())
    engine.create()
    engine.index_documents(turn_documents(turns, [session], window=0, scope="default"))
    searcher = ScopedSearcher(engine, "default")
    quotes = [
        Fact(entity_id=ALICE, property="inspiring_story", dtype="str", value=q.value,
             t_from=q.t_from, event_id=q.event_id, evidence_id=q.evidence_id)
        for q in _quotes(store, 30)
    ]  # fmt: skip
    store.write(GraphBatch(facts=quotes, recorded_at="2024-03-22T00:00:00"))
    config = AgentConfig(
        prefetch_entities=1, prefetch_turns=3, max_context_chars=900, context_style="entities"
    )
    found = prefetch(store, "Alice hiking restaurant so much fun", searcher, config)
    assert len(found.text) <= 900
    listed = found.text.split("Turns:\n", 1)[1].splitlines()
    assert len(listed) == 3 and all("hiking trip" in line for line in listed)
    label = listed[0].split()[1]
    assert found.labels.resolve([label, "other"]) == [turns[0].turn_id, "other"]
    # turns first: the same two parts, the same labels, the turns before the entity
    turns_first = prefetch(store, "Alice hiking restaurant so much fun", searcher,
                           config.model_copy(update={"context_order": "turns"}))  # fmt: skip
    assert turns_first.text.startswith("Turns:\n") and "\n\nEntity Alice" in turns_first.text
    assert sorted(turns_first.text.split("\n")) == sorted(found.text.split("\n"))


def test_a_when_question_gets_the_date_of_the_best_matching_fact(store: SQLiteGraphStore) -> None:
    view = _view(store, _quotes(store, 30))
    labels = TurnLabels()
    lines = dated_matches([view], "When did Alice go hiking?", labels)
    assert len(lines) == 1
    assert lines[0].startswith("Alice's inspiring_story \"Quote 3: we went hiking")
    assert lines[0].endswith("is dated 2024-02-04 (turn -)")  # this view holds no events
    assert dated_matches([view], "Where did Alice go hiking?", labels) == []  # not a when
    assert dated_matches([view], "When did Alice swim?", labels) == []  # nothing matches
    # a state property has its own computed lines; no dated line competes with them
    assert dated_matches([view], "When did her favourite restaurant change?", labels) == []


def test_transcript_context_shows_rag_lines_with_their_time_words_dated(
    store: SQLiteGraphStore,
) -> None:
    store.write(visit_batch())  # a fact of turn 1, dated by its time words: not shown
    searcher = ScopedSearcher(alice_search(), "default")
    config = AgentConfig(prefetch_entities=0, prefetch_turns=2)
    found = prefetch(store, "Which restaurant does Alice like?", searcher, config, ())
    lines = found.text.split("Turns, oldest first:\n", 1)[1].splitlines()
    assert lines == [
        f"[{found.labels.label(TURN_1)}] 15 January 2024 Alice: {TEXT_1}".replace(
            "last Saturday", "last Saturday (13 January 2024)"
        ),
        f"[{found.labels.label(TURN_2)}] 20 March 2024 Alice: {TEXT_2}",
    ]  # no "memory:" line: the model copied extracted facts as answers
    assert found.dates[TURN_1].event_date() == "13 January 2024"


def test_transcript_context_leads_with_the_computed_lines(
    store: SQLiteGraphStore, backend: SQLiteQueryBackend
) -> None:
    searcher = ScopedSearcher(alice_search(), "default")
    config = AgentConfig(prefetch_entities=1, prefetch_turns=2)
    question = "When did Alice's favourite restaurant change?"
    text = prefetch(store, question, searcher, config, ()).text
    computed, turns = text.split("\n\n", 1)
    assert computed.splitlines()[1] == (
        "- Alice's favourite_restaurant changed 1 time(s): on 2024-03-20 from Italian Garden "
        "to Sakura Sushi"
    )
    assert turns.startswith("Turns, oldest first:")
