"""A deterministic pre-judge for LOCOMO answers: it reads dates, numbers, lists and names, so
the LLM judge is asked only what rules cannot decide, and sees the gold's time words resolved.

Hand grading showed the LLM judge marking right answers WRONG when the gold said a time in
words ("The week before 9 June 2023", "a few years ago") and the answer gave the date, when
the answer wrote "2" for "two", and when it gave a shorter form of a name. The gold's time
words are resolved against the date of the gold's evidence turn (``said_on``) with the
library's grounder (``apexmem_neo.construction.grounding``); absolute dates and the phrases
LOCOMO's golds use ("the <weekday>/week/weekend before|after|of <date>", "<n> <units>
before <date>", "the first week of <month>", "early <month>", "around <date>") are read here.

Verdict rules, in order (``prejudge``):

1. **Dates.** When the whole gold is a time, it becomes one interval (start, end) with a
   slack ``margin`` in days. The answer's dates are read in any format ("11 April 2023",
   "2023-04-11", "April 11th, 2023", "April 2023", "2023", "spring 2023", "10-16 April
   2023", "10 April to 16 April 2023", "the week of 10 April 2023", and the gold phrases
   above). CORRECT when an answer date lies inside the gold interval (a day inside "the week
   before X", a year inside "a few years before 2023" = 2019-2021, a full date inside "in
   2022"), or holds the whole gold interval and spans at most 31 days (a month for a day of
   that month, a week for a day in it). WRONG when every answer date lies more than
   ``margin`` days outside the interval and the answer has no other time words left unread
   (a different year; a different day), and when its only dates are the time the question
   itself names ("June 2023" for "when did she go camping in June?"). Anything else (a year
   for a day, a partly overlapping month, a single day for a vague span of years such as "a
   few years ago", a date written in a way not read here) is left to the LLM: an unread
   date never makes WRONG.
2. **Yes or no.** When the gold is only yes or no, a hedge allowed ("Presumably not",
   "Likely yes"): CORRECT when the answer opens with the same word, WRONG with the other.
3. **Numbers.** When the gold is a number with at most a unit ("two", "5 years"), or a
   sentence that restates the question around one ("They have been married for 5 years."
   for "How long have they been married?"): CORRECT
   when the answer gives that number in digits or words, with the gold's unit or none;
   WRONG when it gives only other numbers and nothing beyond them, their units and the
   question's words ("3" for "two").
4. **Lists.** When the gold lists short items ("Oslo and Bergen", "a, b, and c"):
   CORRECT when the answer holds every item (each item's content words, two thirds and at
   least two of them, or its letters when it has four or more: LOCOMO glues words); WRONG
   when the items are short words joined by "and" (or three or more) and the answer names
   some, nothing of another, and nothing beyond the items and the question's words ("Oslo"
   alone). Such a list is never CORRECT by the words rule (two of three items are not the
   answer); a list of phrases ("She felt calm and grateful") falls through to it.
5. **Names.** When the gold is a capitalised name or title: CORRECT when the answer writes
   a leading part of it of at least two words and half its words ("Silent Rivers" for
   "Silent Rivers of the Northern Sky"; never "Silver" for "Silver Fox").
6. **Words.** CORRECT when the answer holds every number of the gold and all, or two thirds
   and at least two, of its content words (number words read as digits); not for lists.
   Also CORRECT when it holds every number and every content word of the gold that the
   question does not already say ("coding" for "Coding assignment" asked as "What kind of
   assignment ...?"), unless the answer negates and the gold does not.

A rule that cannot decide passes; the LLM then sees ``gold_seen``: the gold with the interval
its time words mean beside it ("last Saturday (= 20 May 2023)").
"""

from __future__ import annotations

import calendar
import re
import string
from dataclasses import dataclass
from datetime import date
from typing import Final

import Stemmer

from apexmem_neo.agent.timewords import said_times, with_said_dates
from apexmem_neo.construction.grounding import MONTHS
from benchmarks.locomo.gold_time import (
    YEAR,
    AnswerDates,
    Span,
    answer_dates,
    clean_dates,
    date_verdict,
    resolve_gold_time,
)

