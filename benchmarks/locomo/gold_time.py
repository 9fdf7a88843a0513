"""Reading times in LOCOMO gold answers and in the answers judged against them.

A gold that is only a time becomes one interval of days (``Span``): absolute dates in
LOCOMO's spellings ("16 February, 2023", "8April, 2022", "March.2024", "November 3rd,
2021"), phrases anchored on a date ("The week before 9 June 2023", "three weekends before 24
April 2023", "the first week of August 2023", "early March, 2024", "Around November 2021"),
and relative words resolved against the day the gold's evidence turn was said ("a few years
ago", "last Saturday") with the library's grounder (``ground_expression``). Each span has a
``margin``: the days outside it that vague words ("a few", "around") leave not certainly
wrong. ``answer_dates`` reads an answer's dates in any of these formats and says whether
time words were left unread, so an unread date never counts against the answer.
"""

from __future__ import annotations

import calendar
import difflib
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Final

from dateutil.relativedelta import relativedelta

from apexmem_neo.agent.timewords import spoken_span
from apexmem_neo.construction.grounding import (
    AMOUNT_PATTERN,
    MONTHS,
    NUMBERS,
    SEASONS,
    WEEKDAYS,
    TimeSource,
    ground_expression,
)

LONGEST_COARSE_ANSWER = 31  # days: a month or shorter may hold the gold's interval


@dataclass(frozen=True)
class Span:
    """A closed interval of days; ``margin`` is how many days outside it still are not
    certainly wrong (the slack of vague words such as "a few" or "around")."""

    start: date
    end: date
    margin: int = 0
    vague: bool = False

    @property
    def days(self) -> int:
        return (self.end - self.start).days + 1

    def holds(self, other: Span) -> bool:
        return self.start <= other.start and other.end <= self.end

    def far_from(self, other: Span) -> bool:
        """True when this span lies more than ``other.margin`` days outside ``other``."""
        return self.end < other.start - timedelta(
            days=other.margin
        ) or self.start > other.end + timedelta(days=other.margin)

    def spoken(self) -> str:
        """As people say it: "20 May 2023", "May 2023", "2019 to 2021", "around 2020"."""
        first, last = self.start, self.end
        if (first.month, first.day, last.month, last.day) == (1, 1, 12, 31):
            years = str(first.year) if first.year == last.year else f"{first.year} to {last.year}"
            return f"around {years}" if self.vague else years
        said = spoken_span(first.isoformat(), last.isoformat())
        return f"around {said}" if self.vague else said


def _span(start: date, end: date, margin: int = 0, vague: bool = False) -> Span:
    return Span(min(start, end), max(start, end), margin, vague)


def _day(d: date, margin: int = 0) -> Span:
    return Span(d, d, margin)


def _month(year: int, month: int) -> Span:
    return Span(date(year, month, 1), date(year, month, calendar.monthrange(year, month)[1]))


def _year(year: int) -> Span:
    return Span(date(year, 1, 1), date(year, 12, 31))


def _union(a: Span, b: Span, margin: int = 0, vague: bool = False) -> Span:
    return Span(min(a.start, b.start), max(a.end, b.end), margin, vague or a.vague or b.vague)


def _grounded(words: str, anchor: date, margin: int = 0) -> Span | None:
    """The span the library's grounder gives ``words`` said on ``anchor`` (rules only)."""
    found = ground_expression(words, datetime(anchor.year, anchor.month, anchor.day))
    if found is None or found[1] != TimeSource.RULE:
        return None
    span, _ = found
    return Span(span.start, span.end, margin)


