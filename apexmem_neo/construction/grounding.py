"""Deterministic temporal grounding: time words -> ISO 8601 dates relative to a turn's anchor.

``ground_expression("two weeks ago", anchor)`` answers from explicit rules first (relative
days, weeks, months, years, weekdays, weekends, seasons, named months and years, explicit
dates) and from ``dateparser`` (English, relative to the anchor, preferring the past) second.
``ground_time`` combines the expression, the model's own ISO guess and the anchor:

1. the expression grounds (rules or dateparser): that date wins; a model date that disagrees
   is recorded as corrected;
2. the expression is missing or vague ("recently") and the model gave a plausible ISO date:
   the model's date is used (source ``model``);
3. neither: the anchor is used and the result says so (source ``anchor_default``).

A grounded period ("last month", "in 2019") yields its first day as ``start``, its last day
as ``end`` and its ``granularity``; a day yields midnight of that day.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from enum import StrEnum
from typing import Final

import dateparser
from dateutil.relativedelta import relativedelta

from apexmem_neo.ontology.types import TimeLike, normalize_time


class TimeSource(StrEnum):
    RULE = "rule"
    PARSER = "dateparser"
    MODEL = "model"
    ANCHOR = "anchor_default"


@dataclass(frozen=True)
class GroundedTime:
    """A grounded time: ``start`` (normalised ISO), optional ``end``, and how it was found."""

    start: str
    end: str | None
    granularity: str
    source: TimeSource
    expression: str | None = None
    corrected_model_value: str | None = None

    @property
    def is_default(self) -> bool:
        return self.source == TimeSource.ANCHOR


NUMBERS: Final[dict[str, int]] = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
    "a couple of": 2, "a couple": 2, "couple of": 2, "a few": 3, "few": 3, "several": 3,
}  # fmt: skip
WEEKDAYS: Final = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
MONTHS: Final = (
    "january", "february", "march", "april", "may", "june", "july", "august",
    "september", "october", "november", "december",
)  # fmt: skip
SEASONS: Final[dict[str, int]] = {"spring": 3, "summer": 6, "autumn": 9, "fall": 9, "winter": 12}
UNIT_PATTERN: Final = r"(day|week|month|year|decade)s?"
AMOUNT_PATTERN: Final = r"(\d+|a couple of|a couple|couple of|a few|few|several|an|a|" + (
    "one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
)
VAGUE: Final = re.compile(
    r"^(recently|lately|the other day|a while ago|some time ago|once|before|earlier|"
    r"in the past|back then|these days|nowadays|soon|later|someday|one day|ever|always)$"
)
DAY_WORDS: Final[dict[str, int]] = {
    "today": 0, "now": 0, "right now": 0, "tonight": 0, "currently": 0, "at the moment": 0,
    "this morning": 0, "this afternoon": 0, "this evening": 0, "earlier today": 0,
    "yesterday": -1, "last night": -1, "yesterday morning": -1, "yesterday evening": -1,
    "the day before yesterday": -2, "tomorrow": 1, "the day after tomorrow": 2,
    "tomorrow morning": 1, "tomorrow night": 1,
}  # fmt: skip


@dataclass(frozen=True)
class _Span:
    start: date
    end: date
    granularity: str


def _day(d: date) -> _Span:
    return _Span(d, d, "day")


def _month_span(year: int, month: int) -> _Span:
    first = date(year, month, 1)
    return _Span(first, first + relativedelta(months=1) - timedelta(days=1), "month")


def _year_span(year: int) -> _Span:
    return _Span(date(year, 1, 1), date(year, 12, 31), "year")


def _week_span(monday: date) -> _Span:
    return _Span(monday, monday + timedelta(days=6), "week")


def _amount(word: str) -> int:
    return int(word) if word.isdigit() else NUMBERS[word]


def _shift(anchor: date, amount: int, unit: str) -> _Span:
    if unit == "day":
        return _day(anchor + timedelta(days=amount))
    if unit == "week":
        return _day(anchor + timedelta(weeks=amount))
    if unit == "month":
        return _day(anchor + relativedelta(months=amount))
    years = amount * (10 if unit == "decade" else 1)
    return _day(anchor + relativedelta(years=years))


def _relative_period(which: str, unit: str, anchor: date) -> _Span:
    step = {"last": -1, "past": -1, "previous": -1, "this": 0, "next": 1, "coming": 1}[which]
    if unit == "week":
        monday = anchor - timedelta(days=anchor.weekday())
        return _week_span(monday + timedelta(weeks=step))
    if unit == "month":
        first = date(anchor.year, anchor.month, 1) + relativedelta(months=step)
        return _month_span(first.year, first.month)
    return _year_span(anchor.year + step)


def _weekend(which: str, anchor: date) -> _Span:
    monday = anchor - timedelta(days=anchor.weekday())
    if which in ("last", "past", "previous"):
        saturday = monday - timedelta(days=2)
    elif which in ("next", "coming"):
        saturday = monday + timedelta(days=12)
    elif which == "this" or anchor.weekday() >= 5:
        saturday = monday + timedelta(days=5)
    else:  # "the weekend" / "over the weekend" said on a weekday: the one just past
        saturday = monday - timedelta(days=2)
    return _Span(saturday, saturday + timedelta(days=1), "weekend")


def _weekday(which: str, name: str, anchor: date) -> _Span:
    target = WEEKDAYS.index(name)
    if which in ("next", "coming", "this coming"):
        ahead = (target - anchor.weekday()) % 7 or 7
        return _day(anchor + timedelta(days=ahead))
    if which == "this":
        monday = anchor - timedelta(days=anchor.weekday())
        return _day(monday + timedelta(days=target))
    back = (anchor.weekday() - target) % 7 or 7
    return _day(anchor - timedelta(days=back))


def _month_day(month_name: str, day: str, anchor: date) -> _Span:
    """A day and month without a year: the occurrence nearest to the anchor."""
    month = MONTHS.index(month_name) + 1
    options = [date(anchor.year + k, month, int(day)) for k in (-1, 0, 1)]
    return _day(min(options, key=lambda d: abs((d - anchor).days)))


def _named_month(which: str, name: str, anchor: date) -> _Span:
    month = MONTHS.index(name) + 1
    if which in ("next", "coming"):
        year = anchor.year if month > anchor.month else anchor.year + 1
    elif which == "last":
        year = anchor.year if month < anchor.month else anchor.year - 1
    elif which == "this":
        year = anchor.year
    else:  # plain "in May": the most recent May, this one included
        year = anchor.year if month <= anchor.month else anchor.year - 1
    return _month_span(year, month)


def _season(which: str, name: str, anchor: date) -> _Span:
    month = SEASONS[name]
    starts = [date(anchor.year + k, month, 1) for k in (-2, -1, 0, 1)]
    spans = [_Span(s, s + relativedelta(months=3) - timedelta(days=1), "season") for s in starts]
    if which in ("last", "past", "previous"):
        return [s for s in spans if s.end < anchor][-1]
    if which in ("next", "coming"):
        return next(s for s in spans if s.start > anchor)
    if which == "this":
        return next((s for s in spans if s.start <= anchor <= s.end), spans[2])
    return [s for s in spans if s.start <= anchor][-1]


Rule = tuple[re.Pattern[str], Callable[[re.Match[str], date], _Span]]

_WHICH = r"(last|past|previous|this|next|coming)"
_WEEKDAY = "(" + "|".join(WEEKDAYS) + ")"
_MONTH = "(" + "|".join(MONTHS) + ")"
_SEASON = "(" + "|".join(SEASONS) + ")"

RULES: Final[list[Rule]] = [
    (
        re.compile(rf"^{AMOUNT_PATTERN} {UNIT_PATTERN} (ago|back|before)$"),
        lambda m, a: _shift(a, -_amount(m[1]), m[2]),
    ),
    (
        re.compile(rf"^(in|within|after) {AMOUNT_PATTERN} {UNIT_PATTERN}( time)?$"),
        lambda m, a: _shift(a, _amount(m[2]), m[3]),
    ),
    (
        re.compile(rf"^{AMOUNT_PATTERN} {UNIT_PATTERN} (from now|later)$"),
        lambda m, a: _shift(a, _amount(m[1]), m[2]),
    ),
    (
        re.compile(r"^(earlier|later) this (week|month|year)$"),
        lambda m, a: _relative_period("this", m[2], a),
    ),
    (re.compile(rf"^{_WHICH} (week|month|year)$"), lambda m, a: _relative_period(m[1], m[2], a)),
    (re.compile(rf"^(?:over )?(?:the )?{_WHICH}? ?weekend$"), lambda m, a: _weekend(m[1] or "", a)),
    (
        re.compile(rf"^(?:on )?(?:the )?{_WHICH}? ?{_WEEKDAY}$"),
        lambda m, a: _weekday(m[1] or "", m[2], a),
    ),
    (
        re.compile(rf"^(?:in |during |back in )?(?:the )?{_WHICH}? ?{_SEASON}$"),
        lambda m, a: _season(m[1] or "", m[2], a),
    ),
    (
        re.compile(rf"^{_MONTH} (\d{{1,2}})(?:st|nd|rd|th)?$"),
        lambda m, a: _month_day(m[1], m[2], a),
    ),
    (
        re.compile(rf"^(?:the )?(\d{{1,2}})(?:st|nd|rd|th)? (?:of )?{_MONTH}$"),
        lambda m, a: _month_day(m[2], m[1], a),
    ),
    (
        re.compile(rf"^(?:in |during |back in )?{_MONTH},? (\d{{4}})$"),
        lambda m, a: _month_span(int(m[2]), MONTHS.index(m[1]) + 1),
    ),
    (
        re.compile(rf"^(?:in |during |back in )?{_WHICH}? ?{_MONTH}$"),
        lambda m, a: _named_month(m[1] or "", m[2], a),
    ),
    (
        re.compile(r"^(?:in |during |back in |since )?(?:the year )?((?:19|20)\d{2})$"),
        lambda m, a: _year_span(int(m[1])),
    ),
    (
        re.compile(r"^(\d{4})-(\d{2})-(\d{2})$"),
        lambda m, a: _day(date(int(m[1]), int(m[2]), int(m[3]))),
    ),
    (re.compile(r"^(\d{4})-(\d{2})$"), lambda m, a: _month_span(int(m[1]), int(m[2]))),
]


def _clean(expression: str) -> str:
    text = " ".join(expression.casefold().replace("\u2019", "'").split())
    text = re.sub(r"[.!?,;:]+$", "", text).strip()
    return re.sub(r"^(on|at|since|from|around|about|by|until) (?=\S)", "", text) if text else text


def _by_rules(text: str, anchor: date) -> _Span | None:
    if text in DAY_WORDS:
        return _day(anchor + timedelta(days=DAY_WORDS[text]))
    for pattern, build in RULES:
        match = pattern.match(text)
        if match:
            try:
                return build(match, anchor)
            except (ValueError, KeyError):
                return None
    return None


def _by_parser(text: str, anchor: datetime) -> _Span | None:
    if not re.search(r"[a-z0-9]", text):
        return None
    parsed = dateparser.parse(
        text,
        languages=["en"],
        settings={
            "RELATIVE_BASE": anchor,
            "PREFER_DATES_FROM": "past",
            "RETURN_AS_TIMEZONE_AWARE": False,
        },
    )
    return None if parsed is None else _day(parsed.date())


def ground_expression(expression: str, anchor: datetime) -> tuple[_Span, TimeSource] | None:
    """The span an expression denotes relative to ``anchor`` and which grounder found it."""
    text = _clean(expression)
    if not text or VAGUE.match(text):
        return None
    span = _by_rules(text, anchor.date())
    if span is not None:
        return span, TimeSource.RULE
    span = _by_parser(text, anchor)
    return None if span is None else (span, TimeSource.PARSER)


def _as_iso(day: date) -> str:
    return normalize_time(day)


def _model_date(value: str | None, anchor: datetime) -> str | None:
    """The model's ISO value if it parses and is plausible (1900 to anchor + 10 years)."""
    if not value:
        return None
    try:
        iso = normalize_time(value)
    except ValueError:
        return None
    upper = normalize_time(anchor + relativedelta(years=10))
    return iso if "1900-01-01T00:00:00" <= iso <= upper else None


