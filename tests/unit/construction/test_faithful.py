"""The rules that keep a turn's facts to what the turn says (no LLM)."""

from __future__ import annotations

import pytest

from apexmem_neo.construction.faithful import (
    addressed,
    correcting_name,
    event_type_said,
    is_correction,
    may_state_value,
    negated,
    relation_value,
    said_as_name,
    said_to_end,
    speaks_of_own,
    taken_back,
    third_party_owner,
    value_said,
    whole_name,
)


@pytest.mark.parametrize(
    ("value", "text", "prop"),
    [
        ("Lisbon", "We finally moved to Lisbon!", "lives_in"),
        ("dance studio", "I opened two dance studios downtown.", "business"),
        ("nurse", "Nursing shifts are long this month.", "occupation"),
        (2, "I have 2 dogs now.", "pets"),
        (3, "We adopted three kittens.", "pets"),
        (True, "Our kids started school today.", "has_kids"),
    ],
)
def test_a_value_said_in_its_turn_counts(value: object, text: str, prop: str) -> None:
    assert value_said(value, text, prop)


@pytest.mark.parametrize(
    ("value", "text", "prop"),
    [
        ("Ford Focus", "That sounds great, enjoy it!", "car"),
        ("food scientist", "Yesterday I started at Fresh Foods.", "occupation"),
        (False, "I stopped painting, too busy.", "has_children"),
        (2025, "I bought a new car.", "car_year"),
    ],
)
def test_a_value_copied_or_made_up_does_not(value: object, text: str, prop: str) -> None:
    assert not value_said(value, text, prop)


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ("Vertex", "I'm not at Vertex anymore."),
        ("the Civic", "I sold the Civic last week."),
        ("Madrid", "Madrid isn't home any more."),
        ("Porto", "It's Braga, not Porto."),
        ("Quillfeather Media", "I handed in my resignation at Quillfeather Media last week."),
        ("Mitsubishi Outlander", "The Mitsubishi Outlander had to go, so I got a Kia."),
        ("Vertex", "My time at Vertex is over."),
        ("Dunedin", "We signed the lease on a place in Bergen, so goodbye Dunedin."),
        ("Pinecrest Robotics", "Five days ago I worked my final shift at Pinecrest Robotics."),
        ("Winnipeg", "I'm out of Winnipeg. My post goes elsewhere these days."),
        ("Toyota RAV4", "Sometime in August my Toyota RAV4 went to the scrapyard."),
        ("bouldering", "Turns out I'm a kayaking person now; I've given up bouldering."),
        ("Sumac House", "I tried Saffron Lantern and it knocked Sumac House off the top."),
        ("Acme", "I'm at Globex Labs now, so Acme is officially behind me."),
        ("Oslo", "I gave notice on my place in Oslo and moved out."),
        ("Acme", "I parted ways with Acme in May."),
        ("the Civic", "I handed the Civic over to my niece."),
    ],
)
def test_a_denied_or_left_value_is_negated(value: str, text: str) -> None:
    assert negated(value, text)


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ("Braga", "It's Braga, not Porto."),
        ("Leeds", "I don't mind the rain, Leeds is home now."),
        ("Vertex", "I work at Vertex and love it."),
        ("project manager", "I'm a project manager over at Lumen Software."),
        ("Lumen Software", "I'm a project manager over at Lumen Software."),
        ("Bergen", "We signed the lease on a place in Bergen, so goodbye Dunedin."),
        ("Acme", "I ran out of time at Acme today."),
        ("Sam", "I knocked on Sam's door."),
        ("the Civic", "The Civic is parked right behind me."),
    ],
)
def test_an_asserted_value_is_not_negated(value: str, text: str) -> None:
    assert not negated(value, text)


def test_corrections_are_told_from_changes() -> None:
    assert is_correction("Oops, I misspoke: Braga.", "Porto")
    assert is_correction("It's Braga, not Porto.", "Porto")
    assert not is_correction("Porto is not home anymore, I moved to Braga.", "Porto")
    assert not is_correction("I moved from Porto to Braga.", "Porto")


def test_a_relatives_news_without_i_is_theirs() -> None:
    assert third_party_owner("My brother Tomas moved to Oslo.", "Ana", "Ben") == "Tomas"
    assert third_party_owner("Our neighbour Kim Park bought a boat.", "Ana", "Ben") == "Kim Park"
    assert third_party_owner("I visited my brother Tomas in Oslo.", "Ana", "Ben") is None
    assert third_party_owner("I moved to Oslo.", "Ana", "Ben") is None
    assert third_party_owner("My nan Ivy has gone to work for Acme.", "Ana", "Ben") == "Ivy"


