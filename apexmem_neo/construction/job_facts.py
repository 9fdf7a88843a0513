"""Deterministic repairs of a small model's job facts, applied to an extraction before merge.

A small model gets jobs wrong in two ways: "I work at Acme Corp as an engineer" can give
``occupation = engineer`` and no employer, and "I started at Globex" ``occupation = Globex``
beside ``employer = Globex``. Then "where does she work now" has no timeline to read and the
occupation timeline mixes jobs with companies. The rules:

* an occupation is a profession, never an organisation: an ``occupation`` fact whose value
  names an organisation (a participant typed Organization/Corporation, an entity memory
  already types so, or a name ending in a company word such as "Corp") becomes ``employer``;
* nor a pastime: an ``occupation`` fact whose value the turn calls a pastime ("I'm a
  kayaking person now", "I've taken up kayaking") becomes ``hobby``;
* nor an attribute of the organisation: a job fact filed on an organisation in a sentence
  where the speaker speaks of themself ("I answer the phones for Bramblewood Studios" as
  ``Bramblewood Studios.job_description``) is the speaker's ``employer`` fact;
* a first-person sentence saying the speaker works at/for an organisation (one the model
  listed as a participant, or a capitalised name after "at"/"for" that passes the
  organisation test), or that the organisation hired the speaker ("Acme Corp hired me"),
  names the speaker's employer: when the extraction has no employer fact, one is added,
  dated like the turn's occupation fact.

Each repair is returned as a ``JobRepair`` so merge records it as a decision (provenance).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from apexmem_neo.construction.candidates import stored_property_name
from apexmem_neo.construction.faithful import RELATIONS, SENTENCE_END, negated
from apexmem_neo.llm.extract_event import ExtractedEvent, ExtractedFact
from apexmem_neo.ontology import DType, EntityType
from apexmem_neo.ontology.ids import normalize_text

ORGANISATION_TYPES: Final = frozenset({EntityType.ORGANIZATION, EntityType.CORPORATION})
OCCUPATION, EMPLOYER, HOBBY = "occupation", "employer", "hobby"
ADDED_CONFIDENCE: Final = 0.8
"""Confidence of an employer fact the rule adds (the model did not state it itself)."""

_COMPANY_WORD: Final = re.compile(
    r"\b(corp|corporation|inc|llc|ltd|limited|gmbh|plc|co|company|group|labs?|technologies|"
    r"industries|holdings|bank|agency|studios?|university|college|hospital|insurance|"
    r"software|media|biotech|robotics|analytics|logistics|telecom|energy|aerospace|systems|"
    r"solutions|consulting|partners|pharma|pharmaceuticals|motors|airlines?|capital|"
    r"networks|electronics|manufacturing|publishing|foods|academy|institute|works|trust|"
    r"council|clinic|enterprises|ventures|services|construction|engineering|textiles|"
    r"freight|games|press|firm|associates)\.?$",
    re.IGNORECASE,
)
_SPEAKER_WORKS: Final = (
    r"\b(?:i|we)(?:'m|'ve|\s+(?:am|are|have|had|just|recently|now|finally|still|also|got|"
    r"was|were|been|began|landed|took|doing|a|an|new|the|my|our|first|full-time|part-time))*\s+"
    r"(?:work(?:s|ed|ing)?|job|position|role|hired|employed|intern\w*|started|joined|"
    r"onboarding)\b"
)
"""The speaker, a few auxiliary words, then a work word: "I'm working", "I got a job"."""
_SPEAKER_ROLE: Final = (
    r"\b(?:i'm|i\s+am)\s+(?:now\s+)?an?\s+(?!(?:regular|fan|customer|guest|member|student|"
    r"patient|visitor)\b)[a-z][\w-]*(?:\s+[a-z][\w-]*){0,3}\s+(?:over\s+)?"
)
"""The speaker naming a role: "I'm a project manager over" (then "at <organisation>")."""
_HIRED_SPEAKER: Final = (
    r"\s+(?:has\s+|have\s+|just\s+|finally\s+|officially\s+)*"
    r"(?:hired\s+me|took\s+me\s+on|brought\s+me\s+on|offered\s+me\s+(?:a|the)\s+"
    r"(?:\w+\s+)?(?:job|position|role|contract))\b"
)
"""An organisation's name is followed by this when it hired the speaker: "Acme Corp has hired
me", "Orbit Labs took me on"."""
_NAME_AFTER: Final = re.compile(r"[A-Z][\w&'-]*(?:\s+[A-Z][\w&'-]*)*\.?")
_NAME_BEFORE_HIRED: Final = re.compile(
    r"(?<![\w'])(?P<name>[A-Z][\w&'-]*(?:\s+[A-Z][\w&'-]*)*)" + _HIRED_SPEAKER
)
"""A capitalised name, as it follows "at"/"for" in "I work at Acme Corp as ..."."""
_PASTIME_BEFORE: Final = (
    r"\b(?:into|took\s+up|taken\s+up|taking\s+up|picked\s+up|hooked\s+on|obsessed\s+with|"
    r"addicted\s+to|hobby\s+(?:is|now)|pastime\s+(?:is|now))\s+(?:some\s+|the\s+)?"
)
"""Words before a pastime: "I'm into {value}", "I've taken up {value}"."""
_PASTIME_AFTER: Final = r"\s+(?:person|fan|nut|enthusiast|addict|fanatic|buff|junkie|convert)\b"
"""Words after a pastime: "I'm a {value} person now"."""
_WORKING_OUT: Final = re.compile(r"\bwork(s|ed|ing)? out\b", re.IGNORECASE)
_JOB_PROPERTY: Final = re.compile(
    r"^(?:occupation|profession|career|work|duties|responsibilities|department|team|title|"
    r"job|role|position|job_\w+|\w+_job|\w+_role|role_\w+|\w+_position|work_\w+|"
    r"workplace\w*|\w+_workplace)$"
)
"""Property names a small model gives a job ("job_description", "new_role", "team")."""
_SPEAKER_IN_SENTENCE: Final = re.compile(r"\b(?:i|i'm|i've|i'd|me)\b", re.IGNORECASE)
_SPEAKERS_OWN: Final = re.compile(r"\bmy\b", re.IGNORECASE)
_SOMEONE_OF_MINE: Final = re.compile(rf"\b(?:my|our)\s+(?:\w+\s+)?(?:{RELATIONS})s?\b", re.I)
""""My sister does support for X" speaks of the sister, not of the speaker."""
_JOB_SOUGHT: Final = re.compile(
    r"\b(?:appl(?:y|ied|ying)|interview\w*|hiring|rejected|turned\s+down|might|would|"
    r"want(?:ed)?\s+to|hop(?:e|ing)|dream\w*|thinking\s+(?:of|about))\b",
    re.IGNORECASE,
)
"""Words saying a job is sought, not held: "I've applied for a role at X"."""