_ABBREVIATIONS: Final = {m[:3]: m for m in MONTHS} | {"sept": "september"}
_MON = "(?:" + "|".join(MONTHS) + ")"
_SEASON = "(?:" + "|".join(SEASONS) + ")"
_WEEKDAY = "(?:" + "|".join(WEEKDAYS) + ")"
_D = r"\d{1,2}"
YEAR: Final = r"(?:19|20)\d{2}"
_DASH = r" ?(?:-|to|and|through) ?"
# Unique group names per alternative: a letter prefix says which one matched.
_BASES: Final = (
    ("drange", rf"(?P<a_d1>{_D}){_DASH}(?P<a_d2>{_D}) (?:of )?(?P<a_m>{_MON}) (?P<a_y>{YEAR})"),
    ("mrange", rf"(?P<b_m>{_MON}) (?P<b_d1>{_D}){_DASH}(?P<b_d2>{_D}) (?P<b_y>{YEAR})"),
    ("iso", rf"(?P<c_y>{YEAR})-(?P<c_m>\d{{1,2}})-(?P<c_d>{_D})"),
    ("dmy", rf"(?P<e_d>{_D}) (?:of )?(?P<e_m>{_MON}) (?P<e_y>{YEAR})"),
    ("mdy", rf"(?P<f_m>{_MON}) (?P<f_d>{_D}) (?P<f_y>{YEAR})"),
    ("season", rf"(?P<g_s>{_SEASON}) (?:of )?(?P<g_y>{YEAR})"),
    ("my", rf"(?P<h_m>{_MON}) (?:of )?(?P<h_y>{YEAR})"),
    ("isomonth", rf"(?P<i_y>{YEAR})-(?P<i_m>\d{{2}})(?!-\d)"),
    ("dmrange", rf"(?P<m_d1>{_D}){_DASH}(?P<m_d2>{_D}) (?:of )?(?P<m_m>{_MON})(?! \d)"),
    ("mdrange", rf"(?P<n_m>{_MON}) (?P<n_d1>{_D}){_DASH}(?P<n_d2>{_D})(?!\d| \d)"),
    ("dm", rf"(?P<j_d>{_D}) (?:of )?(?P<j_m>{_MON})(?! \d)"),
    ("md", rf"(?P<k_m>{_MON}) (?P<k_d>{_D})(?!\d| \d)"),
    ("year", rf"(?P<l_y>{YEAR})"),
)
YEARLESS: Final = ("dmrange", "mdrange", "dm", "md")
"""The bases that name days without their year."""
_BASE = "(?:" + "|".join(f"(?P<{name}>{pattern})" for name, pattern in _BASES) + ")"
_UNIT = r"(?:day|week|weekend|month|year)"
_MODIFIER = (
    rf"(?:the )?(?P<rel>week|weekend|day|month|year|{_WEEKDAY}) (?P<rel_dir>before|after|of)"
    rf"|(?P<amt>{AMOUNT_PATTERN}) (?P<amt_unit>{_UNIT})s? (?P<amt_dir>before|after|prior to)"
    rf"|(?:the )?(?P<ord>first|second|third|fourth|last) (?P<ord_unit>week|weekend) (?:of|in)"
    r"|(?P<part>early|mid|late|(?:the )?(?:end|beginning|start|middle) of)"
    r"|(?P<approx>around|about|approximately|roughly|circa|sometime in|some time in)"
)
PHRASE: Final = re.compile(rf"\b(?:(?:{_MODIFIER}) )?{_BASE}\b")
_AGO: Final = re.compile(
    rf"^(?:(?P<approx>around|about|approximately|roughly) )?(?P<amt>{AMOUNT_PATTERN}) "
    rf"(?P<amt_unit>{_UNIT})s? (?:ago|back|earlier)$"
)
_LEADING: Final = re.compile(r"^(?:(?:in|on|since|during|by|at|from|the|sometime|some time) )+")
_JOIN: Final = re.compile(r"^ ?(?:-|to|until|till|through|and) ?$")
_TIME_WORD: Final = re.compile(
    rf"\d|\b(?:{'|'.join(MONTHS)}|{'|'.join(_ABBREVIATIONS)}|{_WEEKDAY}|{_SEASON}|"
    r"days?|weeks?|weekends?|months?|years?|decades?|ago|before|after|earlier|later|last|"
    r"next|early|mid|late|around|since|until|yesterday|today|tomorrow|tonight|recently|"
    r"morning|evening|night)\b"
)


def clean_dates(text: str) -> str:
    """Lower case with the writing quirks of dates undone: ordinals ("13th"), glued words
    ("8April", "March.2024"), stray marks and commas, misspelt or short month names next to
    a number ("Febuary", "Sept")."""
    text = text.lower().replace("\u2019", "'").replace("`", " ").replace("\u2013", "-")
    text = re.sub(r"(\d)(?:st|nd|rd|th)\b", r"\1", text)
    text = re.sub(r"(\d)([a-z])", r"\1 \2", text)
    text = re.sub(r"([a-z])[.]?(\d)", r"\1 \2", text)
    text = re.sub(r"[,;:!?()\"]|\.(?!\d)", " ", text)
    text = re.sub(r"\s*-\s*", "-", text)
    words = text.split()
    return " ".join(_month_word(words, i) for i in range(len(words)))


