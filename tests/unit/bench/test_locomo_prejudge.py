"""The judge that reads time: gold time words resolved against the evidence day, dates read
in any format, numbers in digits or words, lists and names, and the LLM fallback seeing the
resolved gold (scripted DummyLM). Golds and answers are invented, of LOCOMO's shapes."""

from __future__ import annotations

import dspy
import pytest
from dspy.utils import DummyLM

from benchmarks.locomo.gold_time import answer_dates, clean_dates, resolve_gold_time
from benchmarks.locomo.judge import Judge
from benchmarks.locomo.prejudge import gold_for_llm, prejudge


def span_of(gold: str, said_on: str | None = None) -> tuple[str, str]:
    span = resolve_gold_time(gold, said_on)
    assert span is not None, gold
    return span.start.isoformat(), span.end.isoformat()


@pytest.mark.parametrize(
    ("gold", "said_on", "start", "end"),
    [
        ("7 May 2023", None, "2023-05-07", "2023-05-07"),
        ("19 January, 2023", None, "2023-01-19", "2023-01-19"),
        ("February 24, 2023", None, "2023-02-24", "2023-02-24"),
        ("The week before October 13th, 2023.", None, "2023-10-02", "2023-10-12"),
        ("April.2023", None, "2023-04-01", "2023-04-30"),
        ("2022", None, "2022-01-01", "2022-12-31"),
        ("In 2013", None, "2013-01-01", "2013-12-31"),
        # "the week before" (a Friday): the calendar week before, or the seven days before
        ("The week before 9 June 2023", None, "2023-05-29", "2023-06-08"),
        ("The week before 1 January 2023", None, "2022-12-25", "2022-12-31"),  # a Sunday
        ("the week before 21Janury, 2022", None, "2022-01-10", "2022-01-20"),  # glued, misspelt
        ("The sunday before 25 May 2023", None, "2023-05-21", "2023-05-21"),
        ("The sunday before 3` July 2023", None, "2023-07-02", "2023-07-02"),
        ("The Saturday after 3 June 2022", None, "2022-06-04", "2022-06-04"),
        ("The weekend before 17 July 2023", None, "2023-07-15", "2023-07-16"),
        ("two weekends before 17 July 2023", None, "2023-07-08", "2023-07-09"),
        ("The weekend after 3June, 2022.", None, "2022-06-04", "2022-06-05"),
        ("The week of 23 August 2023", None, "2023-08-21", "2023-08-27"),
        ("first weekend of August 2023", None, "2023-08-05", "2023-08-06"),
        ("The first week of August 2023", None, "2023-07-31", "2023-08-07"),
        ("Two weeks before 11 August 2023", None, "2023-07-24", "2023-07-31"),
        ("a few days before 25 May 2023", None, "2023-05-21", "2023-05-23"),
        ("a few years before 2023", None, "2019-01-01", "2021-12-31"),
        ("early August, 2023", None, "2023-08-01", "2023-08-10"),
        ("The summer of 2022", None, "2022-06-01", "2022-08-31"),
        ("Around August 2022", None, "2022-08-01", "2022-08-31"),
        # relative words: resolved against the day the evidence turn was said
        ("A few years ago", "2023-02-08T09:32:00", "2019-01-01", "2021-12-31"),
        ("10 years ago", "2023-06-27", "2013-01-01", "2013-12-31"),
        ("a year ago", "2023-05-20", "2022-01-01", "2022-12-31"),
        ("last Saturday", "2023-05-24", "2023-05-20", "2023-05-20"),
        ("13 August", "2023-08-14", "2023-08-13", "2023-08-13"),
    ],
)
def test_a_gold_time_becomes_an_interval(gold: str, said_on: str, start: str, end: str) -> None:
    assert span_of(gold, said_on) == (start, end)


def test_relative_words_need_the_evidence_day_and_other_golds_are_no_time() -> None:
    assert resolve_gold_time("A few years ago") is None
    assert resolve_gold_time("last Saturday") is None
    for gold in ("Seattle", "4 years", "two weeks", "her mother", "Yes"):
        assert resolve_gold_time(gold, "2023-05-24") is None, gold


