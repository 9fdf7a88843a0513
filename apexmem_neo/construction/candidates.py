"""Candidates for entity and property resolution, found without any LLM.

An entity mention is compared with the known entities by exact normalised name, by alias, by
a looser name (articles, possessives, honorifics and punctuation dropped), by fuzzy match
(rapidfuzz) and, when a ``CandidateSource`` is given, by dense top-k. ``EntityCatalog.rank``
returns the candidates; ``settle_entity`` decides the clear cases (any exact, alias or loose
match: choose it; nothing close: propose new) and leaves only the ambiguous ones for the LLM.
Properties follow the same flow with snake_case names and dtype inference.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Final, Literal, Protocol

from rapidfuzz import fuzz, process

from apexmem_neo.ontology import DType, Entity, EntityType, Property
from apexmem_neo.ontology.ids import normalize_text
from apexmem_neo.ontology.lexicon import canonical_property_name

Via = Literal["exact", "alias", "loose", "prefix", "fuzzy", "dense"]
CandidateKind = Literal["entity", "property"]

FUZZY_MIN: Final = 0.80
"""Below this fuzzy score (0-1) a known name is not a candidate."""
AUTO_ACCEPT: Final = 0.95
"""A single same-type fuzzy candidate at or above this is chosen without the LLM."""
DENSE_MIN: Final = 0.85
MAX_CANDIDATES: Final = 5

_ARTICLES = re.compile(r"^(the|a|an|my|our|his|her|their|your)\s+")
_HONORIFICS = re.compile(r"^(mr|mrs|ms|miss|dr|prof|sir|madam)\.?\s+")
_POSSESSIVE = re.compile(r"'s\b|s'\b")
_NON_WORD = re.compile(r"[^\w\s]")


class CandidateSource(Protocol):
    """Dense top-k lookup: the ``key`` (entity id or property name) and a score in [0, 1]."""

    def nearest(self, text: str, kind: CandidateKind, k: int) -> list[tuple[str, float]]: ...


@dataclass(frozen=True)
class Candidate:
    key: str
    name: str
    score: float
    via: Via
    entity_type: str | None = None
    aliases: tuple[str, ...] = ()


def loose_name(name: str) -> str:
    """Normalised name without articles, honorifics, possessives or punctuation."""
    text = normalize_text(name).replace("\u2019", "'")
    text = _POSSESSIVE.sub("", text)
    text = _HONORIFICS.sub("", _ARTICLES.sub("", text))
    return " ".join(_NON_WORD.sub(" ", text).split())


def to_snake_case(name: str) -> str:
    """``"Favourite Restaurant"``/``"favouriteRestaurant"`` -> ``favourite_restaurant``."""
    text = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name.strip())
    text = re.sub(r"[^0-9a-zA-Z]+", "_", text).strip("_").lower()
    text = re.sub(r"_+", "_", text)
    if not text:
        return "statement"
    return text if text[0].isalpha() else f"p_{text}"


def stored_property_name(proposed: str) -> str:
    """The name memory stores for a proposed property: snake_case, then the lexicon's
    canonical name (``"Moved To"`` -> ``lives_in``)."""
    return canonical_property_name(to_snake_case(proposed))


@dataclass
class EntityCatalog:
    """The known entities with their aliases: the resolution state (no I/O)."""

    entities: dict[str, Entity] = field(default_factory=dict)
    _by_norm: dict[str, set[str]] = field(default_factory=dict)
    _by_loose: dict[str, set[str]] = field(default_factory=dict)

    def add(self, entity: Entity) -> None:
        known = self.entities.get(entity.entity_id)
        if known is not None:
            merged = tuple(dict.fromkeys((*known.aliases, *entity.aliases)))
            entity = known.model_copy(update={"aliases": merged})
        self.entities[entity.entity_id] = entity
        for name in (entity.name, *entity.aliases):
            self._by_norm.setdefault(normalize_text(name), set()).add(entity.entity_id)
            self._by_loose.setdefault(loose_name(name), set()).add(entity.entity_id)

    def add_alias(self, entity_id: str, alias: str) -> bool:
        """Record ``alias`` for a known entity; True if it was new."""
        entity = self.entities[entity_id]
        names = {normalize_text(n) for n in (entity.name, *entity.aliases)}
        if normalize_text(alias) in names or not alias.strip():
            return False
        self.add(entity.model_copy(update={"aliases": (*entity.aliases, alias)}))
        return True

    def types_named(self, name: str) -> set[EntityType]:
        """The types of the known entities called ``name`` (by name or alias)."""
        ids = self._by_norm.get(normalize_text(name), ())
        return {self.entities[i].entity_type for i in ids}

    def _candidate(self, entity_id: str, score: float, via: Via) -> Candidate:
        e = self.entities[entity_id]
        return Candidate(entity_id, e.name, score, via, e.entity_type.value, e.aliases)

    def rank(
        self,
        mention: str,
        entity_type: EntityType | None = None,
        source: CandidateSource | None = None,
    ) -> list[Candidate]:
        """Candidates for ``mention``, best first (exact > alias > loose > prefix/fuzzy/dense)."""
        found: dict[str, Candidate] = {}
        norm, loose = normalize_text(mention), loose_name(mention)
        for entity_id in sorted(self._by_norm.get(norm, ())):
            exact = normalize_text(self.entities[entity_id].name) == norm
            found[entity_id] = self._candidate(entity_id, 1.0, "exact" if exact else "alias")
        for entity_id in sorted(self._by_loose.get(loose, ())) if loose else ():
            found.setdefault(entity_id, self._candidate(entity_id, 0.99, "loose"))
        for entity_id, score, via in self._near(loose, entity_type, source, mention):
            if entity_id not in found or found[entity_id].score < score:
                found[entity_id] = self._candidate(entity_id, score, via)
        ordered = sorted(found.values(), key=lambda c: (-c.score, c.via, c.key))
        return ordered[:MAX_CANDIDATES]

    def _near(
        self,
        loose: str,
        entity_type: EntityType | None,
        source: CandidateSource | None,
        mention: str,
    ) -> Iterable[tuple[str, float, Via]]:
        if loose and self._by_loose:
            for entity_id, score in _fuzzy(loose, self._by_loose):
                yield entity_id, score, "fuzzy"
            if entity_type == EntityType.PERSON:
                yield from self._prefix(loose)
        if source is not None:
            for entity_id, score in source.nearest(mention, "entity", MAX_CANDIDATES):
                if entity_id in self.entities and score >= DENSE_MIN:
                    yield entity_id, score, "dense"

    def _prefix(self, loose: str) -> Iterable[tuple[str, float, Via]]:
        """Short forms of people's names: "Mel" ~ "Melanie", "Caroline" ~ "Caroline Smith"."""
        if len(loose) < 3 or " " in loose:
            return
        for key, ids_ in self._by_loose.items():
            first = key.split(" ")[0]
            if key != loose and first.startswith(loose):
                for entity_id in ids_:
                    if self.entities[entity_id].entity_type == EntityType.PERSON:
                        yield entity_id, 0.9, "prefix"


