"""The study's judge: normalised exact / contains match, by answer type, no LLM.

* date: the gold ``YYYY-MM-DD`` equals a date found in the answer (ISO, or written out such
  as "June 22, 2021" / "22 June 2021", parsed with dateparser per candidate span);
* number: the gold integer equals a number in the answer ("45,000", "45000.0", "three");
* name: the normalised gold (case-folded, punctuation dropped, whitespace collapsed) is
  contained in the normalised answer as whole words.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Final

import dateparser

from benchmarks.query_languages.questions import AnswerType

ISO_DATE: Final = re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})")
MONTHS: Final = (
    "jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec|january|february|march|april|june|"
    "july|august|september|october|november|december"
)
WRITTEN_DATE: Final = re.compile(
    rf"\b(?:\d{{1,2}}(?:st|nd|rd|th)?\s+(?:{MONTHS})\.?,?\s+\d{{4}}"
    rf"|(?:{MONTHS})\.?\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\d{{4}})\b",
    re.IGNORECASE,
)
NUMBER: Final = re.compile(r"-?\d[\d,]*(?:\.\d+)?")
WORD_NUMBERS: Final = {
    w: i
    for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve".split()
    )
}


def normalise(text: str) -> str:
    """Case-folded words without punctuation, single-spaced."""
    return " ".join(re.sub(r"[^\w\s]", " ", text.casefold()).split())


def dates_in(text: str) -> set[str]:
    found: set[str] = set()
    for y, m, d in ISO_DATE.findall(text):
        try:
            found.add(date(int(y), int(m), int(d)).isoformat())
        except ValueError:
            continue
    for span in WRITTEN_DATE.findall(text):
        parsed = dateparser.parse(span, languages=["en"])
        if parsed is not None:
            found.add(parsed.date().isoformat())
    return found


def numbers_in(text: str) -> set[float]:
    found: set[float] = set()
    for token in NUMBER.findall(text):
        try:
            found.add(float(token.replace(",", "")))
        except ValueError:
            continue
    for word in normalise(text).split():
        if word in WORD_NUMBERS:
            found.add(float(WORD_NUMBERS[word]))
    return found


def is_correct(answer: str, gold: str, answer_type: AnswerType) -> bool:
    """True when ``answer`` states ``gold`` (see the module docstring)."""
    if not answer.strip():
        return False
    if answer_type == "date":
        return gold[:10] in dates_in(answer)
    if answer_type == "number":
        return float(gold) in numbers_in(answer)
    wanted = normalise(gold)
    return bool(wanted) and f" {wanted} " in f" {normalise(answer)} "
