"""The occupation/employer repairs applied to an extraction before merge (no LLM, no I/O)."""

from __future__ import annotations

import pytest

from apexmem_neo.construction.job_facts import (
    ADDED_CONFIDENCE,
    organisation_test,
    property_name,
    repair_job_facts,
)
from apexmem_neo.llm.extract_event import ExtractedEvent
from apexmem_neo.ontology import EntityType
from tests.unit.construction.conftest import event, fact

ACME = ("Acme Corp", "Corporation", "Mentioned")
ALICE = ("Alice", "Person", "Speaker")


def extraction(participants: list[tuple[str, str, str]], facts: list[dict]) -> ExtractedEvent:
    return ExtractedEvent.model_validate(event(participants, facts)["event"])


def repaired(
    text: str,
    participants: list[tuple[str, str, str]],
    facts: list[dict],
    known: dict[str, set[EntityType]] | None = None,
    speaker: str | None = "Alice",
) -> tuple[list[tuple[str, str, object]], list[str]]:
    ex = extraction(participants, facts)
    test = organisation_test(ex, lambda name: (known or {}).get(name, set()))
    out, repairs = repair_job_facts(ex, text, speaker, test)
    return [(f.subject, property_name(f), f.value) for f in out.facts], [
        r.rationale for r in repairs
    ]


def test_an_occupation_naming_a_participant_organisation_becomes_the_employer() -> None:
    text = "I started at Globex last week."
    facts, why = repaired(
        text,
        [ALICE, ("Globex", "Corporation", "Mentioned")],
        [fact("Alice", "occupation", "Globex", "I started at Globex")],
    )
    assert facts == [("Alice", "employer", "Globex")]
    assert why == ["'Globex' is an organisation, not an occupation"]


def test_a_routed_occupation_that_repeats_the_employer_fact_is_dropped() -> None:
    facts, _ = repaired(
        "I started at Globex.",
        [ALICE, ("Globex", "Corporation", "Mentioned")],
        [
            fact("Alice", "employer", "Globex", "I started at Globex"),
            fact("Alice", "job", "Globex", "started at Globex"),
        ],
    )
    assert facts == [("Alice", "employer", "Globex")]


@pytest.mark.parametrize(
    ("value", "known"),
    [
        ("Initech", {"Initech": {EntityType.ORGANIZATION}}),  # typed so in memory
        ("Vandelay Industries", {}),  # a company word ends the name
        ("Hooli Inc.", {}),
        ("Maplewood Insurance", {}),
    ],
)
def test_organisations_known_to_memory_or_named_like_companies_are_routed(
    value: str, known: dict[str, set[EntityType]]
) -> None:
    facts, _ = repaired(
        "I work there now.", [ALICE], [fact("I", "occupation", value, "I work")], known
    )
    assert facts == [("I", "employer", value)]


def test_a_profession_stays_an_occupation() -> None:
    facts, why = repaired(
        "I'm a nurse now.", [ALICE], [fact("Alice", "occupation", "nurse", "I'm a nurse")]
    )
    assert facts == [("Alice", "occupation", "nurse")]
    assert why == []


def test_i_work_at_a_company_as_an_engineer_adds_the_missing_employer() -> None:
    """What the local model gave: occupation = engineer, and no employer."""
    ex = extraction(
        [ALICE, ACME],
        [
            fact(
                "Alice",
                "occupation",
                "engineer",
                "as an engineer",
                when="since May",
                t_from="2024-05-01",
            )
        ],
    )
    out, repairs = repair_job_facts(
        ex, "I work at Acme Corp as an engineer.", "Alice", organisation_test(ex, lambda _: set())
    )
    employer = [f for f in out.facts if f.property == "employer"]
    assert [(f.subject, f.value, f.evidence) for f in employer] == [
        ("Alice", "Acme Corp", "I work at Acme Corp")
    ]
    assert (employer[0].when, employer[0].t_from) == ("since May", "2024-05-01")
    assert employer[0].confidence == ADDED_CONFIDENCE
    assert len(repairs) == 1


@pytest.mark.parametrize(
    "text",
    [
        "I got a job as an analyst at Acme Corp!",
        "I'm working for Acme Corp these days.",
        "We were hired by Acme Corp in May.",
        "Acme Corp took me on last week.",
    ],
)
def test_first_person_work_sentences_name_the_employer(text: str) -> None:
    facts, _ = repaired(text, [ALICE, ACME], [])
    assert facts == [("Alice", "employer", "Acme Corp")]


@pytest.mark.parametrize(
    "text",
    [
        "My sister works at Acme Corp.",  # someone else's job
        "I think Bob works at Acme Corp.",  # "I" is not the one working
        "I was working out at Acme Corp's gym.",  # not work
        "I bought a phone from Acme Corp.",  # no work word
        "Acme Corp hired my sister.",  # someone else was hired
    ],
)
def test_other_sentences_add_no_employer(text: str) -> None:
    facts, why = repaired(text, [ALICE, ACME], [])
    assert facts == [] and why == []


def test_no_employer_is_added_when_the_model_gave_one_or_for_a_document_stream() -> None:
    given = [fact("Alice", "employer", "Acme Corp", "I work at Acme Corp")]
    assert repaired("I work at Acme Corp.", [ALICE, ACME], given)[0] == [
        ("Alice", "employer", "Acme Corp")
    ]
    assert repaired("I work at Acme Corp.", [ACME], [], speaker=None)[0] == []


