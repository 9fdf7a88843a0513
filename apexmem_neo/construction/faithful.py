"""Rules that keep a turn's facts faithful to what the turn says, without another LLM call.

A small extraction model copies values from the previous turns, files a mentioned person's
news on the speaker, re-asserts a value the speaker just denied, and calls one concept by
several property names. These checks read only the turn's own words (and, for changes, what
memory already holds), so they cost no LLM call:

* ``value_said``: a fact's value is said in its turn (every content word, allowing small
  inflections), not only in its context or nowhere;
* ``negated``: the value sits in a denial ("not X", "X isn't ... anymore", "I sold X");
* ``is_correction``: the turn takes back an earlier value ("I misspoke", "Y, not X");
* ``third_party_owner``: a turn about a named relative or friend ("my sister Maya moved")
  with no first-person "I" in it is about that person, not the speaker;
* ``addressed``: whether the turn speaks to or about the listener at all;
* ``may_state_value``: whether a turn whose facts were all copied may still state one of its
  own (it names the concept copied, or a name), so that extracting it again is worth a call.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Final

from rapidfuzz import fuzz

from apexmem_neo.construction.candidates import infer_dtype, to_snake_case
from apexmem_neo.construction.loaders import TurnInput
from apexmem_neo.llm.extract_event import ExtractedFact
from apexmem_neo.ontology import DType
from apexmem_neo.ontology.ids import normalize_text
from apexmem_neo.ontology.lexicon import canonical_property_name, common_property
from apexmem_neo.store.protocol import FactRecord

STOPWORDS: Final = frozenset(
    "a an the of in on at to for and or with by from my your his her their our its is are "
    "was were be been it this that these those some any very really just".split()
)
NUMBER_WORDS: Final = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "twins": 2, "twin": 2,
    "a couple": 2, "both": 2, "single": 1, "only": 1, "triplets": 3,
}  # fmt: skip
PROPERTY_FILLER: Final = frozenset({"has", "is", "have", "number", "num", "count", "of", "did"})
WORD_MATCH: Final = 85
"""rapidfuzz ratio (0-100) from which a value's word counts as one of the turn's words."""
STEM: Final = 4
"""Words sharing their first letters up to this many (and the shorter whole) are one word
for ``value_said``: "nurse" is said in "nursing", "foods" in "food"."""

_WORD = re.compile(r"[\w'-]+", re.UNICODE)
_FIRST_PERSON_SUBJECT: Final = re.compile(r"\b(i|i'm|i've|i'd|i'll|me|myself|im)\b", re.IGNORECASE)
_SECOND_PERSON: Final = re.compile(r"\b(you|your|yours|yourself|you're|you've|u)\b", re.I)
_THIRD_PERSON: Final = re.compile(r"\b(he|she|they|him|her|them|his|hers|their)\b", re.I)
RELATIONS: Final = (
    "sister|brother|mom|mother|mum|dad|father|son|daughter|wife|husband|partner|"
    "boyfriend|girlfriend|fiance|fiancee|friend|best friend|cousin|aunt|uncle|niece|nephew|"
    "grandma|grandmother|grandpa|grandfather|neighbour|neighbor|colleague|coworker|"
    "co-worker|boss|roommate|flatmate|kid|child|sibling|in-law|mate|buddy|pal|teammate|"
    "godmother|godfather|godson|goddaughter|stepmother|stepmom|stepmum|stepfather|stepdad|"
    "stepsister|stepbrother|stepson|stepdaughter|half-sister|half-brother|grandson|"
    "granddaughter|housemate|classmate|workmate|landlord|landlady|mentor|nan|nana|nanna|"
    "gran|granny|grandad|granddad|auntie|aunty|hubby|missus"
)
_RELATIVE_NAMED: Final = re.compile(
    r"\b(?:[Mm]y|[Oo]ur)\s+(?:(?:older|younger|little|big|best|old|new)\s+)?"
    rf"(?:{RELATIONS})(?:-in-law)?s?,?\s+([A-Z][\w'-]+(?:\s+[A-Z][\w'-]+)?)"
)
_LEFT_BEHIND: Final = (
    r"(?:is|are|was|'s)\s+(?:now\s+|officially\s+|firmly\s+|well\s+|all\s+)?behind\s+(?:me|us)|"
    r"parted ways|(?:went|gone|go|going) (?:our|their|my|his|her) separate ways|"
    r"(?:gave|given|giving)\s+notice|handed in my notice|(?:made|been) redundant|"
    r"let (?:me|him|her|them|us) go|(?:packed|packing) in|(?:got|been|was) sacked|"
    r"handed (?:[\w-]+ ){1,3}over|(?:gone|went) to a new (?:owner|home)|old news|"
    r"lost (?:my|his|her|their|our) (?:job|position|post|place)"
)
"""Ways of saying a value was left that both cue lists hold: "X is officially behind me",
"we parted ways", "I gave notice on my place in X", "handed the car over", "X let me go",
"I packed in my job at X", "lost my job at X"."""
_NEGATION_CUES: Final = re.compile(
    r"\b(not|no longer|anymore|any more|never again|isn't|aren't|wasn't|weren't|don't|"
    r"doesn't|didn't|won't|can't|quit|quitting|sold|selling|left|leaving|gave up|give up|"
    r"stopped|stop|dropped|ditched|got rid of|moved out of|moved away from|former|ex|"
    r"given up|goodbye|farewell|final shift|last shift|last day|(?:i'm|i am|we're|we are) out of|"
    r"scrapyard|scrapped|written off|wrote off|totalled|totaled|traded in|part-exchanged|"
    r"knocked (?:[\w-]+ ){1,3}off|"
    r"used to|gone|no more|done with|(?:is|was|it's|all) over|resigned|resigning|resignation|"
    rf"{_LEFT_BEHIND}|"
    r"had to go|"
    r"laid off|fired|let go|retired|moved on from|broke up|split from|divorced|ended|"
    r"packed up)\b",
    re.IGNORECASE,
)
_CORRECTION_CUES: Final = re.compile(
    r"\b(misspoke|mis-spoke|misspoken|i meant|i mean|correction|actually|my mistake|"
    r"my bad|i was wrong|wrong|mixed (?:it|them) up|mixing (?:it|them) up|typo|"
    r"scratch that|rather|to be precise|i should say|what am i on about|what am i saying|"
    r"what was i thinking|why i said|words muddled|ignore me|no wait|did i say)\b",
    re.IGNORECASE,
)
_ENDING_CUES: Final = re.compile(
    r"\b(anymore|any more|no longer|not \w+ing|moved out of|moved out|moved away from|sold|"
    r"quit|quitting|resigned|resignation|stopped|gave up|given up|got rid of|goodbye|"
    r"farewell|final shift|last shift|last day|(?:i'm|i am|we're|we are) out of|scrapyard|"
    r"scrapped|written off|wrote off|totalled|totaled|traded in|part-exchanged|"
    rf"{_LEFT_BEHIND}|"
    r"had to go|"
    r"broke up with|divorced|done with)\b",
    re.IGNORECASE,
)
"""Words that say a state ended, a narrower set than ``_NEGATION_CUES``: "I left Boston this
morning" or "Boston used to be fun" end nothing."""
_DENIED_ENDING: Final = re.compile(
    r"\b(?:won't|will not|wouldn't|would not|don't|do not|didn't|did not|never|can't|cannot|"
    r"not going to|not gonna|ain't|refuse to)\s+(?:\w+\s+)?(?:quit|quitting|sell|selling|"
    r"stop|stopping|give up|giving up|resign|resigning|move out|moving out)\b",
    re.IGNORECASE,
)
"""An ending denied ("I won't quit on my dreams", "I'm never giving up"): the state goes on."""
_ENDED_STATE: Final = re.compile(r"\b(anymore|any more|no longer|used to|former|gone)\b", re.I)
_NEGATION_WINDOW: Final = 40
"""How many characters around a value a denial's cue may sit."""