def ground_time(expression: str | None, model_value: str | None, anchor: TimeLike) -> GroundedTime:
    """Ground a time: the expression by rules/dateparser, else the model's date, else anchor."""
    moment = datetime.fromisoformat(normalize_time(anchor))
    found = ground_expression(expression, moment) if expression else None
    model_iso = _model_date(model_value, moment)
    if found is not None:
        span, source = found
        start = _as_iso(span.start)
        corrected = model_iso if model_iso is not None and model_iso[:10] != start[:10] else None
        end = _as_iso(span.end) if span.end != span.start else None
        return GroundedTime(start, end, span.granularity, source, expression, corrected)
    if model_iso is not None:
        return GroundedTime(model_iso, None, "day", TimeSource.MODEL, expression)
    return GroundedTime(normalize_time(moment), None, "instant", TimeSource.ANCHOR, expression)


_FUTURE: Final = re.compile(
    r"\b(?:will|won't|shall|going to|gonna|about to|next|upcoming|coming up|tomorrow|soon|"
    r"later|plan|plans|planning|planned|hope to|hoping to|intend to|scheduled|from now|"
    r"someday|one day|in (?:a|an|\d+|a few|a couple of|two|three) (?:days?|weeks?|months?|"
    r"years?))\b|\w'll\b",
    re.IGNORECASE,
)


