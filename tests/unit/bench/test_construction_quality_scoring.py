"""The construction-quality scorer on hand-written answers, facts and reads: values and
dates, wrong entities, denied values under the concept's name, property names."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date

import pytest

from benchmarks.construction_quality.questions import Read
from benchmarks.construction_quality.run import PUBLISHED_FIGURES, published
from benchmarks.construction_quality.scoring import (
    FactRow,
    ReadResult,
    concept_names,
    dates_in,
    goals,
    judge_fact,
    mentions,
    naming_figures,
    owner_of,
    read_right,
    recall,
    resolved_property,
    score_answer,
    share,
    value_matches,
)
from benchmarks.construction_quality.truth import (
    ConceptTruth,
    Conversation,
    DateWindow,
    GenTurn,
    Interval,
    Person,
    Question,
    ValueRef,
)
from benchmarks.published_results import REQUIRED, wilson

PEOPLE = [
    Person(name="Alice", role="subject"),
    Person(name="Sam", role="other"),
    Person(name="Maya", role="third_party", relation="sister"),
]


def _ref(owner: str, concept: str, value: str) -> ValueRef:
    return ValueRef(owner=owner, concept=concept, value=value)


def _turn(
    i: int,
    speaker: str,
    text: str,
    asserts: Sequence[ValueRef] = (),
    denies: Sequence[ValueRef] = (),
) -> GenTurn:
    return GenTurn(
        id=f"t{i}", session="s1", speaker=speaker, listener=None, text=text,
        timestamp=f"2024-0{min(i, 9)}-10T10:00:00", asserts=list(asserts), denies=list(denies),
    )  # fmt: skip


TURNS = [
    _turn(1, "Alice", "I live in Boston, in a small flat.", [_ref("Alice", "lives_in", "Boston")]),
    _turn(2, "Sam", "I've lived in Tulsa my whole life.", [_ref("Sam", "lives_in", "Tulsa")]),
    _turn(3, "Alice", "My sister Maya just moved to Boise.", [_ref("Maya", "lives_in", "Boise")]),
    _turn(
        4, "Alice", "I don't live in Boston anymore, Denver is home now.",
        [_ref("Alice", "lives_in", "Denver")], [_ref("Alice", "lives_in", "Boston")],
    ),
    _turn(5, "Sam", "The weather has been miserable all week."),
]  # fmt: skip


def _interval(value: str, turn: str, day: str, start: bool = False) -> Interval:
    window = DateWindow.day(date.fromisoformat(day)) if start else None
    return Interval(value=value, start=window, end=None, stated_on=day, turn=turn)


CONV = Conversation(
    conversation_id="c1",
    family="A",
    people=PEOPLE,
    turns=TURNS,
    truth=[
        ConceptTruth(
            owner="Alice",
            concept="lives_in",
            property="lives_in",
            intervals=[
                _interval("Boston", "t1", "2024-01-10"),
                _interval("Denver", "t4", "2024-04-10", start=True),
            ],
        ),
        ConceptTruth(
            owner="Sam",
            concept="lives_in",
            property="lives_in",
            intervals=[_interval("Tulsa", "t2", "2024-02-10")],
        ),
        ConceptTruth(
            owner="Maya",
            concept="lives_in",
            property="lives_in",
            intervals=[_interval("Boise", "t3", "2024-03-10", start=True)],
        ),
    ],  # fmt: skip
    question_date="2024-05-01",
)


def _fact(entity: str, prop: str, value: object, turn: int, fid: str = "f") -> FactRow:
    return FactRow(
        fact_id=fid, entity=entity, property=prop, value=value, turn_text=TURNS[turn - 1].text
    )


def _question(kind: str, gold: str, **extra: object) -> Question:
    return Question(
        qid="q", kind=kind, owner="Alice", concept="lives_in", text="?", at="2024-05-01",
        gold=gold, **extra,
    )  # fmt: skip


# ---- answers ----


@pytest.mark.parametrize(
    ("answer", "right"),
    [("Alice lives in Denver.", True), ("denver", True), ("DENVER, Colorado", True),
     ("Alice lives in Boston.", False), ("Denverton", False), ("not found in memory", False)],
)  # fmt: skip
def test_value_answers(answer: str, right: bool) -> None:
    assert score_answer(_question("now", "Denver", others=["Boston"]), answer).correct is right


def test_an_answer_naming_the_old_value_too_is_flagged() -> None:
    score = score_answer(_question("now", "Denver", others=["Boston"]), "Denver (before: Boston)")
    assert score.correct and score.names_other_value


@pytest.mark.parametrize(
    ("answer", "right"),
    [("On 10 April 2024.", True), ("April 10, 2024", True), ("2024-04-10", True),
     ("the 10th of April, 2024", True), ("April 2024", False), ("9 April 2024", False),
     ("10 April", False), ("2024-04-10T00:00:00", True), ("recently", False)],
)  # fmt: skip
def test_when_answers_at_day_granularity(answer: str, right: bool) -> None:
    q = _question("when", "2024-04-10", gold_window=DateWindow.day(date(2024, 4, 10)))
    assert score_answer(q, answer).correct is right


@pytest.mark.parametrize(
    ("answer", "right"),
    [("In March 2024.", True), ("March 12, 2024", True), ("2024-03", True), ("Mar 2024", True),
     ("April 2024", False), ("March 2023", False), ("last month", False)],
)  # fmt: skip
def test_when_answers_at_month_granularity(answer: str, right: bool) -> None:
    q = _question("when", "March 2024", gold_window=DateWindow.month(2024, 3))
    assert score_answer(q, answer).correct is right


def test_dates_in_reads_the_common_forms() -> None:
    found = dates_in("From 2024-01-05 to March 3rd, 2024, then in May 2024.")
    assert [(d.lo, d.granularity) for d in found] == [
        ("2024-01-05", "day"),
        ("2024-03-03", "day"),
        ("2024-05-01", "month"),
    ]
    assert dates_in("on 31 February 2024") == []


def test_value_matching() -> None:
    assert value_matches("a Honda Civic", "Honda Civic")
    assert value_matches("Civic", "Honda Civic")
    assert value_matches(["Boston", "MA"], "Boston")
    assert not value_matches("3", "Tesla Model 3")  # too short a part
    assert not value_matches("Honda", "Boston")
    assert mentions("Lives in Le Petit Bistro's street", "Le Petit Bistro")


# ---- entities and facts ----


@pytest.mark.parametrize(
    ("name", "owner"),
    [("Alice", "Alice"), ("alice", "Alice"), ("Alice's sister", "Maya"), ("sister", "Maya"),
     ("Maya", "Maya"), ("my sister Maya", "Maya"), ("Sam", "Sam"), ("Boston", None)],
)  # fmt: skip
def test_owner_of(name: str, owner: str | None) -> None:
    assert owner_of(name, CONV) == owner


def _judge(fact: FactRow, facts: list[FactRow] | None = None) -> tuple[bool, bool, str]:
    names = concept_names(CONV, facts or [fact])
    j = judge_fact(fact, CONV, names)
    return j.judged, j.correct, j.reason


def test_a_fact_stated_in_its_turn_on_its_owner_is_right() -> None:
    assert _judge(_fact("Alice", "lives_in", "Boston", 1)) == (True, True, "asserted")
    assert _judge(_fact("Alice's sister", "lives_in", "Boise", 3)) == (True, True, "asserted")


def test_a_value_on_the_wrong_person_is_wrong() -> None:
    assert _judge(_fact("Alice", "lives_in", "Boise", 3)) == (True, False, "wrong_entity")
    assert _judge(_fact("Alice", "lives_in", "Tulsa", 2)) == (True, False, "wrong_entity")


def test_a_denied_value_under_the_concept_name_is_wrong() -> None:
    facts = [_fact("Alice", "lives_in", "Boston", 1), _fact("Alice", "lives_in", "Boston", 4)]
    assert _judge(facts[1], facts) == (True, False, "denied_value")
    # under a canonical alias too (moved_to -> lives_in), and right as the past
    assert _judge(_fact("Alice", "moved_to", "Boston", 4))[1:] == (False, "denied_value")
    assert _judge(_fact("Alice", "moved_from", "Boston", 4)) == (True, True, "denied_as_past")


def test_a_value_under_another_concepts_name_is_wrong() -> None:
    conv = CONV.model_copy(deep=True)
    conv.truth.append(
        ConceptTruth(owner="Alice", concept="car", property="car",
                     intervals=[_interval("Honda Civic", "t4", "2024-04-10")])
    )  # fmt: skip
    conv.turns[3].denies.append(_ref("Alice", "car", "Honda Civic"))
    fact = _fact("Alice", "city", "Honda Civic", 4)
    names = concept_names(conv, [fact, _fact("Alice", "city", "Denver", 4)])
    judged = judge_fact(fact, conv, names)
    assert (judged.correct, judged.reason) == (False, "wrong_property")
    # a name that holds no concept of the owner is free (naming is scored on its own)
    judged = judge_fact(_fact("Alice", "sold", "Honda Civic", 4), conv, names)
    assert (judged.correct, judged.reason) == (True, "denied_as_past")


def test_an_end_is_right_only_where_its_turn_denies_that_concept() -> None:
    facts = [_fact("Alice", "lives_in", "Boston", 1)]
    assert _judge(_fact("Alice", "lives_in", None, 4), facts) == (True, True, "ended")
    assert _judge(_fact("Alice", "lives_in", None, 1), facts) == (True, False, "wrong_end")
    assert _judge(_fact("Alice's sister", "lives_in", None, 4), facts)[1:] == (False, "wrong_end")


def test_a_value_copied_from_another_turn_is_wrong() -> None:
    assert _judge(_fact("Alice", "lives_in", "Boston", 5)) == (True, False, "not_in_turn")


def test_an_unknown_value_under_a_concept_name_is_wrong_and_small_talk_unjudged() -> None:
    assert _judge(_fact("Alice", "lives_in", "downtown", 1)) == (True, False, "unknown_value")
    assert _judge(_fact("Sam", "weather", "miserable", 5)) == (False, False, "other")


def test_property_names_and_their_resolution() -> None:
    facts = [
        _fact("Alice", "lives_in", "Boston", 1),
        _fact("Alice", "moved_to", "Denver", 4),
        _fact("Alice", "city", "Denver", 4),
        _fact("Alice", "moved_from", "Boston", 4),  # a denied value: not a name of the concept
        _fact("Alice", "lives_in", "Boise", 3),  # Maya's value: not Alice's concept
    ]
    names = concept_names(CONV, facts)
    assert names[("Alice", "lives_in")] == {
        "lives_in": {"Boston"},
        "moved_to": {"Denver"},
        "city": {"Denver"},
    }
    tl = CONV.timeline("Alice", "lives_in")
    assert resolved_property(tl, names) == "city"  # a tie at one value: the latest, then a-z
    naming = naming_figures([CONV], {"c1": names})
    assert naming["one_name_per_concept"] == {"successes": 0, "n": 1, "rate": 0.0}
    assert naming["names_per_concept_mean"] == 3
    one = concept_names(CONV, [facts[0], _fact("Alice", "lives_in", "Denver", 4)])
    assert naming_figures([CONV], {"c1": one})["entities_one_name"]["rate"] == 1.0
    assert resolved_property(CONV.timeline("Sam", "lives_in"), names) is None


def test_recall_needs_the_right_entity() -> None:
    facts = [_fact("Alice", "lives_in", "Boise", 3), _fact("Sam", "home", "Tulsa", 2)]
    found = {(o, v): hit for o, _, v, hit in recall(CONV, facts)}
    assert found == {
        ("Alice", "Boston"): False, ("Alice", "Denver"): False,
        ("Sam", "Tulsa"): True, ("Maya", "Boise"): False,
    }  # fmt: skip


# ---- reads and goals ----


def _read(entity: str | None, value: object, owner: str = "Maya") -> ReadResult:
    read = Read(kind="current", owner=owner, concept="lives_in", property="lives_in", at=None,
                gold="Boise")  # fmt: skip
    return ReadResult(read=read, style="canonical", property="lives_in", entity=entity, value=value)


def test_a_read_is_right_only_on_the_owner() -> None:
    assert read_right(_read("Maya", "Boise"), CONV)
    assert not read_right(_read("Alice", "Boise"), CONV)  # the name resolved loosely
    assert not read_right(_read("Maya", "Denver"), CONV)
    assert not read_right(_read(None, None), CONV)


def test_goals_are_checked_against_their_targets() -> None:
    got = goals({"now": {"rate": 0.96}, "when": {"rate": 0.5}, "llm_calls_per_turn": 1.1})
    assert got["now"]["met"] and not got["when"]["met"] and got["llm_calls_per_turn"]["met"]
    assert "as_of" not in got


# ---- publishing ----


def _record(set_name: str) -> dict[str, object]:
    figures: dict[str, object] = {k: share([True, True, False]) for k in PUBLISHED_FIGURES}
    figures |= {"names_per_concept_mean": 1.5, "llm_calls_per_turn": 1.1,
                "seconds_per_turn": 10.2, "answer_seconds_p50": 6.0}  # fmt: skip
    return {
        "set": set_name, "seed": 2, "store": "sqlite", "model": "openai/local",
        "command": ".venv/bin/python -m benchmarks.construction_quality.run --set test",
        "commit": "0123456789abcdef0123456789abcdef01234567",
        "started_at": "2026-12-06T01:00:00",
        "data": {"conversations": 4, "turns": 56, "questions": 56},
        "systems": {"apexmem": {"figures": figures}},
    }  # fmt: skip


def test_the_published_summary_has_the_published_format() -> None:
    out = published(_record("test"))
    for key in REQUIRED:
        assert out[key], key
    for key, (lo, hi) in out["ci95"].items():
        counts = out["figures"][key]
        assert (lo, hi) == pytest.approx(wilson(counts["successes"], counts["n"]), abs=1e-4)
    for row in out["table"]:
        row["result"].format_map(out["figures"])
        row["figure"].format_map(out["figures"])
        assert row["ci95"] in out["ci95"]


def test_only_a_held_out_set_is_published() -> None:
    with pytest.raises(SystemExit, match="tuning set is not one"):
        published(_record("tuning"))
    holdout = published(_record("holdout"))
    assert holdout["evaluated_on"].startswith("the holdout set: templates C")
    assert all("holdout templates C" in row["result"] for row in holdout["table"])