def _month_word(words: list[str], i: int) -> str:
    word = words[i]
    beside_number = any(0 <= j < len(words) and words[j][:1].isdigit() for j in (i - 1, i + 1))
    if not beside_number or not word.isalpha() or word in MONTHS:
        return word
    if word in _ABBREVIATIONS:
        return _ABBREVIATIONS[word]
    close = difflib.get_close_matches(word, MONTHS, n=1, cutoff=0.8) if len(word) > 4 else []
    return close[0] if close else word


def _base_span(m: re.Match[str], years: tuple[int, ...]) -> list[Span]:
    """The spans of a matched base date; a day without a year takes each of ``years``."""
    g = m.groupdict()

    def month(key: str) -> int:
        return MONTHS.index(g[key]) + 1

    kind = next(name for name, _ in _BASES if g.get(name) is not None)
    builders: dict[str, Callable[[], list[Span]]] = {
        "drange": lambda: [_span(date(int(g["a_y"]), month("a_m"), int(g["a_d1"])),
                                 date(int(g["a_y"]), month("a_m"), int(g["a_d2"])))],
        "mrange": lambda: [_span(date(int(g["b_y"]), month("b_m"), int(g["b_d1"])),
                                 date(int(g["b_y"]), month("b_m"), int(g["b_d2"])))],
        "iso": lambda: [_day(date(int(g["c_y"]), int(g["c_m"]), int(g["c_d"])))],
        "dmy": lambda: [_day(date(int(g["e_y"]), month("e_m"), int(g["e_d"])))],
        "mdy": lambda: [_day(date(int(g["f_y"]), month("f_m"), int(g["f_d"])))],
        "season": lambda: [_season(g["g_s"], int(g["g_y"]))],
        "my": lambda: [_month(int(g["h_y"]), month("h_m"))],
        "isomonth": lambda: [_month(int(g["i_y"]), int(g["i_m"]))],
        "dmrange": lambda: [_span(date(y, month("m_m"), int(g["m_d1"])),
                                  date(y, month("m_m"), int(g["m_d2"]))) for y in years],
        "mdrange": lambda: [_span(date(y, month("n_m"), int(g["n_d1"])),
                                  date(y, month("n_m"), int(g["n_d2"]))) for y in years],
        "dm": lambda: [_day(date(y, month("j_m"), int(g["j_d"]))) for y in years],
        "md": lambda: [_day(date(y, month("k_m"), int(g["k_d"]))) for y in years],
        "year": lambda: [_year(int(g["l_y"]))],
    }  # fmt: skip
    try:
        return builders[kind]()
    except ValueError:  # 31 February and the like
        return []


def _season(name: str, year: int) -> Span:
    first = date(year, SEASONS[name], 1)
    return Span(first, first + relativedelta(months=3) - timedelta(days=1))


def _amounts(word: str) -> tuple[int, int, bool]:
    """(least, most, vague) of an amount: "two" -> (2, 2), "a few" -> (2, 4, vague)."""
    if word.isdigit():
        return int(word), int(word), False
    if "couple" in word:
        return 2, 3, True
    if "few" in word:
        return 2, 4, True
    if word == "several":
        return 3, 7, True
    return NUMBERS[word], NUMBERS[word], False


_UNIT_MARGIN: Final = {"day": 1, "weekend": 1, "week": 3, "month": 15, "year": 183}


def _shifted(base: Span, amount: str, unit: str, sign: int) -> Span:
    """``amount`` ``unit``s before (sign -1) or after (+1) ``base``: the days ``amount`` names
    at the granularity of the unit (a year back is that calendar year, a week back the days
    around it and their calendar week), with the unit's slack as margin."""
    low, high, vague = _amounts(amount)
    anchor = base.start if sign < 0 else base.end
    spans = [_step(anchor, n * sign, unit) for n in (low, high)]
    margin = _UNIT_MARGIN[unit] * (2 if vague else 1)
    return _union(spans[0], spans[1], margin, vague)


def _step(anchor: date, n: int, unit: str) -> Span:
    if unit == "weekend":  # the n-th weekend before (n < 0) or after the anchor
        first = _weekend_before(anchor) if n < 0 else _weekend_after(anchor)
        shift = timedelta(weeks=n + 1 if n < 0 else n - 1)
        return Span(first.start + shift, first.end + shift)
    if unit == "day":
        return _day(anchor + timedelta(days=n))
    if unit == "week":
        d = anchor + timedelta(weeks=n)
        monday = d - timedelta(days=d.weekday())
        return _span(
            min(monday, d - timedelta(days=3)),
            max(monday + timedelta(days=6), d + timedelta(days=3)),
        )
    d = anchor + relativedelta(months=n) if unit == "month" else anchor + relativedelta(years=n)
    return _month(d.year, d.month) if unit == "month" else _year(d.year)


