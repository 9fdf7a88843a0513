"""The deterministic grounder on 50+ time expressions against fixed anchors."""

from __future__ import annotations

import pytest

from apexmem_neo.construction.grounding import TimeSource, find_expression, ground_time

MONDAY = "2023-05-08T13:56:00"  # Monday 8 May 2023 (LOCOMO conv-26 session 1)
SUNDAY = "2024-03-17T10:00:00"  # Sunday
FEBRUARY = "2024-02-02T21:15:00"  # Friday, early in the year

CASES = [
    (MONDAY, "yesterday", "2023-05-07", None),
    (MONDAY, "Yesterday.", "2023-05-07", None),
    (MONDAY, "today", "2023-05-08", None),
    (MONDAY, "tonight", "2023-05-08", None),
    (MONDAY, "this morning", "2023-05-08", None),
    (MONDAY, "last night", "2023-05-07", None),
    (MONDAY, "the day before yesterday", "2023-05-06", None),
    (MONDAY, "tomorrow", "2023-05-09", None),
    (MONDAY, "the day after tomorrow", "2023-05-10", None),
    (MONDAY, "2 days ago", "2023-05-06", None),
    (MONDAY, "three days ago", "2023-05-05", None),
    (MONDAY, "a few days ago", "2023-05-05", None),
    (MONDAY, "a couple of days ago", "2023-05-06", None),
    (MONDAY, "a week ago", "2023-05-01", None),
    (MONDAY, "two weeks ago", "2023-04-24", None),
    (MONDAY, "a month ago", "2023-04-08", None),
    (MONDAY, "a couple of months ago", "2023-03-08", None),
    (MONDAY, "6 months ago", "2022-11-08", None),
    (MONDAY, "a year ago", "2022-05-08", None),
    (MONDAY, "two years ago", "2021-05-08", None),
    (MONDAY, "a decade ago", "2013-05-08", None),
    (MONDAY, "in two weeks", "2023-05-22", None),
    (MONDAY, "in 3 days", "2023-05-11", None),
    (MONDAY, "a month from now", "2023-06-08", None),
    (MONDAY, "last week", "2023-05-01", "2023-05-07"),
    (MONDAY, "this week", "2023-05-08", "2023-05-14"),
    (MONDAY, "next week", "2023-05-15", "2023-05-21"),
    (MONDAY, "last month", "2023-04-01", "2023-04-30"),
    (MONDAY, "this month", "2023-05-01", "2023-05-31"),
    (MONDAY, "earlier this month", "2023-05-01", "2023-05-31"),
    (MONDAY, "next month", "2023-06-01", "2023-06-30"),
    (MONDAY, "last year", "2022-01-01", "2022-12-31"),
    (MONDAY, "this year", "2023-01-01", "2023-12-31"),
    (MONDAY, "next year", "2024-01-01", "2024-12-31"),
    (MONDAY, "in 2019", "2019-01-01", "2019-12-31"),
    (MONDAY, "back in 2010", "2010-01-01", "2010-12-31"),
    (MONDAY, "2016", "2016-01-01", "2016-12-31"),
    (MONDAY, "last Friday", "2023-05-05", None),
    (MONDAY, "on Saturday", "2023-05-06", None),
    (MONDAY, "last Monday", "2023-05-01", None),
    (MONDAY, "next Friday", "2023-05-12", None),
    (MONDAY, "next Monday", "2023-05-15", None),
    (MONDAY, "this Wednesday", "2023-05-10", None),
    (MONDAY, "last weekend", "2023-05-06", "2023-05-07"),
    (MONDAY, "over the weekend", "2023-05-06", "2023-05-07"),
    (MONDAY, "this weekend", "2023-05-13", "2023-05-14"),
    (MONDAY, "next weekend", "2023-05-20", "2023-05-21"),
    (SUNDAY, "this weekend", "2024-03-16", "2024-03-17"),
    (MONDAY, "last summer", "2022-06-01", "2022-08-31"),
    (MONDAY, "this summer", "2023-06-01", "2023-08-31"),
    (MONDAY, "next winter", "2023-12-01", "2024-02-29"),
    (FEBRUARY, "last winter", "2022-12-01", "2023-02-28"),
    (FEBRUARY, "this winter", "2023-12-01", "2024-02-29"),
    (MONDAY, "in May", "2023-05-01", "2023-05-31"),
    (MONDAY, "in June", "2022-06-01", "2022-06-30"),
    (MONDAY, "last May", "2022-05-01", "2022-05-31"),
    (MONDAY, "next May", "2024-05-01", "2024-05-31"),
    (MONDAY, "last December", "2022-12-01", "2022-12-31"),
    (MONDAY, "May 2022", "2022-05-01", "2022-05-31"),
    (MONDAY, "in March, 2021", "2021-03-01", "2021-03-31"),
    (MONDAY, "June 3rd", "2023-06-03", None),
    (MONDAY, "the 3rd of June", "2023-06-03", None),
    (MONDAY, "December 25", "2022-12-25", None),
    (MONDAY, "on 2022-12-25", "2022-12-25", None),
    (MONDAY, "2021-07", "2021-07-01", "2021-07-31"),
    (MONDAY, "3 June 2023", "2023-06-03", None),
    (MONDAY, "July 4, 2020", "2020-07-04", None),
]


@pytest.mark.parametrize(("anchor", "expression", "start", "end"), CASES)
def test_expression_grounds_to_iso_relative_to_the_anchor(
    anchor: str, expression: str, start: str, end: str | None
) -> None:
    grounded = ground_time(expression, None, anchor)
    assert grounded.source in (TimeSource.RULE, TimeSource.PARSER)
    assert grounded.start == f"{start}T00:00:00"
    assert grounded.end == (f"{end}T00:00:00" if end else None)


def test_there_are_at_least_forty_expressions() -> None:
    assert len(CASES) >= 40


@pytest.mark.parametrize("vague", ["recently", "lately", "the other day", "", "   ", "someday"])
def test_vague_or_missing_falls_back_to_the_anchor_and_says_so(vague: str) -> None:
    grounded = ground_time(vague, None, MONDAY)
    assert grounded.source == TimeSource.ANCHOR
    assert grounded.is_default
    assert grounded.start == MONDAY


def test_the_grounder_overrides_a_wrong_model_date_and_records_it() -> None:
    grounded = ground_time("yesterday", "2023-10-08", MONDAY)
    assert grounded.start == "2023-05-07T00:00:00"
    assert grounded.corrected_model_value == "2023-10-08T00:00:00"


def test_a_plausible_model_date_is_used_when_the_expression_is_vague() -> None:
    grounded = ground_time("recently", "2023-04-30", MONDAY)
    assert grounded.source == TimeSource.MODEL
    assert grounded.start == "2023-04-30T00:00:00"


def test_an_implausible_or_malformed_model_date_is_ignored() -> None:
    assert ground_time(None, "3023-01-01", MONDAY).source == TimeSource.ANCHOR
    assert ground_time(None, "last tuesday-ish", MONDAY).source == TimeSource.ANCHOR


def test_find_expression_spots_time_words_in_text() -> None:
    text = "I went to a LGBTQ support group yesterday and it was so powerful."
    assert find_expression(text) == "yesterday"
    assert find_expression("I painted that lake sunrise last year!") == "last year"
    assert find_expression("We moved here back in 2019.") == "back in 2019"
    assert find_expression("Nothing temporal here.") is None
