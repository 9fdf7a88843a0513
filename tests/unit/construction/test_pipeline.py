"""Control flow of the construction pipeline with DummyLM: resolution, retries, checkpoints."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import dspy
import pytest

from apexmem_neo.construction.calls import CompactJSONAdapter
from apexmem_neo.construction.checkpoint import Checkpoint
from apexmem_neo.construction.loaders import TurnInput
from apexmem_neo.construction.pipeline import (
    ConstructionPipeline,
    PipelineConfig,
    RunStats,
    TurnReport,
)
from apexmem_neo.ontology import EntityType, GraphBatch
from apexmem_neo.ontology.ids import entity_id
from apexmem_neo.store import StoreError
from apexmem_neo.store.pages import EVENTS
from apexmem_neo.store.sqlite import SQLiteGraphStore
from tests.unit.construction.conftest import event, fact, turn

ADAPTER = CompactJSONAdapter()
# These tests script ExtractEvent's (full) answers; compact ones are in test_compact.py.
FULL = PipelineConfig(extraction="full")
SCOPE = "test"  # the conversation of conftest.turn, and so the scope
ALICE = entity_id(EntityType.PERSON.value, "Alice", SCOPE)
JAN, MAR = "2024-01-15T19:00:00", "2024-03-20T19:00:00"
T1 = "My favourite restaurant is Italian Garden."
T2 = "Now Sakura Sushi is my favorite restaurant."


def key(text: str) -> str:
    """A DummyLM dict key matching only the turn's own text field (not the context)."""
    return f"[[ ## text ## ]]\n{text}"


def restaurant(name: str, prop: str = "favourite_restaurant", subject: str = "I") -> dict[str, Any]:
    return event(
        [("Alice", "Person", "Speaker"), (name, "Corporation", "Mentioned")],
        [fact(subject, prop, name, name)],
    )


def pipeline(
    store: SQLiteGraphStore, checkpoint: Checkpoint, answers: Any, **config: Any
) -> tuple[ConstructionPipeline, dspy.utils.DummyLM]:
    lm = dspy.utils.DummyLM(answers, adapter=ADAPTER)
    settings = PipelineConfig(**{"extraction": "full", **config})
    return ConstructionPipeline(store, checkpoint, lm, settings, ADAPTER), lm


BOB = entity_id(EntityType.PERSON.value, "Bob", SCOPE)


def said_to_bob(
    store: SQLiteGraphStore, checkpoint: Checkpoint, text: str, facts: list[dict[str, Any]]
) -> None:
    """Alice says ``text`` to Bob, and the model answers ``facts``."""
    people = [("Alice", "Person", "Speaker"), ("Bob", "Person", "Listener")]
    pipe, _ = pipeline(store, checkpoint, {key(text): event(people, facts)})
    pipe.ingest([turn(text, JAN, 0, 1)])


def alice_turns() -> list[TurnInput]:
    return [turn(T1, JAN, 0, 1), turn(T2, MAR, 0, 2)]


def test_alice_gets_two_coexisting_favourite_restaurant_facts(
    store: SQLiteGraphStore, checkpoint: Checkpoint
) -> None:
    answers = {
        T1: restaurant("Italian Garden"),
        key(T2): restaurant("Sakura Sushi", "favorite restaurant"),
    }
    pipe, _ = pipeline(store, checkpoint, answers)
    stats = pipe.ingest(alice_turns())
    history = store.history(ALICE, "favourite_restaurant")
    assert [(f.value, f.t_from) for f in history] == [
        ("Italian Garden", JAN),
        ("Sakura Sushi", MAR),
    ]
    assert store.current(ALICE, "favourite_restaurant").value == "Sakura Sushi"  # type: ignore[union-attr]
    assert store.as_of(ALICE, "favourite_restaurant", "2024-02-01").value == "Italian Garden"  # type: ignore[union-attr]
    assert stats.llm_calls == 2  # one extraction per turn; the spelling variant needed no LLM
    assert stats.llm["extract"]["calls"] == 2
    assert stats.calls_per_turn() == 1.0


def test_exact_matches_never_create_a_duplicate_entity(
    store: SQLiteGraphStore, checkpoint: Checkpoint
) -> None:
    answers = {key(T1): restaurant("Italian Garden"), key(T2): restaurant("italian garden")}
    pipe, _ = pipeline(store, checkpoint, answers)
    pipe.ingest(alice_turns())
    assert len(store.find_entities("Italian Garden", scope=SCOPE)) == 1
    assert len(store.find_entities("Alice", scope=SCOPE)) == 1


def test_facts_carry_evidence_spans_into_the_turn_text_and_pronouns_resolve_to_speaker(
    store: SQLiteGraphStore, checkpoint: Checkpoint
) -> None:
    pipe, _ = pipeline(store, checkpoint, {key(T1): restaurant("Italian Garden", subject="my")})
    pipe.ingest([turn(T1, JAN)])
    rows = store.connection.execute(
        "SELECT e.text, e.span_start, e.span_end, t.text FROM facts f "
        "JOIN evidence e ON e.evidence_id = f.evidence_id JOIN turns t ON t.turn_id = e.turn_id"
    ).fetchall()
    assert len(rows) == 1
    quote, start, end, text = rows[0]
    assert text[start:end] == quote == "Italian Garden"
    assert store.history(ALICE, "favourite_restaurant")


