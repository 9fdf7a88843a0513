"""The temporal benchmark: generated conversations, their gold answers, the exact check,
and the materialised overwrite memory."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest

from apexmem_neo.agent import AgentConfig
from apexmem_neo.ontology import Turn
from apexmem_neo.store.eager import EagerOverwriteStore
from apexmem_neo.store.sqlite import SQLiteGraphStore
from benchmarks.temporal.generator import QUESTION_KINDS, date_forms, generate
from benchmarks.temporal.overwrite import materialise_overwrite
from benchmarks.temporal.run import _args, _memories, agent_config, exact_match
from tests.unit.agent.alice import ALICE, SESSION, TURN_1, TURN_2, alice_batch


def test_generation_is_deterministic_and_well_formed() -> None:
    first, again = generate(3, seed=5), generate(3, seed=5)
    assert [c.model_dump() for c in first] == [c.model_dump() for c in again]
    assert generate(3, seed=6)[0].model_dump() != first[0].model_dump()
    for conv in first:
        dates = [s.date for s in conv.statements]
        assert dates == sorted(dates) and len(set(dates)) == len(dates)
        assert len(conv.statements) == 6  # 2 attributes x 3 values, one per session
        assert conv.question_date > dates[-1]
        assert [q.kind for q in conv.questions] == list(QUESTION_KINDS)
        turns = conv.turns()
        assert [t.anchor for t in turns] == dates
        assert len({t.turn().turn_id for t in turns}) == len(turns)


def test_gold_answers_follow_the_timeline() -> None:
    for conv in generate(8, seed=11):
        by_attr: dict[str, list[tuple[str, str]]] = {}
        for s in conv.statements:
            by_attr.setdefault(s.attribute, []).append((s.date, s.value))
        for q in conv.questions:
            timeline = by_attr[q.attribute]
            values = [v for _, v in timeline]
            if q.kind == "current":
                assert q.gold == values[-1]
            elif q.kind == "count_changes":
                assert q.gold == str(len(values) - 1) and "two" in q.gold_forms
            elif q.kind == "when_changed":
                changed = {d[:10]: v for d, v in timeline[1:]}
                assert q.gold in changed and changed[q.gold] in q.question
            elif q.kind == "before":
                later = next(i for i, v in enumerate(values) if i and v in q.question)
                assert q.gold == values[later - 1]
            else:  # as_of: the value held on the date named in the question
                asked = next(
                    datetime.strptime(q.question.split(" on ")[1].rstrip("?"), "%d %B %Y")
                    for _ in [0]
                )
                held = [v for d, v in timeline if datetime.fromisoformat(d) <= asked]
                assert q.gold == held[-1] and len(held) < len(values)


def test_date_forms_and_exact_match() -> None:
    forms = date_forms("2024-05-07T10:00:00")
    assert forms == ["2024-05-07", "7 May 2024", "May 7, 2024"]
    assert exact_match("She started on May 7, 2024.", forms)
    assert exact_match("2024-05-07", forms)
    assert not exact_match("2024-05-08", forms)
    assert exact_match("It changed two times", ["2", "two"])
    assert not exact_match("Sakura Sushi Bar", ["Sushi Ba"])  # whole words only


def _two_writes(path: Path) -> SQLiteGraphStore:
    """Alice's two restaurant facts written at different times, plus a turn with no fact."""
    batch = alice_batch()
    chat = Turn(turn_id="alice_turn_3", session_id=SESSION, seq=2, speaker="Bob",
                listener="Alice", text="Nice!", anchor_datetime="2024-03-20T10:01:00")  # fmt: skip
    first = batch.model_copy(update={
        "turns": batch.turns[:1], "evidence": batch.evidence[:1], "events": batch.events[:1],
        "participants": batch.participants[:1], "facts": batch.facts[:1],
        "recorded_at": "2024-01-16T00:00:00"})  # fmt: skip
    second = batch.model_copy(update={
        "sessions": [], "entities": [], "turns": [batch.turns[1], chat],
        "evidence": batch.evidence[1:], "events": batch.events[1:],
        "participants": batch.participants[1:], "facts": batch.facts[1:],
        "recorded_at": "2024-03-21T00:00:00"})  # fmt: skip
    store = SQLiteGraphStore(path)
    store.init_schema()
    store.write(first)
    store.write(second)
    return store


def test_overwrite_keeps_the_last_written_fact_and_forgets_its_words(tmp_path: Path) -> None:
    source = _two_writes(tmp_path / "append.sqlite")
    counts = materialise_overwrite(tmp_path / "append.sqlite", tmp_path / "over.sqlite")
    assert counts == {"facts_total": 2, "facts_kept": 1, "turns_dropped": 1,
                      "facts_overwritten": 1}  # fmt: skip
    over = SQLiteGraphStore(tmp_path / "over.sqlite")
    over.init_schema()  # opens it (migrations already applied)
    kept = over.history(ALICE, "favourite_restaurant")
    eager = EagerOverwriteStore(source).history(ALICE, "favourite_restaurant")
    assert [f.value for f in kept] == [f.value for f in eager] == ["Sakura Sushi"]
    turns = {r[0] for r in over.connection.execute("SELECT turn_id FROM turns")}
    assert turns == {TURN_2, "alice_turn_3"} and TURN_1 not in turns
    assert len(source.history(ALICE, "favourite_restaurant")) == 2  # the source is untouched
    over.close()
    source.close()


def test_agent_options_reach_the_config() -> None:
    default = AgentConfig()
    config = agent_config(_args([]))
    assert (config.context_order, config.mode) == (default.context_order, "auto")
    assert agent_config(_args(["--context-order", "turns"])).context_order == "turns"


def test_memories_to_ask_are_checked_by_name() -> None:
    assert _memories("append_only") == {"append_only"}
    assert _memories("append_only, overwrite") == {"append_only", "overwrite"}
    with pytest.raises(SystemExit, match="unknown.*'eager'"):
        _memories("append_only,eager")
    with pytest.raises(SystemExit, match="--memories"):
        _memories(",")