def words(text: str) -> list[str]:
    """The turn's words, case-folded, apostrophes kept ("isn't")."""
    return [w.strip("'-") for w in _WORD.findall(normalize_text(text).replace("\u2019", "'"))]


def content_words(text: str) -> list[str]:
    return [w for w in words(text) if w and w not in STOPWORDS]


def _same_word(a: str, b: str) -> bool:
    if a == b:
        return True
    if a.isdigit() or b.isdigit():
        return False
    short, long_ = sorted((a, b), key=len)
    if len(short) >= STEM and long_.startswith(short[: max(STEM, len(short) - 2)]):
        return True
    return len(short) >= 5 and fuzz.ratio(a, b) >= WORD_MATCH


def _said_word(word: str, turn_words: Iterable[str]) -> bool:
    return any(_same_word(word, w) for w in turn_words)


DIALOGUE_ACTS: Final = frozenset(
    {"statement", "remark", "greeting", "farewell", "question", "reaction", "acknowledgement",
     "thanks", "small_talk", "chat"}
)  # fmt: skip
"""Event types that name what a turn does, not what it is about: no word of theirs needs to
be said."""


def event_type_said(event_type: str, text: str) -> bool:
    """Whether ``event_type`` fits ``text``: a dialogue act, or a type one of whose words
    ("hobby_change": hobby or change) is said, small inflections allowed."""
    if event_type in DIALOGUE_ACTS:
        return True
    turn_words = content_words(text)
    wanted = [w for w in event_type.split("_") if w and w not in STOPWORDS]
    return any(_said_word(w, turn_words) for w in wanted)