@dataclass(frozen=True)
class JobRepair:
    """One repair, recorded by merge as a ``property`` decision."""

    mention: str
    chosen: str
    rationale: str


def property_name(fact: ExtractedFact) -> str:
    """The name memory would store for the fact's proposed property."""
    return stored_property_name(fact.property)


def organisation_test(
    extraction: ExtractedEvent, known_types: Callable[[str], set[EntityType]]
) -> Callable[[str], bool]:
    """Whether a name denotes an organisation, for this turn's extraction and memory."""
    typed_here = {
        normalize_text(p.name) for p in extraction.participants if p.type in ORGANISATION_TYPES
    }

    def is_organisation(name: str) -> bool:
        key = normalize_text(name)
        if key in typed_here or known_types(name) & ORGANISATION_TYPES:
            return True
        return _COMPANY_WORD.search(name.strip()) is not None

    return is_organisation


def repair_job_facts(
    extraction: ExtractedEvent,
    text: str,
    speaker: str | None,
    is_organisation: Callable[[str], bool],
) -> tuple[ExtractedEvent, list[JobRepair]]:
    """The extraction with its job facts repaired, and what was repaired.

    ``speaker`` None (a document stream) skips the first-person employer rule.
    """
    facts, repairs = _route_occupations(extraction.facts, text, speaker, is_organisation)
    if speaker is not None and not any(_asserted_employer(f, text) for f in facts):
        added = _stated_employer(extraction, text, speaker, facts, is_organisation)
        if added is not None:
            facts.append(added)
            repairs.append(
                JobRepair(
                    f"{speaker}.{EMPLOYER}",
                    EMPLOYER,
                    f"the turn says the speaker works at/for {added.value!r} "
                    "and the model gave no employer fact",
                )
            )
    return extraction.model_copy(update={"facts": facts}), repairs


def _route_occupations(
    facts: list[ExtractedFact],
    text: str,
    speaker: str | None,
    is_organisation: Callable[[str], bool],
) -> tuple[list[ExtractedFact], list[JobRepair]]:
    """Occupation facts naming an organisation become employer facts, those the turn calls
    a pastime hobby facts, and the speaker's job filed on their organisation the speaker's
    employer (deduplicated)."""
    kept: list[ExtractedFact] = []
    repairs: list[JobRepair] = []
    for fact in facts:
        if speaker is not None and _job_filed_on_organisation(fact, text, is_organisation):
            repairs.append(
                JobRepair(
                    f"{fact.subject}.{fact.property}",
                    EMPLOYER,
                    f"the speaker's job filed on {fact.subject!r}: the speaker works there",
                )
            )
            fact = fact.model_copy(
                update={"subject": speaker, "property": EMPLOYER, "value": fact.subject}
            )
        name = property_name(fact)
        target = _occupation_target(str(fact.value), text, is_organisation, name)
        if target is not None:
            prop, why = target
            repairs.append(JobRepair(f"{fact.subject}.{name}", prop, why))
            fact = fact.model_copy(update={"property": prop})
        if not any(_same_statement(fact, other) for other in kept):
            kept.append(fact)
    return kept, repairs