def test_vague_words_leave_a_margin_and_exact_ones_none() -> None:
    few = resolve_gold_time("a few days before 25 May 2023")
    exact = resolve_gold_time("The sunday before 25 May 2023")
    assert few is not None and few.vague and few.margin > 0
    assert exact is not None and not exact.vague and exact.margin == 0


@pytest.mark.parametrize(
    ("answer", "start", "end"),
    [
        ("7 May 2023", "2023-05-07", "2023-05-07"),
        ("2023-05-07", "2023-05-07", "2023-05-07"),
        ("She went on May 7th, 2023.", "2023-05-07", "2023-05-07"),
        ("May 2023", "2023-05-01", "2023-05-31"),
        ("2023", "2023-01-01", "2023-12-31"),
        ("the week of 1-7 May 2023", "2023-05-01", "2023-05-07"),
        ("from 1 May 2023 to 7 May 2023", "2023-05-01", "2023-05-07"),
        ("Saturday, 13th May", "2023-05-13", "2023-05-13"),  # no year: the gold's
    ],
)
def test_an_answer_date_is_read_in_any_format(answer: str, start: str, end: str) -> None:
    read = answer_dates(answer, years=(2023,))
    assert [(s.start.isoformat(), s.end.isoformat()) for s in read.spans] == [(start, end)]


def test_time_words_left_unread_are_noticed() -> None:
    assert answer_dates("7 May 2023").unread is False
    assert answer_dates("a week before 7 May 2023").unread is False  # read as a phrase
    assert answer_dates("7 May 2023, the day after her party").unread is True
    assert answer_dates("07/05/2023").unread is True


def test_clean_dates_undoes_locomo_spellings() -> None:
    assert clean_dates("The week before 15April, 2022.") == "the week before 15 april 2022"
    assert clean_dates("October 13th, 2023") == "october 13 2023"


# The cases hand grading found marked WRONG though right, each now CORRECT without a call.
RIGHT = [
    ("a year for 'a few years before <year>'", "a few years before 2023", "2020", None),
    ("a year for 'a few years ago'", "A few years ago", "in 2020", "2023-02-08"),
    ("the date a year back for 'a year ago'", "A year ago", "20 May 2022", "2023-05-20"),
    ("the Saturday for 'Saturday after'", "The Saturday after 3 June 2022", "2022-06-04", None),
    ("the Saturday for 'the weekend before'", "The weekend before 17 July 2023",
     "Saturday, July 15th, 2023", None),
    ("a day in 'the week before'", "The week before 9 June 2023", "2 June 2023", None),
    ("a few days back", "a few days before 25 May 2023", "22 May 2023", None),
    ("the week's dates for 'the first week of'", "The first week of August 2023",
     "the week of 1-7 August 2023", None),
    ("the week's dates as a range", "The first week of August 2023",
     "1 August 2023 to 7 August 2023", None),
    ("a full date for 'in <year>'", "In 2022", "March 5, 2022", None),
    ("the same day in ISO", "19 January, 2023", "2023-01-19", None),
    ("a month for a day of it", "7 May 2023", "May 2023", None),
    ("a day without a year", "7 May 2023", "May 7th", None),
    ("a digit for a number word", "two", "2", None),
    ("a number word for a digit", "4 years", "four years", None),
    ("digits inside a phrase", "two kids", "She has 2 kids.", None),
    ("a shorter name", "Eternal Sunshine of the Spotless Mind", '"Eternal Sunshine"', None),
    ("every list item", "Seattle and Chicago", "She went to Chicago, then Seattle.", None),
    ("glued list items", "Writing, watchingmovies, exploringnature",
     "writing, watching movies and exploring nature", None),
]  # fmt: skip