def test_relative_time_is_grounded_and_defaults_are_recorded(
    store: SQLiteGraphStore, checkpoint: Checkpoint
) -> None:
    text = "I went to a support group yesterday. I feel great."
    answer = event(
        [("Alice", "Person", "Speaker")],
        [
            fact(
                "Alice",
                "attended_event",
                "support group",
                "support group yesterday",
                when="yesterday",
                t_from="2023-10-08",
            ),
            fact("Alice", "emotional_state", "great", "I feel great", dtype="enum"),
        ],
        kind="attended support group",
    )
    pipe, _ = pipeline(store, checkpoint, [answer])
    pipe.ingest([turn(text, "2023-05-08T13:56:00")])
    attended = store.history(ALICE, "attended_event")
    assert attended[0].t_from == "2023-05-07T00:00:00"  # the grounder overrode the model
    feeling = store.history(ALICE, "emotional_state")
    assert feeling[0].dtype.value == "enum"
    times = {d.mention: d for d in checkpoint.decisions() if d.kind == "time"}
    assert times["Alice.attended_event"].decision == "rule"
    assert "model said 2023-10-08" in times["Alice.attended_event"].rationale
    assert times["Alice.emotional_state"].decision == "rule"  # inherits the event's time


def test_ambiguous_mention_asks_the_llm_and_fuses_above_threshold(
    store: SQLiteGraphStore, checkpoint: Checkpoint
) -> None:
    first = "Caroline joined the club."
    second = "Carolina joined the choir."
    answers = {
        "[[ ## mention ## ]]\nCarolina": {
            "decision": {
                "decision": "choose_existing",
                "candidate": 1,
                "name": "Caroline",
                "aliases": ["Carolina"],
                "type": "Person",
                "confidence": 0.9,
                "rationale": "Same person, spelling variant.",
            }
        },
        key(first): event(
            [("Caroline", "Person", "Mentioned")],
            [fact("Caroline", "member_of", "the club", "joined the club")],
        ),
        key(second): event(
            [("Carolina", "Person", "Mentioned")],
            [fact("Carolina", "member_of", "the choir", "joined the choir")],
        ),
    }
    pipe, _ = pipeline(store, checkpoint, answers)
    stats = pipe.ingest([turn(first, JAN, 0), turn(second, MAR, 1)])
    caroline = entity_id("Person", "Caroline", SCOPE)
    assert [f.value for f in store.history(caroline, "member_of")] == ["the club", "the choir"]
    assert not store.find_entities("Carolina", scope=SCOPE)
    assert stats.llm["resolve_entity"]["calls"] == 1
    merges = [d for d in checkpoint.decisions() if d.kind == "merge"]
    assert [m.decision for m in merges] == ["fused"]
    llm = [d for d in checkpoint.decisions() if d.via == "llm"]
    assert llm[0].rationale == "Same person, spelling variant."
    entities, _ = checkpoint.load_catalogs(SCOPE)
    assert "Carolina" in entities.entities[caroline].aliases


def test_low_confidence_choice_keeps_entities_apart_and_records_it(
    store: SQLiteGraphStore, checkpoint: Checkpoint
) -> None:
    first, second = "Caroline joined the club.", "Carolina joined the choir."
    answers = {
        "[[ ## mention ## ]]\nCarolina": {
            "decision": {
                "decision": "choose_existing",
                "candidate": 1,
                "name": "Caroline",
                "aliases": [],
                "type": "Person",
                "confidence": 0.5,
                "rationale": "Maybe the same.",
            }
        },
        key(first): event([("Caroline", "Person", "Mentioned")], []),
        key(second): event([("Carolina", "Person", "Mentioned")], []),
    }
    pipe, _ = pipeline(store, checkpoint, answers)
    pipe.ingest([turn(first, JAN, 0), turn(second, JAN, 1)])
    assert store.find_entities("Carolina", scope=SCOPE)
    merges = [d for d in checkpoint.decisions() if d.kind == "merge"]
    assert [(m.decision, m.confidence) for m in merges] == [("kept_apart", 0.5)]


def test_malformed_output_is_retried_then_succeeds(
    store: SQLiteGraphStore, checkpoint: Checkpoint
) -> None:
    pipe, _ = pipeline(store, checkpoint, [{"event": "not an event"}, restaurant("Italian Garden")])
    stats = pipe.ingest([turn(T1, JAN)])
    assert stats.turns_done == 1 and stats.turns_failed == 0
    assert stats.llm["extract"] == pytest.approx(
        {**stats.llm["extract"], "calls": 2, "failed_calls": 1}
    )
    assert store.history(ALICE, "favourite_restaurant")


def test_a_turn_that_keeps_failing_is_recorded_and_skipped_without_aborting(
    store: SQLiteGraphStore, checkpoint: Checkpoint
) -> None:
    answers = {key(T1): {"event": "garbage"}, key(T2): restaurant("Sakura Sushi")}
    pipe, _ = pipeline(store, checkpoint, answers, max_attempts=2)
    stats = pipe.ingest(alice_turns())
    assert (stats.turns_failed, stats.turns_done) == (1, 1)
    failed = checkpoint.failed()
    assert len(failed) == 1 and failed[0].attempts == 2
    assert failed[0].raw_output is not None and "garbage" in failed[0].raw_output
    assert store.counts().turns == 2  # the failed turn's text is still kept
    assert [f.value for f in store.history(ALICE, "favourite_restaurant")] == ["Sakura Sushi"]
    again, _ = pipeline(store, checkpoint, {})
    assert again.ingest(alice_turns()).turns_skipped == 2  # not retried by default


def test_reingest_adds_nothing_and_calls_no_llm(
    store: SQLiteGraphStore, checkpoint: Checkpoint
) -> None:
    answers = {key(T1): restaurant("Italian Garden"), key(T2): restaurant("Sakura Sushi")}
    pipe, _ = pipeline(store, checkpoint, answers)
    pipe.ingest(alice_turns())
    before = store.counts()
    again, _ = pipeline(store, checkpoint, {})
    stats = again.ingest(alice_turns())
    assert stats.llm_calls == 0 and stats.turns_skipped == 2
    assert store.counts() == before


class CrashingStore(SQLiteGraphStore):
    """A real SQLite store that dies (like a killed process) on its n-th write."""

    def __init__(self, path: Path, crash_on: int) -> None:
        super().__init__(path)
        self.writes = 0
        self.crash_on = crash_on

    def write(self, batch: GraphBatch) -> None:
        self.writes += 1
        if self.writes == self.crash_on:
            raise StoreError("simulated crash before the write")
        super().write(batch)