_STEMMER = Stemmer.Stemmer("porter")
_ARTICLES = re.compile(r"\b(a|an|the|and)\b")
_FUNCTION_WORDS = frozenset(
    "by of to in on at for from with is are was were be been it its he she they them his her "
    "their we our you your i my me that this these those as or but so do did does".split()
)
# Words that add nothing to a bare number, list or date answer ("about 3", "she has 2").
_FILLER = frozenset(
    "has have had will would can could about around approximately roughly just only also "
    "there then than times time yes".split()
)
_GLUE_WORDS = _FUNCTION_WORDS | _FILLER | {"a", "an", "the", "and"}
MOST_OF_GOLD = 2 / 3
Decision = tuple[bool | None, str]  # a rule's verdict (None: the LLM decides) and why


# -- text --------------------------------------------------------------------------------


def normalize_answer(text: str) -> str:
    """LOCOMO's (SQuAD's) normalisation: lower case, no punctuation or articles, one space."""
    text = text.replace(",", "").lower()
    text = "".join(ch for ch in text if ch not in set(string.punctuation))
    return " ".join(_ARTICLES.sub(" ", text).split())


_SMALL = ("zero one two three four five six seven eight nine ten eleven twelve thirteen "
          "fourteen fifteen sixteen seventeen eighteen nineteen").split()  # fmt: skip
_TENS = "twenty thirty forty fifty sixty seventy eighty ninety".split()
NUMBER_WORDS: Final[dict[str, int]] = {
    **{w: i for i, w in enumerate(_SMALL)},
    **{w: 20 + 10 * i for i, w in enumerate(_TENS)},
    "once": 1,
    "twice": 2,
}
_COMPOUND = re.compile(rf"\b({'|'.join(_TENS)})[- ]({'|'.join(_SMALL[1:10])})\b")
_NUMBER_WORD = re.compile(rf"\b({'|'.join(NUMBER_WORDS)})\b")


def digits_for_words(text: str) -> str:
    """``text`` (lower-cased) with number words as digits: "twenty-one two" -> "21 2"."""
    text = _COMPOUND.sub(lambda m: str(NUMBER_WORDS[m[1]] + NUMBER_WORDS[m[2]]), text.lower())
    return _NUMBER_WORD.sub(lambda m: str(NUMBER_WORDS[m[1]]), text)


def content_stems(text: str) -> set[str]:
    """Porter stems of the normalised text's words, number words as digits, function words
    left out."""
    words = normalize_answer(digits_for_words(text)).split()
    return {_STEMMER.stemWord(w) for w in words if w not in _FUNCTION_WORDS}


_NUMBER = re.compile(r"\d+")


def holds_most_gold_words(answer: str, gold: str) -> bool:
    """True when the answer holds every number of the gold and, of its content words, all of
    them or at least two thirds and at least two: "we took second place at the city open"
    for "Taking second place at the city chess open". A number must match exactly, so "17
    February 2023" never passes for "16 February, 2023"; "2 kids" passes for "two kids"."""
    if not _gives_gold_numbers(answer, gold):
        return False
    wanted = content_stems(gold)
    return bool(wanted) and _mostly_found(wanted, content_stems(answer))


def _gives_gold_numbers(answer: str, gold: str) -> bool:
    """Whether every number of the gold (number words read as digits) is in the answer."""
    wanted = set(_NUMBER.findall(digits_for_words(gold)))
    return wanted <= set(_NUMBER.findall(digits_for_words(answer)))


_NEGATION: Final = re.compile(r"\b(?:not|no|never|none|\w+n['\u2019]t)\b", re.IGNORECASE)


def holds_gold_beyond_question(question: str, answer: str, gold: str) -> bool:
    """True when the answer holds every number of the gold and every content word of the
    gold that the question does not already say: "coding" for "Coding assignment" asked as
    "What kind of assignment ...". Never when the answer negates and the gold does not."""
    if _NEGATION.search(answer) and not _NEGATION.search(gold):
        return False
    if not _gives_gold_numbers(answer, gold):
        return False
    wanted = content_stems(gold) - content_stems(question) - _FILLER_STEMS
    return bool(wanted) and wanted <= content_stems(answer)


def _mostly_found(wanted: set[str], found_in: set[str]) -> bool:
    found = wanted & found_in
    return found == wanted or (len(found) >= 2 and len(found) >= MOST_OF_GOLD * len(wanted))


# -- numbers, lists and names -------------------------------------------------------------