def value_said(value: object, text: str, property_name: str = "") -> bool:
    """Whether ``value`` is said in ``text``: every content word of a text value, the number
    (digits or words) of a numeric value, and for a yes/no value one word of its property
    ("has_children" needs "children" or "kids"-like words said)."""
    turn_words = content_words(text) + [w for w in words(text) if w.isdigit()]
    if isinstance(value, bool):
        needed = [w for w in property_name.split("_") if w and w not in PROPERTY_FILLER]
        return bool(needed) and any(_said_word(w, turn_words) for w in needed)
    if isinstance(value, int | float):
        return _number_said(value, text)
    wanted = content_words(str(value))
    if not wanted:
        return bool(str(value).strip()) and normalize_text(str(value)) in normalize_text(text)
    return all(_said_word(w, turn_words) for w in wanted)


def _number_said(value: float, text: str) -> bool:
    folded = normalize_text(text)
    number = int(value) if float(value).is_integer() else value
    if re.search(rf"(?<![\d.]){re.escape(str(number))}(?![\d])", folded):
        return True
    return any(
        n == number and re.search(rf"\b{re.escape(w)}\b", folded) for w, n in NUMBER_WORDS.items()
    )


def _value_spans(value: str, text: str) -> list[tuple[int, int]]:
    """Where ``value`` is said in ``text`` (case-insensitive; exact first, else fuzzy)."""
    folded, wanted = text.casefold(), value.casefold().strip()
    if not wanted:
        return []
    spans = [(m.start(), m.end()) for m in re.finditer(re.escape(wanted), folded)]
    if spans:
        return spans
    found = fuzz.partial_ratio_alignment(wanted, folded, score_cutoff=WORD_MATCH)
    return [] if found is None else [(found.dest_start, found.dest_end)]


def _clause(text: str, start: int, end: int) -> str:
    """The clause around ``[start, end)``: bounded by sentence ends, semicolons and "but"/
    "and now"-style turns of a sentence, never wider than the negation window."""
    left = max(0, start - _NEGATION_WINDOW)
    right = min(len(text), end + _NEGATION_WINDOW)
    before, after = text[left:start], text[end:right]
    cuts = (".", ";", "!", "?", ":", ",", " but ", " and ")
    cut = max((before.rfind(c) for c in cuts), default=-1)
    if cut >= 0:
        before = before[cut + 1 :]
    found = (after.find(c) for c in (".", ";", "!", "?", ",", " but ", " and "))
    stops = [i for i in found if i >= 0]
    if stops:
        after = after[: min(stops)]
    return before + text[start:end] + after