def test_killed_run_resumes_with_no_duplicate_and_no_lost_fact(tmp_path: Path) -> None:
    answers = {key(T1): restaurant("Italian Garden"), key(T2): restaurant("Sakura Sushi")}
    clean_path, crash_path = tmp_path / "clean.sqlite", tmp_path / "crash.sqlite"
    clean, clean_cp = SQLiteGraphStore(clean_path), Checkpoint(clean_path)
    clean.init_schema()
    clean_cp.open()
    pipeline(clean, clean_cp, answers)[0].ingest(alice_turns())

    crashing, cp = CrashingStore(crash_path, crash_on=2), Checkpoint(crash_path)
    crashing.init_schema()
    cp.open()
    with pytest.raises(StoreError):
        pipeline(crashing, cp, answers)[0].ingest(alice_turns())
    assert cp.counts() == {"done": 1, "pending": 1}
    crashing.close()
    cp.close()

    resumed, cp2 = SQLiteGraphStore(crash_path), Checkpoint(crash_path)
    resumed.init_schema()
    cp2.open()
    stats = pipeline(resumed, cp2, {})[0].ingest(alice_turns())  # no LLM answers available
    assert (stats.turns_replayed, stats.turns_skipped, stats.llm_calls) == (1, 2, 0)
    assert resumed.counts() == clean.counts()
    assert [f.value for f in resumed.history(ALICE, "favourite_restaurant")] == [
        "Italian Garden",
        "Sakura Sushi",
    ]


def test_concurrency_keeps_input_order_and_results(
    store: SQLiteGraphStore, checkpoint: Checkpoint
) -> None:
    texts = [f"My favourite restaurant is Place {i}." for i in range(6)]
    answers = {key(t): restaurant(f"Place {i}") for i, t in enumerate(texts)}
    pipe, _ = pipeline(store, checkpoint, answers, concurrency=3)
    stats = pipe.ingest([turn(t, f"2024-01-{i + 10}T10:00:00", i) for i, t in enumerate(texts)])
    assert stats.turns_done == 6 and stats.llm_calls == 6
    values = [f.value for f in store.history(ALICE, "favourite_restaurant")]
    assert values == [f"Place {i}" for i in range(6)]


def test_empty_turn_text_costs_no_llm_call(store: SQLiteGraphStore, checkpoint: Checkpoint) -> None:
    pipe, _ = pipeline(store, checkpoint, [])
    stats = pipe.ingest([turn("   ", JAN)])
    assert stats.llm_calls == 0 and stats.turns_done == 1
    assert store.counts().turns == 1


@pytest.mark.parametrize(("with_embedder", "entities"), [(False, 2), (True, 1)])
def test_dense_candidates_from_an_embedder_catch_a_reordered_name(
    store: SQLiteGraphStore, checkpoint: Checkpoint, with_embedder: bool, entities: int
) -> None:
    """Fuzzy matching misses "Garden Italian" ~ "Italian Garden"; the dense source does not."""
    from apexmem_neo.testing import HashingEmbedder

    answers = {key(T1): restaurant("Italian Garden"), key(T2): restaurant("Garden Italian")}
    lm = dspy.utils.DummyLM(answers, adapter=ADAPTER)
    embedder = HashingEmbedder(dimensions=64) if with_embedder else None
    pipe = ConstructionPipeline(store, checkpoint, lm, FULL, ADAPTER, embedder=embedder)
    pipe.ingest(alice_turns())
    names = store.connection.execute(
        "SELECT name FROM entities WHERE entity_type = 'Corporation'"
    ).fetchall()
    assert len(names) == entities


DENVER, AUSTIN, SEATTLE = (
    "I live in Denver, in a small flat downtown.",
    "I just moved to Austin! The boxes are still everywhere.",
    "I just moved to Seattle! The boxes are still everywhere.",
)


def test_one_city_timeline_from_three_wordings_and_a_value_made_subject(
    store: SQLiteGraphStore, checkpoint: Checkpoint
) -> None:
    """What the local model produced for three moves: Denver.residence = Denver, moved_to, moved."""

    def city(subject: str, prop: str, name: str, quote: str) -> dict[str, Any]:
        return event(
            [("Alice", "Person", "Speaker"), (name, "Place", "Mentioned")],
            [fact(subject, prop, name, quote)],
        )

    answers = {
        key(DENVER): city("Denver", "residence", "Denver", "I live in Denver"),
        key(AUSTIN): city("Alice", "moved_to", "Austin", "I just moved to Austin"),
        key(SEATTLE): city("I", "moved", "Seattle", "I just moved to Seattle"),
    }
    pipe, _ = pipeline(store, checkpoint, answers)
    stats = pipe.ingest(
        [
            turn(DENVER, JAN, 0, 1),
            turn(AUSTIN, MAR, 0, 2),
            turn(SEATTLE, "2024-05-02T10:00:00", 0, 3),
        ]
    )
    assert [f.value for f in store.history(ALICE, "lives_in")] == ["Denver", "Austin", "Seattle"]
    assert store.current(ALICE, "lives_in").value == "Seattle"  # type: ignore[union-attr]
    denver = entity_id(EntityType.PLACE.value, "Denver", SCOPE)
    count = store.connection.execute("SELECT count(*) FROM facts WHERE entity_id = ?", (denver,))
    assert count.fetchone()[0] == 0
    assert stats.llm_calls == 3  # the synonyms were settled by the lexicon, not the LLM
    decisions = checkpoint.decisions()
    subject = [d for d in decisions if d.kind == "subject"]
    assert [(d.mention, d.chosen) for d in subject] == [("Denver.residence", "Alice")]
    synonyms = [d for d in decisions if d.kind == "property" and d.via == "lexicon"]
    assert [(d.mention, d.chosen) for d in synonyms] == [
        ("residence", "lives_in"),
        ("moved_to", "lives_in"),
        ("moved", "lives_in"),
    ]