def _occupation_target(
    value: str, text: str, is_organisation: Callable[[str], bool], name: str
) -> tuple[str, str] | None:
    """The property a job fact's value belongs to instead, and why; None: it stays. Any job
    property naming an organisation ("job_location = Meridian Print Works") is the
    employer; an occupation the turn calls a pastime is a hobby."""
    if name == EMPLOYER or not _JOB_PROPERTY.search(name):
        return None
    if is_organisation(value):
        return EMPLOYER, f"{value!r} is an organisation, not an occupation"
    if name == OCCUPATION and _said_as_pastime(value, text):
        return HOBBY, f"the turn calls {value!r} a pastime, not an occupation"
    return None


def _job_filed_on_organisation(
    fact: ExtractedFact, text: str, is_organisation: Callable[[str], bool]
) -> bool:
    """Whether the model filed the speaker's job on the organisation they work for: "I
    answer the phones in customer support for Bramblewood Studios" as ``Bramblewood
    Studios.job_description = customer support``. The sentence naming the organisation
    must speak of the speaker ("I", "my") and not of a job only sought ("applied for")."""
    if not _JOB_PROPERTY.search(property_name(fact)) or not is_organisation(fact.subject):
        return False
    if normalize_text(str(fact.value)) == normalize_text(fact.subject):
        return False
    name = re.escape(fact.subject.strip())
    return any(
        re.search(rf"\b{name}\b", sentence, re.IGNORECASE)
        and _speaks_of_speaker(sentence)
        and not _JOB_SOUGHT.search(sentence)
        for sentence in SENTENCE_END.split(text)
    )


def _speaks_of_speaker(sentence: str) -> bool:
    """Whether the sentence speaks of the speaker ("I ...", "my team") and not only of
    someone of theirs ("my sister ...")."""
    if _SPEAKER_IN_SENTENCE.search(sentence):
        return True
    return bool(_SPEAKERS_OWN.search(sentence)) and not _SOMEONE_OF_MINE.search(sentence)


def _said_as_pastime(value: str, text: str) -> bool:
    """Whether ``text`` speaks of ``value`` as a pastime ("into X", "an X person")."""
    name = re.escape(value.strip())
    if not name:
        return False
    pattern = rf"{_PASTIME_BEFORE}{name}\b|\b{name}{_PASTIME_AFTER}"
    return re.search(pattern, text, re.IGNORECASE) is not None


def _asserted_employer(fact: ExtractedFact, text: str) -> bool:
    """Whether ``fact`` names an employer the turn does not say was left ("so Acme is behind
    me" leaves room for the employer the turn does say)."""
    return property_name(fact) == EMPLOYER and not negated(fact.value, text)


def _same_statement(a: ExtractedFact, b: ExtractedFact) -> bool:
    return (
        normalize_text(a.subject) == normalize_text(b.subject)
        and property_name(a) == property_name(b)
        and normalize_text(str(a.value)) == normalize_text(str(b.value))
    )


def _stated_employer(
    extraction: ExtractedEvent,
    text: str,
    speaker: str,
    facts: list[ExtractedFact],
    is_organisation: Callable[[str], bool],
) -> ExtractedFact | None:
    """An employer fact for a first-person "I work at <organisation>" sentence, or None."""
    listed = [p.name for p in extraction.participants if p.type in ORGANISATION_TYPES]
    occupation = next((f for f in facts if property_name(f) == OCCUPATION), None)
    for sentence in SENTENCE_END.split(text):
        if _WORKING_OUT.search(sentence):
            continue
        found = _employer_in(sentence, listed, is_organisation)
        if found is not None:
            name, phrase = found
            return ExtractedFact(
                subject=speaker,
                property=EMPLOYER,
                value=name,
                dtype=DType.STR,
                when=occupation.when if occupation else None,
                t_from=occupation.t_from if occupation else None,
                t_to=None,
                confidence=ADDED_CONFIDENCE,
                evidence=phrase,
            )
    return None


def _employer_in(
    sentence: str, listed: list[str], is_organisation: Callable[[str], bool]
) -> tuple[str, str] | None:
    """(organisation, the words saying it) when ``sentence`` says the speaker works there."""
    works_at = (
        rf"(?:{_SPEAKER_WORKS}[^.!?]{{0,40}}?\b(?:at|for|by)|{_SPEAKER_ROLE}(?:at|for|with))"
        r"\s+(?:the\s+)?"
    )
    for name in listed:
        found = re.search(works_at + rf"{re.escape(name)}\b", sentence, re.IGNORECASE)
        found = found or re.search(rf"\b{re.escape(name)}{_HIRED_SPEAKER}", sentence)
        if found is not None:
            return name, found.group(0)
    hired = _NAME_BEFORE_HIRED.search(sentence)
    if hired is not None and is_organisation(hired["name"]):
        return hired["name"], hired.group(0)
    found = re.search(works_at, sentence, re.IGNORECASE)
    named = _NAME_AFTER.match(sentence, found.end()) if found is not None else None
    if found is None or named is None:
        return None
    name = named.group(0).rstrip(".")
    if not is_organisation(name):
        return None
    return name, sentence[found.start() : found.end() + len(name)]