_DIGITS = re.compile(r"\d+")


def _fuzzy(query: str, names: dict[str, set[str]]) -> Iterable[tuple[str, float]]:
    """Fuzzy name matches; names whose numbers differ ("Room 1", "Room 2") never match."""
    matches = process.extract(
        query, list(names), scorer=fuzz.ratio, limit=MAX_CANDIDATES, score_cutoff=FUZZY_MIN * 100
    )
    digits = _DIGITS.findall(query)
    for name, score, _ in matches:
        if _DIGITS.findall(name) != digits:
            continue
        for entity_id in sorted(names[name]):
            yield entity_id, score / 100.0


@dataclass(frozen=True)
class Settled:
    """A resolution decided without the LLM (``candidate`` None means propose new)."""

    candidate: Candidate | None
    confidence: float
    rationale: str


def settle_entity(
    mention: str, entity_type: EntityType, candidates: Sequence[Candidate]
) -> Settled | None:
    """The clear cases; None when the candidates are ambiguous and the LLM must decide.

    An exact, alias or loose name match is always chosen (same type preferred), so an exact
    match never creates a duplicate. No candidate: new. One fuzzy candidate of the same type
    at >= AUTO_ACCEPT: chosen.
    """
    direct = [c for c in candidates if c.via in ("exact", "alias", "loose")]
    if direct:
        same = [c for c in direct if c.entity_type == entity_type.value]
        best = (same or direct)[0]
        return Settled(best, 1.0, f"{best.via} name match with {best.name!r}")
    if not candidates:
        return Settled(None, 1.0, f"no known entity resembles {mention!r}")
    top = candidates[0]
    close = [c for c in candidates if c.score >= AUTO_ACCEPT]
    if len(close) == 1 and top.entity_type == entity_type.value and top.score >= AUTO_ACCEPT:
        return Settled(top, top.score, f"{top.via} match {top.score:.2f} with {top.name!r}")
    return None