def test_two_homes_at_once_keep_the_one_said_as_a_name(
    store: SQLiteGraphStore, checkpoint: Checkpoint
) -> None:
    """What the local model once gave for one home: lives_in = Denver and lives_in = small
    flat downtown. A person lives in one place at a time; hobbies may come several at once."""
    text = "I live in Denver, in a small flat downtown. I knit and I paint."
    answer = event(
        [("Alice", "Person", "Speaker"), ("Denver", "Place", "Mentioned")],
        [
            fact("I", "lives_in", "small flat downtown", "in a small flat downtown"),
            fact("I", "lives_in", "Denver", "I live in Denver"),
            fact("I", "hobby", "knit", "I knit"),
            fact("I", "hobby", "paint", "I paint"),
        ],
    )
    pipe, _ = pipeline(store, checkpoint, {key(text): answer})
    stats = pipe.ingest([turn(text, JAN, 0, 1)])
    assert [f.value for f in store.history(ALICE, "lives_in")] == ["Denver"]
    assert sorted(f.value for f in store.history(ALICE, "hobby")) == ["knit", "paint"]
    dropped = [d for d in checkpoint.decisions() if d.kind == "dropped"]
    assert [d.mention for d in dropped] == [f"{ALICE}.lives_in"]
    assert "one value at a time" in dropped[0].rationale
    assert stats.facts_dropped == 1


def test_a_value_made_subject_without_first_person_words_keeps_its_subject(
    store: SQLiteGraphStore, checkpoint: Checkpoint
) -> None:
    text = "Denver is lovely in spring."
    answer = event([("Denver", "Place", "Mentioned")], [fact("Denver", "name", "Denver", "Denver")])
    pipe, _ = pipeline(store, checkpoint, {key(text): answer})
    pipe.ingest([turn(text, JAN)])
    denver = entity_id(EntityType.PLACE.value, "Denver", SCOPE)
    assert [f.value for f in store.history(denver, "name")] == ["Denver"]
    assert not [d for d in checkpoint.decisions() if d.kind == "subject"]


ACME_JOB, GLOBEX_JOB = (
    "I work at Acme Corp as an engineer.",
    "Big news: I started at Globex last week!",
)


def test_job_changes_make_one_employer_timeline_beside_the_occupation(
    store: SQLiteGraphStore, checkpoint: Checkpoint
) -> None:
    """What the local model produced: occupation = engineer only, then occupation = Globex."""
    answers = {
        key(ACME_JOB): event(
            [("Alice", "Person", "Speaker"), ("Acme Corp", "Corporation", "Mentioned")],
            [fact("Alice", "occupation", "engineer", "as an engineer")],
        ),
        key(GLOBEX_JOB): event(
            [("Alice", "Person", "Speaker"), ("Globex", "Corporation", "Mentioned")],
            [fact("Alice", "occupation", "Globex", "I started at Globex", when="last week")],
        ),
    }
    pipe, _ = pipeline(store, checkpoint, answers)
    stats = pipe.ingest([turn(ACME_JOB, JAN, 0, 1), turn(GLOBEX_JOB, MAR, 0, 2)])
    assert [f.value for f in store.history(ALICE, "employer")] == ["Acme Corp", "Globex"]
    assert [f.value for f in store.history(ALICE, "occupation")] == ["engineer"]
    assert store.current(ALICE, "employer").t_from[:10] == "2024-03-11"  # type: ignore[union-attr]  # last week: its Monday
    assert stats.llm_calls == 2
    repairs = [d for d in checkpoint.decisions() if d.kind == "property" and "." in d.mention]
    assert [d.mention for d in repairs] == ["Alice.employer", "Alice.occupation"]


def test_every_turn_saves_the_run_and_resumed_runs_combine(
    store: SQLiteGraphStore, checkpoint: Checkpoint
) -> None:
    seen: list[int] = []

    def saved_so_far(report: TurnReport, stats: RunStats) -> None:
        seen.append(checkpoint.runs()[-1]["turns_done"])

    answers = {key(T1): restaurant("Italian Garden"), key(T2): restaurant("Sakura Sushi")}
    lm = dspy.utils.DummyLM(answers, adapter=ADAPTER)
    first = ConstructionPipeline(store, checkpoint, lm, FULL, ADAPTER)
    first.on_turn = saved_so_far
    first.ingest(alice_turns()[:1])
    assert seen == [1]  # saved before the turn was reported: a kill here keeps it
    second = ConstructionPipeline(store, checkpoint, lm, FULL, ADAPTER)
    second.ingest(alice_turns())
    runs = [RunStats.model_validate(r) for r in checkpoint.runs()]
    combined = RunStats.combined(runs)
    assert [r.turns_done for r in runs] == [1, 1]
    assert (combined.turns_done, combined.llm_calls, combined.turns_skipped) == (2, 2, 0)
    assert combined.llm["extract"]["calls"] == 2
    assert combined.wall_seconds == pytest.approx(sum(r.wall_seconds for r in runs))
    with pytest.raises(ValueError, match="at least one run"):
        RunStats.combined([])


def test_speech_acts_and_empty_values_are_dropped_with_a_reason(
    store: SQLiteGraphStore, checkpoint: Checkpoint
) -> None:
    """What the local model stored on LOCOMO: greeting = "Hey Gina!", job_loss = "None"."""
    text = "Hey Gina! Thanks! I lost my job as a banker."
    answer = event(
        [("Jon", "Person", "Speaker")],
        [
            fact("Jon", "greeting", "Hey Gina!", "Hey Gina!"),
            fact("Jon", "Thank You", "Thanks!", "Thanks!"),
            fact("Jon", "job_loss", "None", "I lost my job"),
            fact("Jon", "job_loss", "banker", "I lost my job as a banker"),
        ],
    )
    pipe, _ = pipeline(store, checkpoint, {key(text): answer})
    stats = pipe.ingest([turn(text, JAN, speaker="Jon")])
    jon = entity_id(EntityType.PERSON.value, "Jon", SCOPE)
    assert [f.value for f in store.history(jon, "job_loss")] == ["banker"]
    assert store.history(jon, "greeting") == [] and store.history(jon, "thank_you") == []
    dropped = [d for d in checkpoint.decisions() if d.kind == "dropped"]
    assert [d.mention for d in dropped] == ["Jon.greeting", "Jon.Thank You", "Jon.job_loss"]
    assert "speech act" in dropped[0].rationale and "no value" in dropped[2].rationale
    assert stats.facts_dropped == 3