_TOKENS: Final = re.compile(r"\d+(?:\.\d+)?|[a-z]+|[^\sa-z\d]")
_APPROX_WORDS: Final = frozenset("about around approximately roughly over nearly almost".split())
TIME_UNITS: Final = frozenset("second minute hour day week weekend month year decade time".split())


def _stem(word: str) -> str:
    return str(_STEMMER.stemWord(word))


def numbers_in(text: str) -> list[tuple[str, str | None]]:
    """Each number of ``text`` (digits, number words as digits) with the stem of the word
    after it (None at the end of a clause): "two weeks." -> [("2", "week")]."""
    tokens = _TOKENS.findall(digits_for_words(re.sub(r"(\d),(\d{3})", r"\1\2", text)))
    out = []
    for i, token in enumerate(tokens):
        if token[0].isdigit():
            nxt = tokens[i + 1] if i + 1 < len(tokens) else ""
            out.append((token, _stem(nxt) if nxt.isalpha() else None))
    return out


def gold_number(gold: str) -> tuple[str, str | None] | None:
    """(number, unit stem or None) of a gold that is only a number and a unit ("two",
    "5 years", "about three weeks"); None otherwise."""
    tokens = [t for t in _TOKENS.findall(digits_for_words(gold.strip().rstrip("."))) if t]
    tokens = [t for t in tokens if t not in _APPROX_WORDS]
    if not tokens or not tokens[0][0].isdigit() or len(tokens) > 2:
        return None
    if re.fullmatch(YEAR, tokens[0]) or (len(tokens) == 2 and not tokens[1].isalpha()):
        return None
    return tokens[0], _stem(tokens[1]) if len(tokens) == 2 else None


def restated_number(question: str, gold: str) -> tuple[str, str | None] | None:
    """(number, unit stem or None) of a gold sentence whose words beyond the question's are
    only a number and a unit ("Mel has been married for 5 years." for "How long has Mel been
    married?"); None otherwise."""
    asked = content_stems(question)
    tokens = _TOKENS.findall(digits_for_words(gold.lower()))
    kept = [
        t
        for t in tokens
        if t[0].isdigit() or (t.isalpha() and t not in _GLUE_WORDS and _stem(t) not in asked)
    ]
    return gold_number(" ".join(kept)) if len(kept) < len(tokens) else None


def number_verdict(question: str, gold: tuple[str, str | None], answer: str) -> Decision:
    """CORRECT when the answer gives the gold's number with its unit or none; WRONG when it
    gives only other numbers (or other units) and no other words; else undecided."""
    value, unit = gold
    found = numbers_in(answer)
    for number, after in found:
        if number == value and (unit is None or after is None or after == unit):
            return True, f"the answer gives the gold's number {value}"
    allowed = {_stem(w) for w in TIME_UNITS} | {unit or ""} | {n for n, _ in found}
    if found and not _extra_words(answer, question, allowed):
        said = ", ".join(f"{n} {after or ''}".strip() for n, after in found)
        return False, f"the answer gives {said}, not {value} {unit or ''}".strip()
    return None, ""


_FILLER_STEMS: Final = frozenset(_stem(w) for w in _FILLER)


def _extra_words(answer: str, question: str, allowed: set[str]) -> set[str]:
    """The answer's content stems beyond the ``allowed`` stems, the question's and fillers."""
    return content_stems(answer) - content_stems(question) - allowed - _FILLER_STEMS


_LIST_SPLIT: Final = re.compile(r"\s*,\s*(?:and\s+|&\s*)?|\s+and\s+|\s*&\s*")
LIST_ITEM_WORDS: Final = 4
LIST_WORD_ITEM_WORDS: Final = 3
# An item is found in the answer's letters only when it has this many: "c" (from "C++") is
# inside "javascript", "playingchess" is a glued "playing chess".
GLUED_ITEM_LETTERS: Final = 4


@dataclass(frozen=True)
class GoldList:
    """The items of a list gold; ``exclusive`` when they are short words without function
    words, joined by "and" or three or more ("Oslo and Bergen"): only then may an answer
    naming some of them be WRONG, and the words rule not stand in for the list rule."""

    items: list[str]
    exclusive: bool