# ---- properties ----

PROPERTY_AUTO_ACCEPT: Final = 0.92
PROPERTY_MIN: Final = 0.80


@dataclass
class PropertyCatalog:
    """The known properties (name -> Property)."""

    properties: dict[str, Property] = field(default_factory=dict)

    def add(self, prop: Property) -> None:
        self.properties.setdefault(prop.name, prop)

    def names(self) -> list[str]:
        return sorted(self.properties)

    def names_in_order(self) -> list[str]:
        """The names in the order they were added: a prompt listing them only grows at its
        end, so the server's prompt cache keeps the part listed before."""
        return list(self.properties)

    def rank(self, name: str, source: CandidateSource | None = None) -> list[Candidate]:
        snake = to_snake_case(name)
        if snake in self.properties:
            return [Candidate(snake, snake, 1.0, "exact")]
        spaced = {p.replace("_", " "): p for p in self.properties}
        matches = process.extract(
            snake.replace("_", " "),
            list(spaced),
            scorer=fuzz.token_sort_ratio,
            limit=MAX_CANDIDATES,
            score_cutoff=PROPERTY_MIN * 100,
        )
        found = {
            spaced[m]: Candidate(spaced[m], spaced[m], s / 100.0, "fuzzy") for m, s, _ in matches
        }
        if source is not None:
            for key, score in source.nearest(snake, "property", MAX_CANDIDATES):
                if key in self.properties and score >= DENSE_MIN and key not in found:
                    found[key] = Candidate(key, key, score, "dense")
        return sorted(found.values(), key=lambda c: (-c.score, c.key))[:MAX_CANDIDATES]


def settle_property(name: str, candidates: Sequence[Candidate]) -> Settled | None:
    """Exact: chosen. Nothing close: new. One candidate >= PROPERTY_AUTO_ACCEPT: chosen."""
    if candidates and candidates[0].via == "exact":
        return Settled(candidates[0], 1.0, "exact property name")
    if not candidates:
        return Settled(None, 1.0, f"no known property resembles {name!r}")
    close = [c for c in candidates if c.score >= PROPERTY_AUTO_ACCEPT]
    if len(close) == 1:
        return Settled(close[0], close[0].score, f"spelling variant of {close[0].name!r}")
    return None


# ---- dtype inference ----

_URL = re.compile(r"^(https?|ftp)://\S+$|^mailto:\S+$")
_TRUE = {"true", "yes", "y"}
_FALSE = {"false", "no", "n"}


def infer_dtype(value: object) -> DType:
    """The dtype a value looks like: bool, int, float, date, datetime, url, list, else str."""
    if isinstance(value, bool):
        return DType.BOOL
    if isinstance(value, int):
        return DType.INT
    if isinstance(value, float):
        return DType.FLOAT
    if isinstance(value, list | tuple):
        return DType.LIST
    text = str(value).strip()
    if text.casefold() in _TRUE | _FALSE:
        return DType.BOOL
    if re.fullmatch(r"-?\d+", text):
        return DType.INT
    if re.fullmatch(r"-?\d+\.\d+", text):
        return DType.FLOAT
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
        return DType.DATE
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2})?", text):
        return DType.DATETIME
    return DType.URL if _URL.match(text) else DType.STR


def convert_value(value: object, dtype: DType) -> object | None:
    """``value`` converted to ``dtype`` when it sensibly can be, else None."""
    text = str(value).strip() if not isinstance(value, list | tuple) else ""
    try:
        if dtype in (DType.STR, DType.ENUM):
            return ", ".join(map(str, value)) if isinstance(value, list | tuple) else text or None
        if dtype == DType.BOOL:
            if isinstance(value, bool):
                return value
            folded = text.casefold()
            return True if folded in _TRUE else False if folded in _FALSE else None
        if dtype == DType.INT:
            number = float(text) if not isinstance(value, bool) else None
            return int(number) if number is not None and number.is_integer() else None
        if dtype == DType.FLOAT:
            return None if isinstance(value, bool) else float(text)
        if dtype == DType.DATE:
            return date.fromisoformat(text[:10]).isoformat()
        if dtype == DType.LIST:
            return list(value) if isinstance(value, list | tuple) else [text]
        if dtype == DType.URL:
            return text if _URL.match(text) else None
        return text if infer_dtype(text) in (DType.DATETIME, DType.DATE) else None
    except ValueError:
        return None