def test_a_value_quoting_the_photo_markup_is_dropped(
    store: SQLiteGraphStore, checkpoint: Checkpoint
) -> None:
    """What the local model stored on LOCOMO: dance_routines = "[shares a photo of a group of
    women doing a dance routine]", the loader's markup, beside a value the turn says."""
    text = "I teach contemporary now. [shares a photo: a group of women doing a dance routine]"
    answer = event(
        [("Jon", "Person", "Speaker")],
        [
            fact("Jon", "dance_routines", "[shares a photo of a group of women]", "I teach"),
            fact("Jon", "dance_style", "contemporary", "I teach contemporary now."),
        ],
    )
    pipe, _ = pipeline(store, checkpoint, {key(text): answer})
    pipe.ingest([turn(text, JAN, speaker="Jon")])
    jon = entity_id(EntityType.PERSON.value, "Jon", SCOPE)
    assert store.history(jon, "dance_routines") == []
    assert [f.value for f in store.history(jon, "dance_style")] == ["contemporary"]
    dropped = [d for d in checkpoint.decisions() if d.kind == "dropped"]
    assert "photo's markup" in dropped[0].rationale


def test_two_scopes_resolve_apart_each_mom_keeps_her_own_city(
    store: SQLiteGraphStore, checkpoint: Checkpoint
) -> None:
    said = {"alice": "Mom lives in Lisbon now.", "bob": "Mom lives in Oslo now."}
    answers = {
        key(text): event(
            [("Mom", "Person", "Mentioned")],
            [fact("Mom", "lives_in", text.split()[3].rstrip("."), text)],
        )
        for text in said.values()
    }
    turns = [
        turn(text, JAN).model_copy(update={"conversation_id": scope, "source_key": scope})
        for scope, text in said.items()
    ]
    pipe, _ = pipeline(store, checkpoint, answers)
    pipe.ingest(turns)
    (alice_mom,) = store.find_entities("Mom", scope="alice")
    (bob_mom,) = store.find_entities("Mom", scope="bob")
    assert [f.value for f in store.history(alice_mom.entity_id, "lives_in")] == ["Lisbon"]
    assert [f.value for f in store.history(bob_mom.entity_id, "lives_in")] == ["Oslo"]
    for scope in said:
        entities, properties = checkpoint.load_catalogs(scope)
        assert {e.scope for e in entities.entities.values()} == {scope}
        assert {p.scope for p in properties.properties.values()} == {scope}
    rows = store.connection.execute("SELECT DISTINCT scope FROM facts ORDER BY scope")
    assert [r[0] for r in rows] == ["alice", "bob"]


def said_home(city: str, text: str) -> dict[str, Any]:
    return event([("Alice", "Person", "Speaker")], [fact("I", "lives_in", city, text)])


def test_a_value_said_to_end_is_ended_not_stored_again(
    store: SQLiteGraphStore, checkpoint: Checkpoint
) -> None:
    """'I don't live in Denver anymore' appends an end (value None) from the time the turn
    gives; the denied value is not stored again, and a later home follows the end."""
    gone = "I don't live in Denver anymore; I handed back the keys last month."
    home = "I finally found a place: Austin is home now."
    answers = {
        key(DENVER): said_home("Denver", DENVER),
        key(gone): said_home("Denver", gone),
        key(home): said_home("Austin", home),
    }
    pipe, _ = pipeline(store, checkpoint, answers)
    pipe.ingest([turn(DENVER, JAN, 0, 1), turn(gone, MAR, 0, 2)])
    history = store.history(ALICE, "lives_in")
    assert [(f.value, f.t_from[:10]) for f in history] == [
        ("Denver", "2024-01-15"), (None, "2024-02-01")]  # fmt: skip
    assert store.as_of(ALICE, "lives_in", "2024-01-20").value == "Denver"  # type: ignore[union-attr]
    assert store.as_of(ALICE, "lives_in", "2024-02-10").value is None  # type: ignore[union-attr]
    ends = [d for d in checkpoint.decisions() if d.kind == "end"]
    assert [d.chosen[:10] for d in ends] == ["2024-02-01"]  # type: ignore[index]
    pipe.ingest([turn(home, "2024-04-02T10:00:00", 0, 3)])
    assert store.current(ALICE, "lives_in").value == "Austin"  # type: ignore[union-attr]


def test_a_change_in_one_turn_ends_nothing_and_a_passing_mention_ends_nothing(
    store: SQLiteGraphStore, checkpoint: Checkpoint
) -> None:
    moved = "I don't live in Denver anymore, Austin is home now."
    visit = "I left Denver this morning for a weekend away."
    answers = {
        key(DENVER): said_home("Denver", DENVER),
        key(visit): event([("Alice", "Person", "Speaker")], []),
        key(moved): said_home("Austin", moved),
    }
    pipe, _ = pipeline(store, checkpoint, answers)
    pipe.ingest([turn(DENVER, JAN, 0, 1), turn(visit, "2024-02-10T09:00:00", 0, 2)])
    assert [f.value for f in store.history(ALICE, "lives_in")] == ["Denver"]
    pipe.ingest([turn(moved, MAR, 0, 3)])
    assert [f.value for f in store.history(ALICE, "lives_in")] == ["Denver", "Austin"]