@pytest.mark.parametrize(("case", "gold", "answer", "said_on"), RIGHT)
def test_right_answers_are_correct_without_a_call(
    case: str, gold: str, answer: str, said_on: str | None
) -> None:
    verdict = Judge(lm=None)("Question?", gold, answer, said_on=said_on)  # no LM: no call
    assert verdict.correct is True, (case, verdict.raw)
    assert verdict.gold_seen is None


WRONG = [
    ("a different year", "2022", "2021"),
    ("a different day", "7 May 2023", "9 May 2023"),
    ("a day outside the interval", "The sunday before 25 May 2023", "14 May 2023"),
    ("the calendar week before a Sunday", "The week before 1 January 2023", "19 December 2022"),
    ("a month for another month", "June 2023", "2023-09-01"),
    ("one of two list items", "Seattle and Chicago", "Seattle"),
    ("two of three list items", "hiking, swimming and painting", "hiking and swimming"),
    ("another number", "two", "3"),
    ("another number in words", "two weeks", "three weeks"),
    ("the number with another unit", "4 years", "4 months"),
]  # fmt: skip


@pytest.mark.parametrize(("case", "gold", "answer"), WRONG)
def test_wrong_answers_stay_wrong_without_a_call(case: str, gold: str, answer: str) -> None:
    verdict = Judge(lm=None)("Question?", gold, answer)
    assert verdict.correct is False, (case, verdict.raw)


UNDECIDED = [
    ("a date not read", "7 May 2023", "07/05/2023"),
    ("a year for a day", "7 May 2023", "2023"),
    ("a month across the gold's week", "The week before 9 June 2023", "June 2023"),
    ("relative words in the answer", "The week before 9 June 2023", "last week"),
    ("a wrong-looking date beside unread time words", "7 May 2023",
     "9 May 2023, two days after the party"),
    ("a list item with other words", "Seattle and Chicago", "She went to Seattle for work"),
    ("a number among other words", "two", "She has 3 cats and a dog"),
    ("one word of a name", "Iron Man", "Iron"),
    ("a made-up day for a vague span of years", "a few years before 2023", "8 February 2020"),
    ("a list of phrases", "She was happy and thankful", "happy"),
]  # fmt: skip


@pytest.mark.parametrize(("case", "gold", "answer"), UNDECIDED)
def test_what_the_rules_cannot_decide_is_left_to_the_llm(case: str, gold: str, answer: str) -> None:
    assert prejudge("Question?", gold, answer).correct is None, case


def test_the_llm_sees_the_resolved_gold() -> None:
    lm = DummyLM([{"verdict": "CORRECT"}, {"verdict": "WRONG"}], adapter=dspy.JSONAdapter())
    judge = Judge(lm, adapter=dspy.JSONAdapter())
    first = judge("When did Ana go?", "last Saturday", "20/05/2023", said_on="2023-05-24")
    assert first.correct is True and first.gold_seen == "last Saturday (= 20 May 2023)"
    assert "last Saturday (= 20 May 2023)" in lm.history[-1]["messages"][-1]["content"]
    second = judge("When did Ana go?", "7 May 2023", "the 7th")  # an unread date: not WRONG
    assert second.correct is False and second.raw == "WRONG" and len(lm.history) == 2


def test_a_longer_gold_gets_its_relative_words_resolved_for_the_llm() -> None:
    seen = gold_for_llm("She adopted him a year ago", "2023-05-20")
    assert seen == "She adopted him a year ago (20 May 2022)"
    assert gold_for_llm("two", None) == "two (= 2)"
    assert gold_for_llm("19 January, 2023", None) == "19 January, 2023"  # nothing to add
    assert gold_for_llm("The sunday before 25 May 2023", None).endswith("(= 21 May 2023)")


def test_the_rules_say_why() -> None:
    verdict = prejudge("When?", "The week before 9 June 2023", "2023-06-02")
    assert verdict.correct is True
    assert verdict.reason == (
        "the answer's 2 June 2023 lies in the gold's 29 May 2023 to 8 June 2023"
    )