def negated(value: object, text: str) -> bool:
    """Whether every place ``text`` says ``value`` is in a denial or a leaving ("I don't live
    in X anymore", "X isn't my favourite", "I sold the X", "it's Y, not X"). A place someone
    went to is no denial ("she has packed up and gone to live in X")."""
    if isinstance(value, bool | int | float):
        return False
    spans = _value_spans(str(value), text)
    if not spans:
        return False
    return all(
        (_NEGATION_CUES.search(_clause(text, s, e)) and not _destination(text, s, e))
        or _ended_after(text, e)
        for s, e in spans
    )


_CLAUSE_BREAK: Final = re.compile(r"[;,.!?]|\s(?:but|and|so)\s")
_ENDED_BY_PRONOUN: Final = re.compile(
    r"^\s*(?:(?:and|but|so)\s+)?(?:it|it's|it\s+is|that|that's|that\s+is|which|they|"
    r"they're)\b[^.!?;]*?\b(?:anymore|any\s+more|no\s+longer)\b",
    re.IGNORECASE,
)
_MONTHS: Final = frozenset(
    "january february march april may june july august september october november december "
    "jan feb mar apr jun jul aug sep sept oct nov dec".split()
)


def _ended_after(text: str, end: int) -> bool:
    """Whether the clause after a value refers back to it with a pronoun and says it ended
    ("I got food poisoning at X in April; it's not my favourite anymore"), no other name
    said in between (in "I moved to Denver from Boston; it's not home anymore" it is
    Boston's)."""
    rest = text[end:]
    cut = _CLAUSE_BREAK.search(rest)
    if cut is None:
        return False
    between = {normalize_text(w) for w in _CAPITALISED.findall(rest[: cut.start()])}
    if between - NOT_NAMES - _MONTHS:
        return False
    return bool(_ENDED_BY_PRONOUN.match(rest[cut.end() :]))


_GONE_TO: Final = re.compile(
    r"\b(?:gone|went|headed|left\s+for|off)\s+(?:off\s+|back\s+|over\s+|out\s+)?"
    r"(?:to\s+)?(?:(?:live|work|stay|settle)\s+)?(?:in|at|to|for)?\s*(?:the\s+)?$",
    re.IGNORECASE,
)
_DENIAL: Final = re.compile(r"\b(?:not|never|no\s+longer)\b|n't\b", re.IGNORECASE)


def _destination(text: str, start: int, end: int) -> bool:
    """Whether the value at ``[start, end)`` is where someone went ("gone to live in X",
    "left for X"), with no denial in its clause: a move towards it, not away."""
    clause = _clause(text, start, end)
    before = clause[: clause.find(text[start:end])]
    return bool(_GONE_TO.search(before)) and not _DENIAL.search(clause)


_TAKEN_BACK_BEFORE: Final = re.compile(
    r"(?:\bnot|\b(?:did|do)\s+i\s+(?:just\s+)?(?:say|write|type|put|tell\s+you)|"
    r"\bi\s+(?:said|wrote|typed|put))\s+(?:the\s+|a\s+|an\s+)?$",
    re.IGNORECASE,
)
_TAKEN_BACK_AFTER: Final = re.compile(
    r"^\s*(?:is|was|'s)\s+(?:\w+\s+)?(?:wrong|a\s+mistake|incorrect|not\s+right)",
    re.IGNORECASE,
)
_ECHO_BEFORE: Final = re.compile(
    r"(?:^|[.!?]\s+)(?:(?:sorry|wait|hang\s+on|hold\s+on|hmm|oops|er|erm|um)[,!]?\s+)?$",
    re.IGNORECASE,
)
"""Where a value echoed back as a question starts: "Sorry, X? ...", "X? No, Y"."""
_NAME: Final = r"[A-Z][\w&'-]*(?:\s+[A-Z0-9][\w&'-]*)*"
_CORRECTED_TO: Final = re.compile(
    r"(?i:\bi\s+meant(?:\s+to\s+say)?|\bi\s+mean|\bit's|\bit\s+is|\bit\s+was|"
    r"\bshould\s+(?:be|have\s+said)|\bmake\s+that|\bi\s+should\s+say)"
    rf"\s+(?:the\s+|a\s+|an\s+)?(?P<name>{_NAME})"
)