def test_a_reaction_named_after_the_turn_before_becomes_a_remark(
    store: SQLiteGraphStore, checkpoint: Checkpoint
) -> None:
    """The model typed "Good for you, honestly." after the news it answered ("hobby_change");
    a turn that states no fact and says no word of its type keeps its event as a remark, so
    a search for when the hobby changed does not find the reply."""
    news, reply = "I took up woodworking last month.", "Good for you, honestly."
    answers = {
        key(news): event([("Alice", "Person", "Speaker")],
                         [fact("I", "hobby", "woodworking", "woodworking")], kind="hobby_change"),
        key(reply): event([("Bob", "Person", "Speaker")], [], kind="hobby_change"),
    }  # fmt: skip
    pipe, _ = pipeline(store, checkpoint, answers)
    pipe.ingest([turn(news, JAN, 0), turn(reply, JAN, 1, speaker="Bob")])
    types = {e.turn_id: e.event_type for e in store.page(EVENTS, scope=SCOPE).items}
    assert sorted(types.values()) == ["hobby_change", "remark"]
    assert store.history(BOB, "hobby") == []


def test_a_personal_attribute_filed_on_its_value_is_the_speakers(
    store: SQLiteGraphStore, checkpoint: Checkpoint
) -> None:
    """What the local model gave: Cardamom Grill.favourite_restaurant = "best restaurant
    around". A value that is a name stays on its subject."""
    text = "Whenever we go out for dinner I pick Cardamom Grill; best restaurant around."
    other = "Cardamom Grill is in Denver, I went there once."
    answers = {
        key(text): event(
            [("Alice", "Person", "Speaker"), ("Cardamom Grill", "Organization", "Mentioned")],
            [
                fact(
                    "Cardamom Grill",
                    "favourite_restaurant",
                    "best restaurant around",
                    "best restaurant around",
                )
            ],
        ),  # fmt: skip
        key(other): event(
            [("Alice", "Person", "Speaker"), ("Cardamom Grill", "Organization", "Mentioned")],
            [fact("Cardamom Grill", "lives_in", "Denver", "Cardamom Grill is in Denver")],
        ),
    }
    pipe, _ = pipeline(store, checkpoint, answers)
    pipe.ingest([turn(text, JAN, 0, 1), turn(other, MAR, 0, 2)])
    assert [f.value for f in store.history(ALICE, "favourite_restaurant")] == ["Cardamom Grill"]
    grill = entity_id(EntityType.ORGANIZATION.value, "Cardamom Grill", SCOPE)
    assert [f.value for f in store.history(grill, "lives_in")] == ["Denver"]
    assert store.history(grill, "favourite_restaurant") == []


def test_a_relatives_hobby_is_never_turned_into_the_speakers(
    store: SQLiteGraphStore, checkpoint: Checkpoint
) -> None:
    """What the local model gave: Rosa.hobby = birdwatching, with Rosa untyped. A hobby's
    value is no name, so the rule above must not make it Alice's hobby = Rosa."""
    cousin = "My cousin Rosa has taken up birdwatching."
    heard = "Rosa from work has taken up birdwatching, I hear."
    answers = {
        key(text): event(
            [("Alice", "Person", "Speaker")],
            [fact("Rosa", "hobby", "birdwatching", "Rosa has taken up birdwatching")],
        )
        for text in (cousin, heard)
    }
    pipe, _ = pipeline(store, checkpoint, answers)
    pipe.ingest([turn(cousin, JAN, 0, 1), turn(heard, MAR, 0, 2)])
    assert store.history(ALICE, "hobby") == []
    subjects = [d for d in checkpoint.decisions() if d.kind == "subject"]
    assert all("is the value" not in d.rationale for d in subjects)


def test_a_correction_lands_on_the_property_of_the_value_it_corrects(
    store: SQLiteGraphStore, checkpoint: Checkpoint
) -> None:
    """What the local model gave for "my mistake: Chattanooga, not Savannah" after a move to
    Savannah: restaurant = Chattanooga. The new value takes the corrected one's place."""
    moved = "I left Louisville behind; these days I'm living in Savannah."
    fixed = "Hold on, my mistake: Chattanooga, not Savannah."
    answers = {
        key(moved): said_home("Savannah", "I'm living in Savannah"),
        key(fixed): event(
            [("Alice", "Person", "Speaker")], [fact("I", "restaurant", "Chattanooga", fixed)]
        ),
    }
    pipe, _ = pipeline(store, checkpoint, answers)
    pipe.ingest([turn(moved, JAN, 0, 1), turn(fixed, "2024-01-15T19:06:00", 1, 1)])
    history = store.history(ALICE, "lives_in")
    assert [f.value for f in history] == ["Savannah", "Chattanooga"]
    assert history[0].t_from == history[1].t_from
    assert store.current(ALICE, "lives_in").value == "Chattanooga"  # type: ignore[union-attr]
    assert store.history(ALICE, "favourite_restaurant") == []


def test_a_value_given_away_under_another_name_is_not_restated(
    store: SQLiteGraphStore, checkpoint: Checkpoint
) -> None:
    """What the local model gave for "the Rivian R1T went to my nephew" beside a new car:
    nephew = Rivian R1T, which joins ``car`` by its value and must not restate it."""
    first = "My daily driver is a Rivian R1T."
    swap = "I took delivery of a Genesis G70; the Rivian R1T went to my nephew."
    answers = {
        key(first): event(
            [("Alice", "Person", "Speaker")], [fact("I", "car", "Rivian R1T", first)]
        ),
        key(swap): event(
            [("Alice", "Person", "Speaker")],
            [
                fact("I", "vehicle", "Genesis G70", "I took delivery of a Genesis G70"),
                fact("I", "nephew", "Rivian R1T", "the Rivian R1T went to my nephew"),
            ],
        ),  # fmt: skip
    }
    pipe, _ = pipeline(store, checkpoint, answers)
    pipe.ingest([turn(first, JAN, 0, 1), turn(swap, MAR, 0, 2)])
    assert [f.value for f in store.history(ALICE, "car")] == ["Rivian R1T", "Genesis G70"]
    assert store.history(ALICE, "nephew") == []


