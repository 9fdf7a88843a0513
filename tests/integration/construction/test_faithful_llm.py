"""A faithful memory through the local LLM, one class of statement per test: a value changed
in other words lands on the property that held the old one, a relative's news is filed on
the relative (also beside the speaker's own "I"), a correction replaces the value it corrects
from that value's own start (also one that names the value it takes back), a denied value is
not stored again but ends the earlier one, and a reply that only reacts adds nothing.

The turns are written for these tests (not taken from any benchmark set).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from apexmem_neo.construction.checkpoint import Checkpoint
from apexmem_neo.construction.loaders import TurnInput
from apexmem_neo.construction.pipeline import ConstructionPipeline, PipelineConfig
from apexmem_neo.llm import make_lm
from apexmem_neo.ontology.ids import entity_id
from apexmem_neo.store.protocol import FactRecord
from apexmem_neo.store.sqlite import SQLiteGraphStore
from tests.unit.construction.conftest import turn

pytestmark = [pytest.mark.integration, pytest.mark.llm]

MODEL = "openai/qwen2.5-coder-1.5b-instruct"
ALICE = entity_id("Person", "Alice", "test")


def build(path: Path, lm_api_base: str, turns: list[TurnInput]) -> SQLiteGraphStore:
    store, checkpoint = SQLiteGraphStore(path), Checkpoint(path)
    store.init_schema()
    checkpoint.open()
    lm = make_lm(MODEL, lm_api_base, "local", max_tokens=800)
    stats = ConstructionPipeline(store, checkpoint, lm).ingest(turns)
    checkpoint.close()
    assert stats.turns_failed == 0
    return store


def facts_of(store: SQLiteGraphStore, entity: str) -> list[FactRecord]:
    return store.facts_between(entity, "0001-01-01T00:00:00", "9999-12-31T23:59:59")


def values(records: list[FactRecord]) -> list[str]:
    return [str(r.value) for r in records]


@pytest.mark.timeout(1800)
def test_a_job_change_in_other_words_stays_on_one_property(
    lm_api_base: str, tmp_path: Path
) -> None:
    store = build(
        tmp_path / "job.sqlite",
        lm_api_base,
        [
            turn("I work at Brightwater Bank, in their Denver office.", "2024-01-10T10:00:00", 0),
            turn(
                "Big news: I handed in my notice at Brightwater Bank and joined Pinecone "
                "Health on Monday.",
                "2024-05-08T10:00:00",
                1,
            ),
        ],  # fmt: skip
    )
    employer = store.history(ALICE, "employer")
    assert "Pinecone Health" in values(employer), values(facts_of(store, ALICE))
    assert values(employer)[-1] == "Pinecone Health"
    current = store.current(ALICE, "employer")
    assert current is not None and current.value == "Pinecone Health"
    assert all(
        f.value != "Pinecone Health" for f in facts_of(store, ALICE) if f.property != "employer"
    )


@pytest.mark.timeout(1800)
def test_a_relatives_news_is_filed_on_the_relative(lm_api_base: str, tmp_path: Path) -> None:
    store = build(
        tmp_path / "relative.sqlite",
        lm_api_base,
        [
            turn("I live in Lyon, close to the old town.", "2024-02-01T10:00:00", 0),
            turn("My brother Tomas just moved to Valencia for the sun.", "2024-02-03T10:00:00", 1),
        ],
    )
    alice_values = values(facts_of(store, ALICE))
    assert "Valencia" not in alice_values, alice_values
    tomas = store.find_entities("Tomas", scope="test")
    assert tomas, "Tomas is not an entity"
    assert "Valencia" in values(facts_of(store, tomas[0].entity_id))
    lives_in = store.current(ALICE, "lives_in")
    assert lives_in is not None and lives_in.value == "Lyon"


@pytest.mark.timeout(1800)
def test_a_correction_replaces_the_value_from_its_start(lm_api_base: str, tmp_path: Path) -> None:
    store = build(
        tmp_path / "correction.sqlite",
        lm_api_base,
        [
            turn("I drive a Mazda 3, it's been reliable.", "2024-01-05T10:00:00", 0),
            turn("I traded it in for a Kia Niro yesterday.", "2024-04-10T10:00:00", 1),
            turn(
                "Wait, I got that wrong: it's a Kia Soul, not a Kia Niro.", "2024-04-10T10:05:00", 2
            ),
        ],  # fmt: skip
    )
    car = store.history(ALICE, "car")
    assert store.current(ALICE, "car") is not None
    assert store.current(ALICE, "car").value == "Kia Soul", values(car)  # type: ignore[union-attr]
    soul = next(f for f in car if f.value == "Kia Soul")
    niro = [f for f in car if f.value == "Kia Niro"]
    assert niro and soul.t_from == niro[0].t_from  # the correction holds from the Niro's start
    holds = store.as_of(ALICE, "car", "2024-04-20")
    assert holds is not None and holds.value == "Kia Soul"


@pytest.mark.timeout(1800)
def test_a_correction_naming_the_value_it_takes_back_stores_the_new_name(
    lm_api_base: str, tmp_path: Path
) -> None:
    store = build(
        tmp_path / "taken_back.sqlite",
        lm_api_base,
        [
            turn("I'm doing onboarding at Orbit Labs at the moment.", "2024-03-01T10:00:00", 0),
            turn(
                "Hold on, did I say Orbit Labs? I meant Globex Software.",
                "2024-03-01T10:04:00",
                1,
            ),
        ],  # fmt: skip
    )
    current = store.current(ALICE, "employer")
    assert current is not None and current.value == "Globex Software", values(
        facts_of(store, ALICE)
    )
    later = [f for f in facts_of(store, ALICE) if f.t_from >= "2024-03-01T10:04:00"]
    assert all(f.value != "Orbit Labs" for f in later), later


@pytest.mark.timeout(1800)
def test_a_relatives_new_job_is_theirs_though_the_speaker_says_i(
    lm_api_base: str, tmp_path: Path
) -> None:
    store = build(
        tmp_path / "godmother.sqlite",
        lm_api_base,
        [
            turn(
                "My godmother Rosa has landed a job at Orbit Labs, which I'm a bit jealous of.",
                "2024-03-01T10:00:00",
                0,
            )
        ],
    )
    assert "Orbit Labs" not in values(facts_of(store, ALICE)), values(facts_of(store, ALICE))
    rosa = store.find_entities("Rosa", scope="test")
    assert rosa, "Rosa is not an entity"
    assert "Orbit Labs" in values(facts_of(store, rosa[0].entity_id))


@pytest.mark.timeout(1800)
def test_a_denied_value_is_not_stored_again(lm_api_base: str, tmp_path: Path) -> None:
    store = build(
        tmp_path / "negation.sqlite",
        lm_api_base,
        [
            turn("Chess is my hobby, I play every evening.", "2024-01-05T10:00:00", 0),
            turn("I'm not into chess anymore, I gave it up last month.", "2024-06-10T10:00:00", 1),
        ],
    )
    later = [f for f in facts_of(store, ALICE) if f.t_from >= "2024-05-01"]
    assert all("chess" not in str(f.value).lower() for f in later), later
    _assert_ended(store, "chess", ended_in="2024-05")


@pytest.mark.timeout(1800)
def test_a_home_said_to_be_left_ends_from_the_time_given(lm_api_base: str, tmp_path: Path) -> None:
    store = build(
        tmp_path / "moved_out.sqlite",
        lm_api_base,
        [
            turn("I live in Denver, in a flat near the park.", "2024-01-05T10:00:00", 0),
            turn(
                "I don't live in Denver anymore; I moved out last week.", "2024-06-10T10:00:00", 1
            ),
        ],
    )
    _assert_ended(store, "denver", ended_in="2024-06")


def _assert_ended(store: SQLiteGraphStore, value: str, ended_in: str) -> None:
    """The property that held ``value`` now holds an end (value None) from ``ended_in``,
    and still gives ``value`` before it."""
    held = [f for f in facts_of(store, ALICE) if value in str(f.value).lower()]
    assert held, values(facts_of(store, ALICE))
    now = store.current(ALICE, held[0].property)
    assert now is not None and now.value is None, values(store.history(ALICE, held[0].property))
    assert now.t_from.startswith(ended_in), now.t_from
    before = store.as_of(ALICE, held[0].property, held[0].t_from)
    assert before is not None and value in str(before.value).lower()


@pytest.mark.timeout(1800)
def test_a_reply_that_only_reacts_adds_no_fact(lm_api_base: str, tmp_path: Path) -> None:
    store = build(
        tmp_path / "reaction.sqlite",
        lm_api_base,
        [
            turn("I adopted a greyhound called Pixel last weekend!", "2024-03-04T10:00:00", 0),
            turn("That's lovely, enjoy the walks!", "2024-03-04T10:01:00", 1, speaker="Bob"),
        ],
    )
    bob = entity_id("Person", "Bob", "test")
    assert facts_of(store, bob) == [], values(facts_of(store, bob))


@pytest.mark.timeout(1800)
def test_a_job_the_speaker_lost_is_theirs_and_not_current(lm_api_base: str, tmp_path: Path) -> None:
    """Said to a listener who lost their own job: the lost job is the speaker's, and memory
    keeps it as one that ended, not as the speaker's job now."""
    store = build(
        tmp_path / "lost.sqlite",
        lm_api_base,
        [
            turn(
                "The bank let me go yesterday, so I'm job hunting.",
                "2024-03-04T10:00:00",
                0,
                speaker="Bob",
            ),
            turn(
                "Oh no, sorry about your job Bob! Sadly I lost my job at Marlow Couriers "
                "last month too.",
                "2024-03-04T10:05:00",
                1,
            ),
        ],  # fmt: skip
    )
    bob = entity_id("Person", "Bob", "test")
    assert "Marlow Couriers" not in values(facts_of(store, bob))
    mine = [f for f in facts_of(store, ALICE) if f.value == "Marlow Couriers"]
    assert mine, values(facts_of(store, ALICE))
    for job in ("employer", "occupation", "job", "job_title"):
        current = store.current(ALICE, job)
        assert current is None or current.value != "Marlow Couriers", values(mine)


@pytest.mark.timeout(1800)
def test_a_compiled_extraction_program_builds_through_the_model(
    lm_api_base: str, tmp_path: Path
) -> None:
    """Demos drawn from a generated set, loaded as the extraction program: the model is asked
    with them and a job said plainly lands on the employer."""
    from benchmarks.construction_quality.demos import compile_program

    program = tmp_path / "extraction.json"
    count = compile_program(["tuning"], per_kind=1, seed=1, out=program)
    path = tmp_path / "compiled.sqlite"
    store, checkpoint = SQLiteGraphStore(path), Checkpoint(path)
    store.init_schema()
    checkpoint.open()
    lm = make_lm(MODEL, lm_api_base, "local", max_tokens=800)
    pipeline = ConstructionPipeline(
        store, checkpoint, lm, PipelineConfig(extraction_program=program)
    )
    assert len(pipeline.compact_extractor.predict.demos) == count
    stats = pipeline.ingest([turn("I work at Brightwater Bank these days.", "2024-01-10T10:00:00")])
    checkpoint.close()
    assert stats.turns_failed == 0 and stats.llm_calls == 1
    current = store.current(ALICE, "employer")
    assert current is not None and current.value == "Brightwater Bank", values(
        facts_of(store, ALICE)
    )