_NAME_ALONE: Final = re.compile(
    rf"(?:^|(?<=[.!?])\s+)(?P<name>{_NAME})(?:,?\s+(?i:obviously|of course))?[.!](?:\s|$)"
)
"""A sentence that is only a name: "Sorry, X? What am I on about. Y, obviously."."""


def taken_back(value: object, text: str) -> bool:
    """Whether a correction turn takes ``value`` back at every place it says it: "not X",
    "did I say X?", "X is wrong" in a turn that corrects ("I meant Y", "my mistake")."""
    if isinstance(value, bool | int | float) or not is_correction(text, value):
        return False
    spans = _value_spans(str(value), text)
    return bool(spans) and all(
        _TAKEN_BACK_BEFORE.search(text[:s])
        or _TAKEN_BACK_AFTER.search(text[e:])
        or (_ECHO_BEFORE.search(text[:s]) and text[e:].lstrip().startswith("?"))
        for s, e in spans
    )


def correcting_name(text: str, taken: object) -> str | None:
    """The one name a correction turn gives in place of ``taken`` ("did I say X? I meant
    Y", "Y, not X", "X is wrong, it's Y"), or None when it gives none or several."""
    old = normalize_text(str(taken))
    said_not = re.compile(rf"(?P<name>{_NAME}),?\s+not\s+(?:the\s+)?{re.escape(str(taken))}")
    found = [m.group("name") for m in _CORRECTED_TO.finditer(text)]
    found += [m.group("name") for m in said_not.finditer(text)]
    found += [m.group("name") for m in _NAME_ALONE.finditer(text)]
    names = {
        normalize_text(n): n
        for n in found
        if normalize_text(n) != old and normalize_text(n) not in NOT_NAMES | _OPENERS
    }
    return next(iter(names.values())) if len(names) == 1 else None


def is_correction(text: str, old_value: object) -> bool:
    """Whether ``text`` takes ``old_value`` back as a mistake rather than as a change: a
    correction cue ("I misspoke", "actually") or "not X" said without "anymore" / "no
    longer" (which would make it a change that ended X)."""
    if _CORRECTION_CUES.search(text):
        return True
    old = re.escape(str(old_value).casefold().strip())
    said_not = re.search(rf"\bnot\s+(?:the\s+|a\s+|an\s+)?{old}\b", text.casefold())
    return bool(said_not) and not _ENDED_STATE.search(text)


def ends_state(text: str) -> bool:
    """Whether ``text`` says something stopped holding ("anymore", "no longer", "gone")."""
    return bool(_ENDED_STATE.search(text))


def first_person(text: str) -> bool:
    """Whether the speaker speaks of themself as a subject ("I", "I'm", "me")."""
    return bool(_FIRST_PERSON_SUBJECT.search(text))


def third_person(text: str) -> bool:
    return bool(_THIRD_PERSON.search(text))


def mentions(text: str, name: str) -> bool:
    """Whether ``text`` names ``name`` (its whole name or its first name)."""
    folded = normalize_text(text)
    full = normalize_text(name)
    if not full:
        return False
    first = full.split(" ")[0]
    return any(re.search(rf"\b{re.escape(n)}\b", folded) for n in {full, first} if len(n) > 1)