def _weekend_before(d: date) -> Span:
    monday = d - timedelta(days=d.weekday())
    return Span(monday - timedelta(days=2), monday - timedelta(days=1))


def _weekend_after(d: date) -> Span:
    saturday = d + timedelta(days=(5 - d.weekday()) % 7 or 7)
    return Span(saturday, saturday + timedelta(days=1))


def _weekend_of(d: date) -> Span:
    if d.weekday() >= 5:
        saturday = d - timedelta(days=d.weekday() - 5)
        return Span(saturday, saturday + timedelta(days=1))
    following = _weekend_after(d)
    return Span(d, following.end) if d.weekday() == 4 else following


def _relative(word: str, direction: str, base: Span) -> Span | None:
    """The span of "the <word> before|after|of <base>": the grounder's "last/next/this
    <word>" said on the base day, widened where people mean either ("the week before" a
    weekday = the calendar week before or the seven days before; before a weekend day, the
    seven days only)."""
    d = base.end if direction == "after" else base.start
    if direction == "of":
        if base.days > 1 or word in ("day", "month", "year"):  # "the week of 1-7 May"
            return base
        if word == "weekend":
            return Span(_weekend_of(d).start, _weekend_of(d).end, 1)
        return _grounded(f"this {word}", d, margin=1)
    sign = -1 if direction == "before" else 1
    if word == "day":
        return _day(d + timedelta(days=sign))
    if word == "weekend":
        span = _weekend_before(d) if sign < 0 else _weekend_after(d)
        return Span(span.start, span.end, 1)
    which = "last" if sign < 0 else "next"
    grounded = _grounded(f"{which} {word}", d, margin=0 if word in WEEKDAYS else 1)
    if word == "week" and grounded is not None:
        seven = _span(d + timedelta(days=sign), d + timedelta(days=7 * sign), margin=2)
        # on a weekend the calendar week before lies over a week away: the seven days only
        return seven if d.weekday() >= 5 else _union(grounded, seven, margin=2)
    return grounded


_ORDINALS: Final = {"first": 0, "second": 1, "third": 2, "fourth": 3}


def _ordinal(which: str, unit: str, base: Span) -> Span | None:
    """ "the first week of <month>": days 1-7 and the calendar week holding the 1st; "the
    first weekend of": its first Saturday and Sunday; "last" counts from the month's end."""
    if base.days < 28:
        return None
    if unit == "weekend":
        if which == "last":
            last = _weekend_before(base.end + timedelta(days=1))
            return Span(last.start, last.end, 1)
        first = _weekend_after(base.start - timedelta(days=1))
        shift = timedelta(weeks=_ORDINALS[which])
        return Span(first.start + shift, first.end + shift, 1)
    if which == "last":
        return Span(base.end - timedelta(days=6), base.end, 1)
    start = base.start + timedelta(weeks=_ORDINALS[which])
    monday = start - timedelta(days=start.weekday())
    return Span(min(start, monday), start + timedelta(days=6), 1)