def gold_items(gold: str) -> GoldList | None:
    """The items of a gold that is a list of short items; None for anything else (a
    sentence, one item, ';' alternatives)."""
    text = gold.strip().rstrip(".")
    if ";" in text:
        return None
    items = [i for i in _LIST_SPLIT.split(text) if i.strip()]
    if len(items) < 2 or any(len(i.split()) > LIST_ITEM_WORDS for i in items):
        return None
    wordy = any(
        len(i.split()) > LIST_WORD_ITEM_WORDS or set(i.lower().split()) & _FUNCTION_WORDS
        for i in items
    )
    joined = bool(re.search(r"\band\b|&", text)) or len(items) >= 3
    return GoldList(items, joined and not wordy)


def _compact(text: str) -> str:
    return normalize_answer(text).replace(" ", "")


def list_verdict(question: str, gold: GoldList, answer: str) -> Decision:
    """CORRECT when every item is in the answer (its words, or its letters with the spaces
    left out: LOCOMO glues words, "playingchess"); WRONG when an exclusive list's answer
    names some items, nothing of another, and no other words; else undecided."""
    said, glued = content_stems(answer), _compact(answer)
    items = [(content_stems(i), _compact(i)) for i in gold.items]
    items = [(stems, letters) for stems, letters in items if stems]
    found = [
        _mostly_found(stems, said) or (len(letters) >= GLUED_ITEM_LETTERS and letters in glued)
        for stems, letters in items
    ]
    if len(items) >= 2 and all(found):
        return True, "the answer holds every item of the gold"
    missing = [s for (s, _), f in zip(items, found, strict=True) if not f and not s & said]
    allowed = set().union(*(stems for stems, _ in items)) if items else set()
    if gold.exclusive and any(found) and missing and not _extra_words(answer, question, allowed):
        return False, f"the answer names {sum(found)} of the gold's {len(items)} items"
    return None, ""


_HEDGES: Final = frozenset(
    "presumably probably likely possibly apparently maybe perhaps most".split()
)
_POLARITY: Final = {"yes": True, "no": False, "not": False}


def gold_polarity(gold: str) -> bool | None:
    """True for a gold that is only yes, False for only no, a hedge allowed ("Presumably
    not", "Likely yes"); None for anything else."""
    words = [w for w in normalize_answer(gold).split() if w not in _HEDGES]
    return _POLARITY.get(words[0]) if len(words) == 1 else None


def polarity_verdict(gold: bool, answer: str) -> Decision:
    """CORRECT when the answer opens with the gold's yes or no, WRONG with the other one;
    else undecided ("Not mentioned" is not a no)."""
    first = normalize_answer(answer).split()[:1]
    said = {"yes": True, "no": False}.get(first[0]) if first else None
    if said is None:
        return None, ""
    word = "yes" if gold else "no"
    return said == gold, f"the answer says {'yes' if said else 'no'}, the gold {word}"


_NAME_WORD: Final = re.compile(r"[A-Z][\w'\u2019-]*")
_NAME_GLUE: Final = frozenset({"of", "the", "de", "la", "van", "von", "and", "a"})
SHORT_NAME_WORDS: Final = 2


def gold_name(gold: str) -> list[str] | None:
    """The words of a gold that is a capitalised name or title of two to eight words
    ("Maple Hollow Park", "Silent Rivers of the Northern Sky"); None otherwise."""
    words = gold.strip().rstrip(".").replace('"', " ").split()
    if "," in gold or not 2 <= len(words) <= 8:
        return None
    content = [w for w in words if w.lower() not in _NAME_GLUE]
    if len(content) < 2 or not all(_NAME_WORD.fullmatch(w) for w in content):
        return None
    return words


def names_shorter_name(name: list[str], answer: str) -> bool:
    """True when the answer writes a leading part of the name, in capitals, of at least two
    of its words and half of them ("Silent Rivers" for "Silent Rivers of the Northern
    Sky"); never one word ("Silver" for "Silver Fox"), nor a part from its middle."""
    whole = _compact(" ".join(name))
    wanted = sum(1 for w in name if w.lower() not in _NAME_GLUE)
    run: list[str] = []
    for word in [*re.findall(r"[\w'\u2019-]+", answer), ""]:
        if word and (_NAME_WORD.fullmatch(word) or (run and word.lower() in _NAME_GLUE)):
            run.append(word)
            continue
        named = sum(1 for w in run if w.lower() not in _NAME_GLUE)
        if (
            named >= SHORT_NAME_WORDS
            and 2 * named >= wanted
            and whole.startswith(_compact(" ".join(run)))
        ):
            return True
        run = []
    return False