def addressed(text: str, listener: str | None) -> bool:
    """Whether the turn speaks to or about its listener ("you", or the listener's name)."""
    return bool(_SECOND_PERSON.search(text)) or bool(listener and mentions(text, listener))


def third_party_owner(
    text: str, speaker: str, listener: str | None, value: object = None
) -> str | None:
    """The named person a turn is about when the speaker tells a relative's or friend's news
    without saying "I" ("My sister Maya just moved to Boston."), else None. Given the fact's
    ``value``, only the clauses that say it must be free of "I": "My godmother Bronwyn has
    landed a job at X, which I'm a bit jealous of" is Bronwyn's news."""
    if any(first_person(clause) for clause in value_clauses(value, text)):
        return None
    named = [m.group(1) for m in _RELATIVE_NAMED.finditer(text)]
    present = {normalize_text(speaker), normalize_text(listener or "")}
    others = [n for n in named if normalize_text(n) not in present]
    return others[0] if len(set(others)) == 1 else None


def _clauses_saying(value: object, text: str) -> list[str]:
    spans = _value_spans(str(value), text) if value is not None else []
    return [_clause(text, s, e) for s, e in spans]


def value_clauses(value: object, text: str) -> list[str]:
    """The clauses of ``text`` that say ``value``, or the whole text when it is not said."""
    return _clauses_saying(value, text) or [text]


def said_of_self(value: object, text: str, listener: str | None) -> bool:
    """Whether every clause that says ``value`` speaks in the first person and not to or of
    the listener ("Sorry about your job, Bob! I lost my job at X too": X is the speaker's)."""
    clauses = _clauses_saying(value, text)
    return bool(clauses) and all(first_person(c) and not addressed(c, listener) for c in clauses)


def concept_said_as_mine(text: str, property_name: str, value: object) -> bool:
    """Whether the turn says "my" and not "your" of the concept a property names, judged in
    the clauses that say ``value`` when they say either ("Sorry about your job, Jon; I also
    lost my job at X": the job at X is the speaker's), else in the whole turn ("If you're
    asking my favourite restaurant, it's X")."""
    for said_in in (value_clauses(value, text), [text]):
        mine = any(speaks_of_own(c, "my", property_name) for c in said_in)
        yours = any(speaks_of_own(c, "your", property_name) for c in said_in)
        if mine or yours:
            return mine and not yours
    return False


def speaks_of_own(text: str, owner_word: str, property_name: str) -> bool:
    """Whether ``text`` says ``owner_word`` ("my", "your") of the concept a property names,
    a couple of words allowed between: "my all-time favorite restaurant", "your car"."""
    name = canonical_property_name(to_snake_case(property_name))
    common = common_property(name)
    names = common.names if common is not None else (name,)
    phrases = {n.replace("_", " ") for n in names} | {
        n.split("_")[-1] for n in names if len(n.split("_")[-1]) > 3
    }
    folded = re.sub(r"\bfavorite\b", "favourite", text.casefold())
    alternatives = "|".join(sorted(map(re.escape, phrases)))
    pattern = rf"\b{owner_word}\s+(?:[\w'-]+\s+){{0,2}}?(?:{alternatives})\b"
    return re.search(pattern, folded) is not None


def relation_value(value: object, text: str) -> bool:
    """Whether ``value`` is the name of a relative the turn introduces ("my sister Maya"):
    a relation fact of the speaker's (``sister = Maya``), not the relative's news."""
    folded = normalize_text(str(value))
    return any(normalize_text(m.group(1)) == folded for m in _RELATIVE_NAMED.finditer(text))


DATE_PROPERTY: Final = re.compile(
    r"date|day|birthday|anniversary|deadline|since|until|when|time|start|end|born"
)
_PRONOUN: Final = re.compile(r"\b(i|me|my|mine|we|us|our|you|your)\b", re.IGNORECASE)


_LOWER_PRONOUN: Final = re.compile(r"\b(it|this|that|them|him|her|he|she|they)\b")