@pytest.mark.parametrize(
    ("text", "value", "owner"),
    [
        ("My godmother Rosa has landed a job at Orbit Labs, which I'm a bit jealous of.",
         "Orbit Labs", "Rosa"),
        ("I'm not fussed myself, but my stepsister Hedda goes to Casa Roma every week.",
         "Casa Roma", "Hedda"),
        ("I visited my brother Tomas in Oslo.", "Oslo", None),
        ("My brother Tomas helped me move to Oslo.", "Oslo", None),
        ("I moved to Oslo near my sister Maya.", "Oslo", None),
    ],
)  # fmt: skip
def test_a_relatives_news_is_theirs_when_the_clause_saying_it_has_no_i(
    text: str, value: str, owner: str | None
) -> None:
    assert third_party_owner(text, "Ana", "Ben", value) == owner
    assert relation_value("Tomas", "My brother Tomas moved to Oslo.")


def test_a_turn_addresses_its_listener_by_you_or_name() -> None:
    assert addressed("How is your new flat?", "Ben")
    assert addressed("Ben got a dog!", "Ben")
    assert not addressed("I got a dog!", "Ben")


@pytest.mark.parametrize(
    ("value", "text", "ends"),
    [
        ("chess", "I gave up chess last month.", True),
        ("Denver", "I don't live in Denver anymore.", True),
        ("the Civic", "I sold the Civic.", True),
        ("my dreams", "I won't quit on my dreams.", False),
        ("chess", "I'm never giving up chess!", False),
        ("the Civic", "I'm not gonna sell the Civic.", False),
        ("Acme", "Acme is officially behind me.", True),
        ("Oslo", "I gave notice on my place in Oslo.", True),
        ("Acme", "I lost my job at Acme last month.", True),
        ("Acme", "Last month I went my separate ways from Acme.", True),
    ],
)
def test_an_ending_is_said_only_where_it_is_not_denied(value: str, text: str, ends: bool) -> None:
    assert said_to_end(value, text) is ends


@pytest.mark.parametrize(
    ("event_type", "text", "fits"),
    [
        ("hobby_change", "Good for you, honestly.", False),
        ("car_purchase", "Wow, that's great news!", False),
        ("hobby_change", "I changed hobbies again.", True),
        ("moved_city", "We finally moved last week.", True),
        ("greeting", "Hey Dmitri, good to see you!", True),
        ("statement", "Sounds lovely.", True),
    ],
)
def test_an_event_type_fits_its_turn_when_said_or_a_dialogue_act(
    event_type: str, text: str, fits: bool
) -> None:
    assert event_type_said(event_type, text) is fits


@pytest.mark.parametrize(
    ("text", "copied", "worth"),
    [
        ("Sakura Sushi is my favourite restaurant now.", "favourite_restaurant", True),
        ("My favorite restaurant? Definitely the sushi place.", "favourite_restaurant", True),
        ("We always end up at Olive Tree.", "favourite_restaurant", True),  # a name
        ("I took up pottery.", "hobby", True),  # a change
        ("Actually it's the red one.", "car", True),  # a correction
        ("Thanks, Gina! Your kind words mean a lot.", "mood", False),
        ("Wanna see my moves next Fri? Can't wait!", "dance_style", False),
        ("I'm so glad for you, Jon. Keep it up!", "hobby", False),
    ],
)
def test_a_copied_turn_is_read_again_only_when_it_may_state_a_value(
    text: str, copied: str, worth: bool
) -> None:
    assert may_state_value(text, [copied], known=["Jon", "Gina"]) is worth


@pytest.mark.parametrize(
    ("value", "text", "name"),
    [
        ("Denver", "I live in Denver, in a small flat downtown.", True),
        ("denver", "I live in Denver.", True),
        ("small flat downtown", "I live in Denver, in a small flat downtown.", False),
        ("Sakura Sushi", "we always end up at sakura sushi lately", False),
        ("the old mill", "We moved into the old mill.", False),
    ],
)
def test_a_value_is_a_name_when_said_capitalised(value: str, text: str, name: bool) -> None:
    assert said_as_name(value, text) is name


