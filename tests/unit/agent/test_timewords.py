"""Time words as people say them: the turns' own times."""

from __future__ import annotations

import pytest

from apexmem_neo.agent.timewords import (
    question_times,
    said_times,
    spoken_date,
    spoken_span,
    with_said_dates,
)


def test_dates_are_spoken_as_people_write_them() -> None:
    assert spoken_date("2023-01-19T00:00:00") == "19 January 2023"
    assert spoken_span("2023-01-01", "2023-01-31") == "January 2023"
    assert spoken_span("2024-02-01", "2024-02-29") == "February 2024"
    assert spoken_span("2022-01-01", "2022-12-31") == "2022"
    assert spoken_span("2023-01-09", "2023-01-15") == "9 January 2023 to 15 January 2023"


def test_a_turns_time_words_get_their_dates_beside_them() -> None:
    said = "Lost my job yesterday, and at Door Dash this month. See you next month, not today!"
    assert with_said_dates(said, said_times(said, "2023-01-20")) == (
        "Lost my job yesterday (19 January 2023), and at Door Dash this month (January 2023). "
        "See you next month (February 2023), not today!"
    )  # "today" is the day shown with the turn: not repeated
    vague = "I got it a few years ago; we met a couple of months ago."
    assert with_said_dates(vague, said_times(vague, "2023-02-08")) == (
        "I got it a few years ago (around 2020); we met a couple of months ago (around "
        "December 2022)."
    )
    assert said_times("My favourite restaurant is Italian Garden.", "2023-01-20") == []
    assert said_times("We met on 2023-01-02.", "2023-01-20") == []  # already a date


@pytest.mark.parametrize(
    ("question", "expression", "start", "end"),
    [
        ("What city was she calling home as of December 2024?", "December 2024",
         "2024-12-01", "2024-12-31"),
        ("What did he drive during March, 2024?", "March, 2024", "2024-03-01", "2024-03-31"),
        ("Back in September of 2024, what was she driving?", "September of 2024",
         "2024-09-01", "2024-09-30"),
        ("Where did she live in May 2024?", "in May 2024", "2024-05-01", "2024-05-31"),
    ],
)  # fmt: skip
def test_a_month_and_year_is_one_time_in_any_wording(
    question: str, expression: str, start: str, end: str
) -> None:
    times = question_times(question, "2025-02-20")
    assert [(t.expression, t.start[:10], t.end[:10]) for t in times] == [(expression, start, end)]