@pytest.mark.parametrize(
    ("text", "employer"),
    [
        ("I work at Acme Corp as an engineer.", "Acme Corp"),
        ("I'm working for Orbit Labs these days.", "Orbit Labs"),
        ("I started at the Mercy Hospital in May.", "Mercy Hospital"),
        ("I'm a project manager over at Lumen Software.", "Lumen Software"),
        ("I am an engineer with Orbit Labs.", "Orbit Labs"),
        ("Good news: Orbit Labs hired me.", "Orbit Labs"),
        (
            "Guess what, Mercy Hospital has finally offered me a permanent position!",
            "Mercy Hospital",
        ),
    ],
)
def test_an_unlisted_organisation_named_after_a_work_word_is_the_employer(
    text: str, employer: str
) -> None:
    facts, why = repaired(text, [ALICE], [fact("Alice", "occupation", "engineer", text)])
    assert ("Alice", "employer", employer) in facts
    assert why == [
        f"the turn says the speaker works at/for {employer!r} and the model gave no employer fact"
    ]


@pytest.mark.parametrize(
    "text",
    [
        "I work at Globex now.",  # a name, but nothing says it is an organisation
        "I work at home these days.",  # not a name
        "I was working out at Acme Corp.",  # not work
        "I'm a regular at Orbit Labs.",  # a customer, not a role
        "Orbit Labs hired my brother.",  # not the speaker
        "Orbit Labs never hired me.",  # denied
        "Globex hired me.",  # nothing says Globex is an organisation
    ],
)
def test_an_unlisted_name_that_is_not_an_organisation_adds_no_employer(text: str) -> None:
    facts, why = repaired(text, [ALICE], [])
    assert facts == [] and why == []


def test_an_unlisted_name_memory_types_as_an_organisation_is_the_employer() -> None:
    known = {"Globex": {EntityType.CORPORATION}}
    facts, _ = repaired("I work at Globex now.", [ALICE], [], known=known)
    assert facts == [("Alice", "employer", "Globex")]


@pytest.mark.parametrize(
    "text",
    [
        "Turns out I'm a sea kayaking person now.",
        "I've taken up sea kayaking this spring.",
        "Lately I'm really into sea kayaking.",
    ],
)
def test_an_occupation_the_turn_calls_a_pastime_is_a_hobby(text: str) -> None:
    facts, why = repaired(text, [ALICE], [fact("Alice", "occupation", "sea kayaking", text)])
    assert facts == [("Alice", "hobby", "sea kayaking")]
    assert why == ["the turn calls 'sea kayaking' a pastime, not an occupation"]


@pytest.mark.parametrize(
    "text",
    [
        "I work in marketing now.",  # a line of work
        "I'm a marketing manager at a bank.",  # a role, not "a marketing person"
        "Into the office at nine, as always; marketing keeps me busy.",
    ],
)
def test_an_occupation_said_as_work_stays_an_occupation(text: str) -> None:
    facts, why = repaired(text, [ALICE], [fact("Alice", "occupation", "marketing", text)])
    assert facts == [("Alice", "occupation", "marketing")] and why == []


def test_an_employer_the_turn_says_was_left_leaves_room_for_the_one_it_names() -> None:
    text = "I'm doing onboarding at Orbit Labs at the moment, so Acme Corp is officially behind me."
    given = [fact("Alice", "employer", "Acme Corp", text)]
    facts, _ = repaired(text, [ALICE], given)
    assert ("Alice", "employer", "Orbit Labs") in facts
    assert ("Alice", "employer", "Acme Corp") in facts  # merge ends it; the repair adds only


@pytest.mark.parametrize(
    ("text", "prop", "value"),
    [
        ("I answer the phones in customer support for Orbit Labs.", "job_description",
         "customer support"),
        ("I started my new role at Orbit Labs last week.", "new_role", "new role"),
        ("My team at Orbit Labs ships the billing app.", "team", "billing app"),
    ],
)  # fmt: skip
def test_the_speakers_job_filed_on_their_organisation_is_their_employer(
    text: str, prop: str, value: str
) -> None:
    facts, why = repaired(text, [ALICE], [fact("Orbit Labs", prop, value, text)])
    assert facts == [("Alice", "employer", "Orbit Labs")]
    assert why == ["the speaker's job filed on 'Orbit Labs': the speaker works there"]


@pytest.mark.parametrize(
    "text",
    [
        "I've applied for a support role at Orbit Labs.",  # sought, not held
        "My sister does customer support for Orbit Labs.",  # "my" alone: not the speaker
        "Orbit Labs is hiring for its support team, I hear.",
    ],
)
def test_a_job_not_held_by_the_speaker_stays_where_it_was_filed(text: str) -> None:
    given = [fact("Orbit Labs", "job_description", "customer support", text)]
    facts, why = repaired(text, [ALICE], given)
    assert facts == [("Orbit Labs", "job_description", "customer support")] and why == []


@pytest.mark.parametrize(
    ("prop", "value"),
    [("job_location", "Meridian Print Works"), ("work_site", "Oakhurst Academy")],
)
def test_a_job_property_naming_an_organisation_is_the_employer(prop: str, value: str) -> None:
    text = f"I'm working for {value} these days and loving it."
    facts, why = repaired(text, [ALICE], [fact("Alice", prop, value, text)])
    assert facts == [("Alice", "employer", value)]
    assert why == [f"{value!r} is an organisation, not an occupation"]


def test_a_job_property_naming_no_organisation_stays() -> None:
    text = "I switched jobs in May."
    facts, why = repaired(text, [ALICE], [fact("Alice", "job_change_date", "May", text)])
    assert facts == [("Alice", "job_change_date", "May")] and why == []