def _part(word: str, base: Span) -> Span:
    """ "early|mid|late <month or year>": its first, middle or last third, vague."""
    third = base.days // 3
    if word == "early" or "beginning" in word or "start" in word:
        start, end = base.start, base.start + timedelta(days=third - 1)
    elif word == "mid" or "middle" in word:
        start, end = base.start + timedelta(days=third), base.end - timedelta(days=third)
    else:
        start, end = base.end - timedelta(days=third - 1), base.end
    return Span(start, end, margin=max(3, third // 3), vague=True)


def _approx(base: Span) -> Span:
    margin = 3 if base.days <= 7 else 15 if base.days <= 31 else 183
    return Span(base.start, base.end, margin, vague=True)


def _phrase_spans(m: re.Match[str], years: tuple[int, ...]) -> list[Span]:
    """The spans a matched phrase (its modifier applied to its base date) denotes."""
    g = m.groupdict()
    out: list[Span] = []
    for base in _base_span(m, years):
        span: Span | None = base
        if g["rel"]:
            span = _relative(g["rel"], g["rel_dir"], base)
        elif g["amt"]:
            sign = -1 if g["amt_dir"] in ("before", "prior to") else 1
            span = _shifted(base, g["amt"], g["amt_unit"], sign)
        elif g["ord"]:
            span = _ordinal(g["ord"], g["ord_unit"], base)
        elif g["part"]:
            span = _part(g["part"], base)
        elif g["approx"]:
            span = _approx(base)
        if span is not None:
            out.append(span)
    return out


def resolve_gold_time(gold: str, said_on: str | None = None) -> Span | None:
    """The interval a gold that is only a time denotes: absolute ("11 April 2023", "2022"), a
    phrase anchored on a date ("The week before 9 June 2023"), or relative words resolved
    against ``said_on``, the day its evidence turn was said ("a few years ago"); None when
    the gold is something else or its words need a day it was not given."""
    text = clean_dates(gold)
    anchor = date.fromisoformat(said_on[:10]) if said_on else None
    for candidate in dict.fromkeys((text, _LEADING.sub("", text))):
        span = _whole_phrase(candidate, anchor)
        if span is not None:
            return span
    return None


def _whole_phrase(text: str, anchor: date | None) -> Span | None:
    m = PHRASE.fullmatch(text)
    if m is not None:
        years: tuple[int, ...] = (anchor.year,) if anchor else ()
        if anchor is not None and any(m[k] for k in YEARLESS):  # a day without its year
            years = tuple(_nearest_year(s, anchor) for s in _base_span(m, years))
        spans = _phrase_spans(m, years)
        return spans[0] if spans else None
    if anchor is None:
        return None
    ago = _AGO.match(text)
    if ago is not None:
        span = _shifted(_day(anchor), ago["amt"], ago["amt_unit"], -1)
        return _approx(span) if ago["approx"] else span
    return _grounded(text, anchor, margin=1)


def _nearest_year(span: Span, anchor: date) -> int:
    """The year of a day given without one: the occurrence nearest to ``anchor``."""
    options = []
    for k in (-1, 0, 1):
        try:
            options.append(span.start.replace(year=anchor.year + k))
        except ValueError:  # 29 February
            continue
    return min(options, key=lambda d: abs((d - anchor).days)).year


@dataclass(frozen=True)
class AnswerDates:
    """The dates an answer names, and whether time words are left that were not read."""

    spans: tuple[Span, ...]
    unread: bool


def answer_dates(answer: str, years: tuple[int, ...] = ()) -> AnswerDates:
    """Every date the answer names in a format read here; a day without a year takes each
    of ``years`` (the gold's). Two dates joined by "to", "-" or "and" are one interval."""
    text = clean_dates(answer)
    matches = list(PHRASE.finditer(text))
    spans: list[Span] = []
    rest, last_end = [], 0
    for i, m in enumerate(matches):
        found = _phrase_spans(m, years)
        between = text[matches[i - 1].end() : m.start()] if i else ""
        if i and spans and found and _JOIN.match(between) and _joinable(spans[-1], found[0]):
            spans[-1] = _span(spans[-1].start, found[0].end)
        else:
            spans += found
            rest.append(text[last_end : m.start()])
        last_end = m.end()
    rest.append(text[last_end:])
    leftover = re.sub(r"\b(?:between|from)\b", " ", " ".join(rest))
    return AnswerDates(tuple(spans), bool(_TIME_WORD.search(leftover)))


def _joinable(first: Span, second: Span) -> bool:
    return first.start <= second.end and (second.end - first.start).days <= 366


def date_verdict(gold: Span, answer: AnswerDates) -> tuple[bool | None, str]:
    """CORRECT, WRONG or undecided (None) for a gold interval and an answer's dates. A single
    day inside a vague span of months or years ("8 February 2020" for "a few years ago") is
    a precision the gold never gave: the LLM decides."""
    for span in answer.spans:
        if gold.vague and gold.days > LONGEST_COARSE_ANSWER and span.days == 1:
            continue
        if gold.holds(span):
            return True, f"the answer's {span.spoken()} lies in the gold's {gold.spoken()}"
        if span.holds(gold) and span.days <= LONGEST_COARSE_ANSWER:
            return True, f"the answer's {span.spoken()} holds the gold's {gold.spoken()}"
    if answer.spans and not answer.unread and all(s.far_from(gold) for s in answer.spans):
        said = ", ".join(s.spoken() for s in answer.spans)
        return False, f"the answer's {said} lies outside the gold's {gold.spoken()}"
    return None, ""