@pytest.mark.parametrize(
    ("value", "text", "whole"),
    [
        ("robotics", "I worked my final shift at Pinecrest Robotics.", "Pinecrest Robotics"),
        ("G70", "I replaced it with a Genesis G70.", "Genesis G70"),
        ("Savannah", "I'm based in Savannah, about twenty minutes away.", "Savannah"),
        ("Sakura Sushi", "Now Sakura Sushi is my favourite restaurant.", "Sakura Sushi"),
        ("Bob", "Thanks Bob! I moved.", "Bob"),
        ("kayaking", "I took up Kayaking.", "Kayaking"),
    ],
)
def test_a_value_cut_short_gets_the_whole_name_the_turn_says(
    value: str, text: str, whole: str
) -> None:
    assert whole_name(value, text) == whole


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ("Tampere", "Not me, but my colleague Ezekiel has packed up and gone to live in Tampere."),
        ("Omaha", "She left for Omaha last week."),
        ("Leeds", "He's gone off to Leeds for good."),
    ],
)
def test_a_place_someone_went_to_is_no_denial(value: str, text: str) -> None:
    assert not negated(value, text)


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ("Rivian R1T", "The Rivian R1T has gone to my nephew."),  # the thing is what went
        ("Boston", "I haven't gone to Boston in years."),
    ],
)
def test_a_thing_gone_or_a_denied_trip_is_still_a_denial(value: str, text: str) -> None:
    assert negated(value, text)


@pytest.mark.parametrize(
    ("taken", "text", "instead"),
    [
        ("Acme Corp", "Hold on, did I say Acme Corp? I meant Orbit Labs.", "Orbit Labs"),
        ("Honda Civic", "Sorry, Honda Civic is wrong, I meant to say Mazda 3.", "Mazda 3"),
        ("Sakura Sushi", "Ugh, ignore me, not Sakura Sushi, it's The Golden Fork.",
         "The Golden Fork"),
        ("Savannah", "Hold on, my mistake: Chattanooga, not Savannah.", "Chattanooga"),
        ("Wok This Way", "Sorry, Wok This Way? What am I on about. Big Sal's Pizzeria, "
         "obviously.", "Big Sal's Pizzeria"),
        ("Kia Rio", "No wait, that's wrong, it's Mazda 3; I don't know why I said Kia Rio.",
         "Mazda 3"),
    ],
)  # fmt: skip
def test_a_correction_takes_a_value_back_and_names_the_one_in_its_place(
    taken: str, text: str, instead: str
) -> None:
    assert taken_back(taken, text)
    assert not taken_back(instead, text)
    assert correcting_name(text, taken) == instead


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ("Denver", "Did I say I love Denver? Yes, every day."),  # no correction in the turn
        ("Acme Corp", "I meant to tell you: Acme Corp hired me."),  # said, not taken back
    ],
)
def test_a_value_said_beside_correction_words_is_not_taken_back(value: str, text: str) -> None:
    assert not taken_back(value, text)


@pytest.mark.parametrize(
    ("value", "text", "denied"),
    [
        ("Casa Roma", "I got food poisoning at Casa Roma one day in April; it's definitely "
         "not my favourite anymore.", True),
        ("Casa Roma", "We ate at Casa Roma. It's not my favourite anymore, sadly.", True),
        ("Denver", "I moved to Denver from Boston; it's not home anymore.", False),
        ("Boston", "I moved to Denver from Boston; it's not home anymore.", True),
        ("Casa Roma", "We ate at Casa Roma; it's still my favourite.", False),
    ],
)  # fmt: skip
def test_a_value_a_pronoun_after_it_says_ended_is_denied(
    value: str, text: str, denied: bool
) -> None:
    assert negated(value, text) is denied
    assert said_to_end(value, text) is denied


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ("Orbit Labs", "Orbit Labs let me go a fortnight ago, budget cuts, so I'm job hunting."),
        ("Orbit Labs", "I packed in my job at Orbit Labs three weeks ago."),
    ],
)
def test_being_let_go_or_packing_a_job_in_ends_it(value: str, text: str) -> None:
    assert said_to_end(value, text)


@pytest.mark.parametrize(
    ("text", "prop", "mine", "yours"),
    [
        ("If you're asking my all-time favorite restaurant, it's Thai Orchid.",
         "favourite_restaurant", True, False),
        ("Is your car still the old Civic?", "car", False, True),
        ("My wheels are a Honda Jazz.", "car", False, False),
        ("My new employer is Acme Corp, how about yours?", "employer", True, False),
    ],
)  # fmt: skip
def test_my_or_your_said_of_a_concept(text: str, prop: str, mine: bool, yours: bool) -> None:
    assert speaks_of_own(text, "my", prop) is mine
    assert speaks_of_own(text, "your", prop) is yours