def speaks_of_future(text: str) -> bool:
    """Whether ``text`` speaks of something still to come ("I'll start next month")."""
    return bool(_FUTURE.search(text.replace("\u2019", "'")))


def not_in_future(grounded: GroundedTime, anchor: TimeLike, text: str) -> GroundedTime:
    """``grounded``, or the anchor when it lies after the anchor's day and ``text`` speaks of
    nothing to come: what a turn says in the present or past has not yet to happen, however
    the model dated it."""
    moment = normalize_time(anchor)
    if grounded.start[:10] <= moment[:10] or speaks_of_future(text):
        return grounded
    return GroundedTime(moment, None, "instant", TimeSource.ANCHOR, grounded.expression)


FINDER: Final = re.compile(
    r"\b(the day before yesterday|the day after tomorrow|yesterday|tomorrow|tonight|today|"
    r"last night|this morning|"
    rf"{AMOUNT_PATTERN} {UNIT_PATTERN} (?:ago|from now)|"
    rf"in {AMOUNT_PATTERN} {UNIT_PATTERN}|"
    rf"(?:last|this|next|past) (?:week|month|year|weekend|{'|'.join(WEEKDAYS)}|"
    rf"{'|'.join(MONTHS)}|{'|'.join(SEASONS)})|"
    r"(?:over )?the weekend|"
    rf"(?:in |back in )(?:(?:19|20)\d{{2}}|(?:{'|'.join(MONTHS)})(?:,? (?:19|20)\d{{2}})?))\b",
    re.IGNORECASE,
)


def find_expression(text: str) -> str | None:
    """The first time expression the rules know in ``text`` (a safety net for the model)."""
    match = FINDER.search(text)
    return match.group(0) if match else None
