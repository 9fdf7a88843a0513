"""The study's judge: dates in any common format, numbers, names as whole words."""

from __future__ import annotations

import pytest

from benchmarks.query_languages.judge import dates_in, is_correct, normalise, numbers_in


@pytest.mark.parametrize(
    "answer",
    ["2021-06-22", "It changed on 2021-06-22.", "June 22, 2021", "22 June 2021", "2021-6-22"],
)
def test_dates_in_any_format_match(answer: str) -> None:
    assert is_correct(answer, "2021-06-22", "date")


@pytest.mark.parametrize("answer", ["2021-06-23", "June 2021", "", "unknown"])
def test_other_dates_do_not_match(answer: str) -> None:
    assert not is_correct(answer, "2021-06-22", "date")


def test_numbers_with_separators_decimals_and_words() -> None:
    assert is_correct("45,000", "45000", "number")
    assert is_correct("The salary rose by 45000.0 dollars", "45000", "number")
    assert is_correct("three times", "3", "number")
    assert is_correct("-2000", "-2000", "number")
    assert not is_correct("4500", "45000", "number")
    assert numbers_in("2 and 3") == {2.0, 3.0}


def test_names_match_as_whole_normalised_words() -> None:
    assert is_correct("She works at Brightwave Labs.", "Brightwave Labs", "name")
    assert is_correct("charlotte s web", "Charlotte's Web", "name")
    assert not is_correct("Romeo", "Rome", "name")
    assert not is_correct("", "Rome", "name")
    assert normalise("  LGBTQ-conference!! ") == "lgbtq conference"


def test_dates_in_ignores_impossible_dates() -> None:
    assert dates_in("2021-02-30 and 2021-02-28") == {"2021-02-28"}