def is_clause(value: str) -> bool:
    """A value that speaks of the speakers or refers back ("my favourite restaurant now",
    "tired of it"): a piece of a sentence, not a value."""
    return bool(_PRONOUN.search(value) or _LOWER_PRONOUN.search(value))


def names_someone_else(fact: ExtractedFact, item: TurnInput) -> bool:
    """A ``name`` fact whose value is the listener's or speaker's name on another subject
    ("Good to see you, Dmitri" filed as ``Kenji.name = Dmitri``)."""
    value = normalize_text(str(fact.value))
    people = {normalize_text(item.speaker), normalize_text(item.listener or "")}
    return value in people and value != normalize_text(fact.subject)


def same_kind(records: list[FactRecord], fact: ExtractedFact) -> bool:
    """Whether the fact's value could be a value of a property holding ``records``: dates
    with dates, names (capitalised) with names, short lowercase words with their like."""
    old, new = records[-1].value, fact.value
    if is_iso_date(new) != (records[-1].dtype in (DType.DATE, DType.DATETIME)):
        return False
    if not isinstance(old, str) or not isinstance(new, str) or not old or not new:
        return type(old) is type(new)
    if old[0].isupper() != new[0].isupper():
        return False
    return old[0].isupper() or len(new.split()) <= 3


def is_iso_date(value: object) -> bool:
    return isinstance(value, str) and infer_dtype(value) in (DType.DATE, DType.DATETIME)


def names_its_property(value: object, prop_name: str) -> bool:
    """A text value whose every word is a word of its property ("restaurant" as the value
    of ``favourite_restaurant``)."""
    if not isinstance(value, str):
        return False
    value_words = set(normalize_text(value).replace("_", " ").split())
    return bool(value_words) and value_words <= set(prop_name.split("_"))


def said_to_end(value: object, text: str) -> bool:
    """Whether ``text`` says ``value`` no longer holds: every place it says the value is a
    denial that names an ending ("I don't live in X anymore", "I sold the X")."""
    if isinstance(value, bool | int | float) or not negated(value, text):
        return False
    return all(
        _ENDING_CUES.search(_DENIED_ENDING.sub(" ", _clause(text, s, e))) or _ended_after(text, e)
        for s, e in _value_spans(str(value), text)
    )


def current_value_given_up(value: object, text: str) -> bool:
    return value_said(value, text) and negated(value, text)


def holds_value(records: list[FactRecord], value: object) -> bool:
    wanted = normalize_text(str(value))
    return any(normalize_text(str(r.value)) == wanted for r in records)


NOT_NAMES: Final = frozenset(
    "i i'm i've i'd i'll monday tuesday wednesday thursday friday saturday sunday mon tue "
    "tues wed thu thur thurs fri sat sun".split()
)
"""Capitalised words that name no value: the pronoun "I" and the days of the week."""
_CAPITALISED: Final = re.compile(r"[A-Z][\w&'-]*")
SENTENCE_END: Final = re.compile(r"(?<=[.!?])\s+")
"""Where one sentence of a turn ends and the next begins."""


def names_concept(text: str, property_name: str) -> bool:
    """Whether ``text`` says every word of the property's name, or of one of the common
    property's names ("favourite restaurant" for ``favourite_restaurant``, "works at" for
    ``employer``), small inflections allowed."""
    common = common_property(property_name)
    names = (property_name,) if common is None else common.names
    return any(value_said(name.replace("_", " "), text) for name in names)


def holds_name(text: str, known: Iterable[str]) -> bool:
    """Whether ``text`` holds a name other than ``known`` ones (the speakers'): a capitalised
    word inside a sentence, or two in a row at its start ("Sakura Sushi is ...")."""
    skip = {w for name in known for w in words(name)} | NOT_NAMES
    for sentence in SENTENCE_END.split(text):
        named = [_is_name(token, skip) for token in sentence.split()]
        # A name inside the sentence, or a name followed by another at its start.
        if any(named[1:]) or named[:2] == [True, True]:
            return True
    return False


