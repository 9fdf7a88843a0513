"""How the agent reads a question: each rule of ``apexmem_neo.agent.question``."""

from __future__ import annotations

from typing import Any

from apexmem_neo.agent.question import (
    NAME_WEIGHT,
    asks_about_changes,
    asks_about_states,
    asks_before,
    asks_when,
    by_score,
    mentions_when,
    most_relevant,
    named_views,
    names_value,
    property_relevance,
    rank_properties,
    shared_terms,
    terms,
    without_person_names,
    words,
)
from apexmem_neo.agent.timewords import question_times
from apexmem_neo.ontology import Entity
from apexmem_neo.store.protocol import FactRecord
from apexmem_neo.tools.entity_lookup import EntityView


def _view(name: str, kind: str, *facts: tuple[str, Any]) -> EntityView:
    """An entity with one fact per (property, value), as the prefetch sees it."""
    entity = Entity(entity_id=f"e_{name.lower()}", name=name, entity_type=kind, role="Mentioned")
    records = tuple(
        FactRecord(fact_id=f"f{i}", entity_id=entity.entity_id, property=prop, value=value,
                   value_json=repr(value), dtype="str", t_from=f"2025-0{i + 1}-01", t_to=None,
                   confidence=1.0, event_id=None, evidence_id=None,
                   recorded_at="2025-12-01T00:00:00")
        for i, (prop, value) in enumerate(facts)
    )  # fmt: skip
    return EntityView(entity=entity, facts=records, events={})


OTTO = _view(
    "Otto",
    "Person",
    ("home_town", "Lisbon"),
    ("home_town", "Porto"),
    ("hobby", "climbing"),
    ("book_notes", "Reading a novel about sailing ships"),
)


def test_words_drop_a_final_s_from_longer_words() -> None:
    assert words("Otto's cats and dogs, his bus") == {
        "otto",
        "s",
        "cat",
        "and",
        "dog",
        "his",
        "bus",
    }
    assert words("Where is it?") == {"where", "is", "it"}  # short words keep their s


def test_terms_are_stemmed_content_words() -> None:
    assert terms("What did he research?") == {"research"}
    assert terms("book_notes") == terms("book notes")  # a property name reads as words
    assert shared_terms(terms("Which books did he read?"), "Reading books all day") == 2


def test_questions_about_states_over_time_name_a_time_or_a_state_word() -> None:
    assert asks_about_states("Where did Otto live before Porto?", [])
    assert asks_about_states("How often did his hobby change?", [])
    assert asks_about_states("Is he still climbing?", [])
    assert asks_about_states("What does he do currently?", [])
    dated = question_times("Where was he on 2025-03-01?", None)
    assert asks_about_states("Where was he on 2025-03-01?", dated)
    assert not asks_about_states("When did Otto buy a kayak?", [])  # an event, not a state
    assert not asks_about_states("What did Otto say about the kayak?", [])
    assert not asks_about_states("What did he learn during the course?", [])  # no state word


def test_present_time_phrases_ask_about_the_state_now() -> None:
    for question in (
        "Where does Otto work these days?",
        "What does he drive at the moment?",
        "Which city is she in at present?",
        "What is his hobby nowadays?",
        "Does she live in Porto anymore?",
        "Is he no longer at Acme?",
        "Where has she been working lately?",
        "Who does she work for at this point?",
        "As things stand, what's his favourite restaurant?",
        "What is she driving right now?",
    ):
        assert asks_about_states(question, []), question
    assert not asks_about_states("What did they talk about at the party?", [])


def test_before_questions() -> None:
    assert asks_before("What did he drive before the van?")
    assert asks_before("Where did he work prior to that?")
    assert asks_before("What were his previous jobs?")  # "previous" spelt without its s
    assert asks_before("Which town came earlier?")
    assert not asks_before("What did he drive after the van?")
    assert asks_before("Which city was she living in until the move to Aberdeen?")
    assert asks_before("Which restaurant was his top choice until Bao Down came along?")
    assert not asks_before("Until when did she live in Porto?")  # an end date