def test_a_correction_filed_as_the_value_it_takes_back_gives_the_new_name(
    store: SQLiteGraphStore, checkpoint: Checkpoint
) -> None:
    """What the local model gave for "did I say X? I meant Y" after a job at X: the taken-back
    X under another property (favourite_restaurant = X). Y replaces X from X's own start."""
    job = "I'm doing onboarding at Orbit Labs at the moment."
    fixed = "Hold on, did I say Orbit Labs? I meant Globex Software."
    answers = {
        key(job): event(
            [("Alice", "Person", "Speaker")], [fact("I", "employer", "Orbit Labs", job)]
        ),
        key(fixed): event(
            [("Alice", "Person", "Speaker")],
            [fact("I", "favourite_restaurant", "Orbit Labs", "did I say Orbit Labs?")],
        ),
    }
    pipe, _ = pipeline(store, checkpoint, answers)
    pipe.ingest([turn(job, JAN, 0, 1), turn(fixed, "2024-01-15T19:06:00", 1, 1)])
    history = store.history(ALICE, "employer")
    assert [f.value for f in history] == ["Orbit Labs", "Globex Software"]
    assert history[0].t_from == history[1].t_from
    assert store.history(ALICE, "favourite_restaurant") == []


def test_a_value_a_correction_takes_back_is_not_stated_beside_the_new_one(
    store: SQLiteGraphStore, checkpoint: Checkpoint
) -> None:
    """What the local model gave for "X is wrong, I meant to say Y": car = X and car = Y."""
    first = "My daily driver is a Honda Civic."
    fixed = "My brain's fried today: Mazda 3 is wrong, I meant to say Kia Rio."
    answers = {
        key(first): event(
            [("Alice", "Person", "Speaker")], [fact("I", "car", "Honda Civic", first)]
        ),
        key(fixed): event(
            [("Alice", "Person", "Speaker")],
            [fact("I", "car", "Mazda 3", "Mazda 3"), fact("I", "car", "Kia Rio", "Kia Rio")],
        ),
    }
    pipe, _ = pipeline(store, checkpoint, answers)
    pipe.ingest([turn(first, JAN, 0, 1), turn(fixed, MAR, 0, 2)])
    assert [f.value for f in store.history(ALICE, "car")] == ["Honda Civic", "Kia Rio"]


def test_a_favourite_filed_as_a_flag_on_its_value_is_the_speakers(
    store: SQLiteGraphStore, checkpoint: Checkpoint
) -> None:
    """What the local model gave for "X is my absolute favourite": X.favourite_restaurant =
    true, which was dropped as a value the turn does not say."""
    text = "The Golden Fork is my absolute favourite; the waiters know my order by heart."
    answers = {
        key(text): event(
            [("Alice", "Person", "Speaker")],
            [fact("The Golden Fork", "favourite_restaurant", True, text, dtype="bool")],
        )
    }
    pipe, _ = pipeline(store, checkpoint, answers)
    pipe.ingest([turn(text, JAN, 0, 1)])
    assert [f.value for f in store.history(ALICE, "favourite_restaurant")] == ["The Golden Fork"]


def test_a_concept_only_people_hold_filed_on_a_thing_is_the_speakers(
    store: SQLiteGraphStore, checkpoint: Checkpoint
) -> None:
    """What the local model gave for "... best meal of my life at Y, and now X is only my
    second choice": X.favourite_restaurant = Y. A restaurant has no favourite restaurant."""
    first = "Sakura Sushi is my favourite restaurant."
    change = (
        "I had the best meal of my life at The Golden Fork, "
        "and now Sakura Sushi is only my second choice."
    )
    answers = {
        key(first): restaurant("Sakura Sushi"),
        key(change): event(
            [("Alice", "Person", "Speaker"), ("Sakura Sushi", "Organization", "Mentioned")],
            [fact("Sakura Sushi", "favourite_restaurant", "The Golden Fork", change)],
        ),
    }
    pipe, _ = pipeline(store, checkpoint, answers)
    pipe.ingest([turn(first, JAN, 0, 1), turn(change, MAR, 0, 2)])
    history = store.history(ALICE, "favourite_restaurant")
    assert [f.value for f in history] == ["Sakura Sushi", "The Golden Fork"]
    sushi = entity_id(EntityType.ORGANIZATION.value, "Sakura Sushi", SCOPE)
    assert store.history(sushi, "favourite_restaurant") == []


def test_a_value_said_today_starts_after_the_one_said_earlier_that_day(
    store: SQLiteGraphStore, checkpoint: Checkpoint
) -> None:
    """What the local model gave: "today" grounded to midnight put the second car of the day
    before the first, so current() read the first."""
    first = "I drive a Honda Civic these days."
    later = "Big news today: I picked up a Kia Rio."
    answers = {
        key(first): event(
            [("Alice", "Person", "Speaker")], [fact("I", "car", "Honda Civic", first)]
        ),
        key(later): event(
            [("Alice", "Person", "Speaker")],
            [fact("I", "car", "Kia Rio", "I picked up a Kia Rio", when="today")],
        ),
    }
    pipe, _ = pipeline(store, checkpoint, answers)
    pipe.ingest(
        [turn(first, "2024-03-20T15:02:00", 0, 1), turn(later, "2024-03-20T15:06:00", 1, 1)]
    )
    history = store.history(ALICE, "car")
    assert [f.value for f in history] == ["Honda Civic", "Kia Rio"]
    assert history[1].t_from == "2024-03-20T15:06:00"
    assert store.current(ALICE, "car").value == "Kia Rio"  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("text", "prop", "home"),
    [
        ("Sofa-surfing is over, thank God: I've signed for a flat in Leeds.", "location", True),
        ("I'm renting a little place in Leeds at the moment.", "rental_location", True),
        ("I'm in Leeds for a conference this week.", "location", False),  # no home words
        ("I moved my office to Leeds.", "work_location", False),  # not a home property
    ],
)
def test_a_persons_location_in_a_turn_about_home_is_where_they_live(
    store: SQLiteGraphStore, checkpoint: Checkpoint, text: str, prop: str, home: bool
) -> None:
    """What the local model gave for a new flat: location = Leeds beside lives_in."""
    answers = {key(text): event([("Alice", "Person", "Speaker")], [fact("I", prop, "Leeds", text)])}
    pipe, _ = pipeline(store, checkpoint, answers)
    pipe.ingest([turn(text, JAN, 0, 1)])
    lives_in = [f.value for f in store.history(ALICE, "lives_in")]
    assert lives_in == (["Leeds"] if home else [])