def _is_name(token: str, skip: set[str]) -> bool:
    match = _CAPITALISED.match(token)
    return match is not None and normalize_text(match.group(0)) not in skip


def said_as_name(value: object, text: str) -> bool:
    """Whether ``value`` is a name as the turn says it: capitalised where the turn says it
    ("Denver" in "I live in Denver, in a small flat downtown"; "small flat downtown" is
    not), or capitalised in the value when the turn words it otherwise."""
    said = str(value).strip()
    found = re.search(re.escape(said), text, re.IGNORECASE) if said else None
    shown = found.group(0) if found is not None else said
    return shown[:1].isupper()


_OPENERS: Final = frozenset(
    "yesterday today tomorrow tonight last next this that then so but and oh well hey yes no "
    "since after before when while sometime back big news good bad sorry wait thanks thank "
    "hi hello dear congrats congratulations".split()
)
"""Words capitalised only because they open a sentence, never part of a name."""


def whole_name(value: str, text: str) -> str:
    """The whole name the turn says ``value`` in: "robotics" said in "my final shift at
    Pinecrest Robotics" is "Pinecrest Robotics", "G70" in "a Genesis G70" is "Genesis G70".
    A value that is not part of a longer capitalised name is returned as it is."""
    tokens = list(re.finditer(r"[\w&'-]+", text))
    wanted = [w.casefold() for w in re.findall(r"[\w&'-]+", value)]
    if not wanted:
        return value
    skip = STOPWORDS | NOT_NAMES | _OPENERS

    def is_name(i: int) -> bool:
        token = tokens[i].group(0)
        return _CAPITALISED.fullmatch(token) is not None and token.casefold() not in skip

    for i in range(len(tokens) - len(wanted) + 1):
        run = range(i, i + len(wanted))
        if [tokens[j].group(0).casefold() for j in run] != wanted or not all(map(is_name, run)):
            continue
        start, end = i, i + len(wanted) - 1
        while start > 0 and is_name(start - 1) and _joined(text, tokens, start - 1):
            if _opens_sentence(text, tokens[start - 1]):
                break  # "Now Sakura Sushi is ...": a capital that only opens the sentence
            start -= 1
        while end + 1 < len(tokens) and is_name(end + 1) and _joined(text, tokens, end):
            end += 1
        return text[tokens[start].start() : tokens[end].end()]
    return value


def _opens_sentence(text: str, token: re.Match[str]) -> bool:
    before = text[: token.start()].rstrip()
    return not before or before[-1] in ".!?:;"


def _joined(text: str, tokens: list[re.Match[str]], i: int) -> bool:
    """Whether tokens i and i+1 are separated by spaces only (no comma or sentence end)."""
    return not text[tokens[i].end() : tokens[i + 1].start()].strip()


_CHANGE_CUES: Final = re.compile(
    r"\b(now|new|instead|these days|lately|switched|changed|moved|took up|taken up|"
    r"got into|started)\b",
    re.IGNORECASE,
)
"""Words that say a state began or changed ("I took up pottery", "we moved")."""


def says_change(text: str) -> bool:
    """Whether ``text`` says a state began, changed, ended or was corrected."""
    cues = (_CHANGE_CUES, _ENDING_CUES, _CORRECTION_CUES)
    return any(cue.search(text) for cue in cues)


def may_state_value(text: str, copied: Iterable[str], known: Iterable[str]) -> bool:
    """Whether a turn whose every extracted fact was copied from its context (facts under the
    ``copied`` property names) may still state a value of its own: it names one of those
    concepts, holds a name beyond the ``known`` speakers', or says a change. Small talk
    ("Thanks, Gina! Keep going!") is none of these, and extracting it again found more
    copies."""
    if says_change(text) or holds_name(text, known):
        return True
    return any(names_concept(text, p) for p in copied)