def test_when_is_a_word_of_the_question_or_a_question_for_a_date() -> None:
    assert mentions_when("When did he move?") and mentions_when("Where was he when it rained?")
    assert not mentions_when("Whenever he can, where does he go?")
    assert asks_when("When did Otto move?")
    assert asks_when("On what day did he arrive?") and asks_when("In which year was it built?")
    assert not asks_when("Where did Otto work?")
    assert not asks_when("What did he say when asked?")  # "when" but no date wanted


def test_a_question_names_a_value_when_it_holds_all_its_words() -> None:
    assert names_value("When did Otto move to Porto?", "Porto")
    assert names_value("Where did he live before the Old Town?", "old town")
    assert not names_value("Where did he live before the Old Town?", "Old Harbour")
    assert not names_value("When did he move?", "")  # an empty value names nothing


def test_property_relevance_counts_the_question_terms_of_the_best_fact() -> None:
    scores = property_relevance(OTTO, "Which town was Otto's home town before Porto?")
    assert scores == {"home_town": 2 * NAME_WEIGHT + 1, "hobby": 0, "book_notes": 0}
    assert property_relevance(OTTO, "What novel was he reading?")["book_notes"] == 2


def test_properties_rank_by_score_then_by_name() -> None:
    assert by_score({"b": 1, "a": 1, "c": 2}) == ["c", "a", "b"]
    assert rank_properties(OTTO, "Does he still go climbing?") == [
        "hobby",
        "book_notes",
        "home_town",
    ]


def test_the_most_relevant_property_among_some() -> None:
    question = "What was his home town before Porto?"
    assert most_relevant(OTTO, question, {"home_town", "hobby"}) == "home_town"
    assert most_relevant(OTTO, question, {"hobby"}) is None  # shares no term
    assert most_relevant(OTTO, question, set()) is None


def test_person_names_leave_the_question() -> None:
    lisbon = _view("Lisbon", "Place")
    views = [_view("Otto Berg", "Person"), lisbon]
    assert without_person_names("When did Otto's sister visit Lisbon?", views) == (
        "when did s sister visit lisbon"
    )  # a place keeps its name; a person's possessive s is left alone
    assert without_person_names("Where is Otto?", []) == "where is otto"


GRACE = _view(
    "Grace Hopper",
    "Person",
    ("employer", "Acme"),
    ("lives_in", "Tulsa"),
    ("car", "2024-11-30"),  # a bad value that only a year of the question would match
    ("hobby", "surfing"),
    ("favourite_restaurant", "Nonna Lucia"),
)


def test_a_property_is_found_by_its_common_synonyms_taken_whole() -> None:
    work = property_relevance(GRACE, "Where does she work now?")
    assert work["employer"] == NAME_WEIGHT  # "works at" is a synonym of employer
    assert work["lives_in"] == 0
    # "go to restaurant" is a synonym only as a whole: "go" alone is not about restaurants
    assert property_relevance(GRACE, "When did she go hiking?")["favourite_restaurant"] == 0


def test_the_property_named_outweighs_values_and_years_match_nothing() -> None:
    scores = property_relevance(GRACE, "What was her hobby in August 2024?")
    assert scores["car"] == 0  # "2024" names a time, not the car
    assert most_relevant(GRACE, "What was her hobby in August 2024?", set(scores)) == "hobby"


def test_changes_are_asked_for_in_so_many_words() -> None:
    assert asks_about_changes("How often did her hobby change?")
    assert asks_about_changes("How many times did she move?")
    assert not asks_about_changes("What was her hobby in August 2024?")
    assert not asks_about_changes("Where does she work now?")


def test_the_persons_a_question_names_by_first_name_or_whole_alias() -> None:
    olga = _view("Olga", "Person", ("employer", "Wayne Enterprises"))
    assert named_views("Who is Olga's employer at the moment?", [GRACE, olga]) == [olga]
    assert named_views("Where does Grace live?", [GRACE, olga]) == [GRACE]
    # a question naming nobody keeps every view
    assert named_views("Who works at Acme?", [GRACE, olga]) == [GRACE, olga]