def test_a_fact_filed_on_the_listener_is_the_speakers_when_the_turn_says_my(
    store: SQLiteGraphStore, checkpoint: Checkpoint
) -> None:
    """What the local model gave for "If you're asking my all-time favorite restaurant, it's
    X" (said to Bob): Bob.favourite_restaurant = X."""
    text = "If you're asking my all-time favorite restaurant, it's Thai Orchid."
    said_to_bob(store, checkpoint, text, [fact("Bob", "favourite_restaurant", "Thai Orchid", text)])
    assert [f.value for f in store.history(ALICE, "favourite_restaurant")] == ["Thai Orchid"]
    assert store.history(BOB, "favourite_restaurant") == []


def test_a_correction_the_model_gave_no_fact_for_replaces_the_value_it_takes_back(
    store: SQLiteGraphStore, checkpoint: Checkpoint
) -> None:
    """What the local model gave for "Sorry, X? What am I on about. Y, obviously.": only a
    clause, dropped, so X stayed the favourite."""
    first = "I'm at Wok This Way so often the staff wave when I walk in."
    fixed = "Sorry, Wok This Way? What am I on about. Big Sal's Pizzeria, obviously."
    answers = {
        key(first): restaurant("Wok This Way"),
        key(fixed): event(
            [("Alice", "Person", "Speaker")],
            [fact("I", "disagreement", "Wok This Way? What am I on about.", fixed)],
        ),
    }
    pipe, _ = pipeline(store, checkpoint, answers)
    pipe.ingest([turn(first, JAN, 0, 1), turn(fixed, "2024-01-15T19:06:00", 1, 1)])
    history = store.history(ALICE, "favourite_restaurant")
    assert [f.value for f in history] == ["Wok This Way", "Big Sal's Pizzeria"]
    assert history[0].t_from == history[1].t_from
    assert store.current(ALICE, "favourite_restaurant").value == "Big Sal's Pizzeria"  # type: ignore[union-attr]


def test_a_piece_of_a_name_beside_the_whole_name_is_dropped(
    store: SQLiteGraphStore, checkpoint: Checkpoint
) -> None:
    """What the local model gave for "Copperleaf Insurance hired me straight out of school":
    employer = Copperleaf Insurance and employer = Insurance."""
    text = "Copperleaf Insurance hired me straight out of school."
    answers = {
        key(text): event(
            [("Alice", "Person", "Speaker")],
            [
                fact("I", "employer", "Copperleaf Insurance", text),
                fact("I", "employer", "Insurance", text),
            ],
        )
    }
    pipe, _ = pipeline(store, checkpoint, answers)
    pipe.ingest([turn(text, JAN, 0, 1)])
    assert [f.value for f in store.history(ALICE, "employer")] == ["Copperleaf Insurance"]


def test_the_listeners_job_beside_the_speakers_own_is_the_speakers(
    store: SQLiteGraphStore, checkpoint: Checkpoint
) -> None:
    """What the local model gave for "Sorry about your job, Bob! I also lost my job at X":
    Bob.job_title = X. The clause that says X says "my job"; the speaker lost it."""
    text = "Sorry about your job Bob, that's hard! Sadly I also lost my job at Door Dash."
    said_to_bob(store, checkpoint, text, [fact("Bob", "job_title", "Door Dash", text)])
    assert store.history(BOB, "occupation") == []
    history = store.history(ALICE, "occupation")
    assert [f.value for f in history] == ["Door Dash", None]  # held until the turn, then ended
    assert (
        history[0].t_from == history[1].t_from and history[0].recorded_at < history[1].recorded_at
    )


@pytest.mark.parametrize(
    ("text", "future"),
    [
        ("We do all kinds of dances, from contemporary to hip-hop.", False),
        ("I'll be teaching contemporary classes next month.", True),
    ],
)
def test_a_model_date_after_the_turn_needs_words_about_the_future(
    store: SQLiteGraphStore, checkpoint: Checkpoint, text: str, future: bool
) -> None:
    """The model dated a present-tense turn a month ahead: what is said as now starts now."""
    extracted = event(
        [("Alice", "Person", "Speaker")],
        [fact("I", "dance_style", "contemporary", text)],
        when="next month",
    )
    pipe, _ = pipeline(store, checkpoint, {key(text): extracted})
    pipe.ingest([turn(text, JAN, 0, 1)])
    [row] = store.history(ALICE, "dance_style")
    assert (row.t_from[:10] > JAN[:10]) is future


def test_a_value_said_with_i_and_filed_on_the_listener_too_is_the_speakers_alone(
    store: SQLiteGraphStore, checkpoint: Checkpoint
) -> None:
    """What the local model gave for "Sorry about your job, Bob! I lost my job at X last
    month too": job_loss = X on both speakers."""
    text = "Oh no, sorry about your job Bob! Sadly I lost my job at Marlow Couriers too."
    said_to_bob(
        store,
        checkpoint,
        text,
        [fact(who, "job_loss", "Marlow Couriers", text) for who in ("Bob", "Alice")],
    )
    assert store.history(BOB, "job_loss") == []
    assert [f.value for f in store.history(ALICE, "job_loss")] == ["Marlow Couriers"]