# -- the pre-judge -----------------------------------------------------------------------


@dataclass(frozen=True)
class PreVerdict:
    """The rules' verdict (None: undecided), why, and the gold as the LLM is to see it."""

    correct: bool | None
    reason: str
    gold_seen: str


def gold_for_llm(gold: str, said_on: str | None) -> str:
    """The gold with what its time words mean beside it: "The week before 9 June 2023
    (= 29 May 2023 to 8 June 2023)"; in a longer gold, each relative time word resolved
    against ``said_on`` ("got it a year ago (20 May 2022)"); number words get their digits."""
    span = resolve_gold_time(gold, said_on)
    if span is not None:
        spoken = span.spoken()
        return gold if clean_dates(spoken) == clean_dates(gold) else f"{gold} (= {spoken})"
    if said_on:
        gold = with_said_dates(gold, said_times(gold, said_on))
    digits = digits_for_words(gold)
    if gold_number(gold) is not None and digits != gold.lower():
        return f"{gold} (= {digits})"
    return gold


def prejudge(question: str, gold: str, answer: str, said_on: str | None = None) -> PreVerdict:
    """The rules of the module docstring, in order; the first that decides wins."""
    span = resolve_gold_time(gold, said_on)
    decided = (
        _date_rule(span, answer, question)
        if span is not None
        else _shape_rules(question, gold, answer)
    )
    correct, why = decided or _name_and_words_rules(question, gold, answer)
    return PreVerdict(correct, why, gold_for_llm(gold, said_on))


def _date_rule(span: Span, answer: str, question: str = "") -> Decision | None:
    """Rule 1; once the answer's dates were read, the words rule cannot overrule them."""
    years = tuple(range(span.start.year, span.end.year + 1))
    dates = answer_dates(answer, years)
    if _only_repeats_question(span, dates, _times_asked(question, years)):
        return False, "the answer only repeats the time the question names"
    decided = date_verdict(span, dates)
    return decided if decided[0] is not None or dates.spans else None


def _times_asked(question: str, years: tuple[int, ...]) -> AnswerDates:
    """The times a question names: its dates, and a month named without a year taken in each
    of ``years`` ("camping in June" in a 2023 gold: June 2023)."""
    named = answer_dates(question, years).spans
    months = [
        Span(date(y, i + 1, 1), date(y, i + 1, calendar.monthrange(y, i + 1)[1]))
        for i, month in enumerate(MONTHS)
        if re.search(rf"\b{month}\b", question, re.IGNORECASE)
        for y in years
    ]
    return AnswerDates((*named, *months), False)


def _only_repeats_question(gold: Span, answer: AnswerDates, asked: AnswerDates) -> bool:
    """Whether each of the answer's dates is a time the question itself names ("June 2023"
    for "When did she go camping in June?") and none lies inside the gold's time."""
    return bool(answer.spans and asked.spans) and all(
        not gold.holds(a) and any(q.holds(a) for q in asked.spans) for a in answer.spans
    )


def _shape_rules(question: str, gold: str, answer: str) -> Decision | None:
    """Rules 2 to 4: a yes-or-no gold, a number gold, a list gold (an exclusive list stops
    here)."""
    polarity = gold_polarity(gold)
    if polarity is not None:
        decided = polarity_verdict(polarity, answer)
        if decided[0] is not None:
            return decided
    number = gold_number(gold) or restated_number(question, gold)
    if number is not None:
        decided = number_verdict(question, number, answer)
        if decided[0] is not None:
            return decided
    items = gold_items(gold)
    if items is not None:
        decided = list_verdict(question, items, answer)
        if decided[0] is not None or items.exclusive:  # two of three items are not most words
            return decided
    return None


def _name_and_words_rules(question: str, gold: str, answer: str) -> Decision:
    """Rules 5 and 6, else undecided."""
    name = gold_name(gold)
    if name is not None and names_shorter_name(name, answer):
        return True, "the answer gives a shorter form of the gold's name"
    if holds_most_gold_words(answer, gold):
        return True, "most content words and every number of the gold"
    if holds_gold_beyond_question(question, answer, gold):
        return True, "every word of the gold that the question does not say"
    return None, ""
