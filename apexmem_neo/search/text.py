"""Text analysis shared by every backend: one tokenizer, one stop list, one Snowball stemmer.

Backends index and query the analysed terms (space separated) with a plain whitespace
analyzer, so BM25 sees the same tokens on the embedded index (numpy, Lucene's formula),
Elasticsearch and Neo4j full-text.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

import Stemmer

_TOKEN = re.compile(r"[a-z0-9]+")
_POSSESSIVE = re.compile(r"(\w)['\u2019]s\b")

STOPWORDS: frozenset[str] = frozenset(
    """a about above after again against all am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for from
    further had has have having he her here hers herself him himself his how i if in into is it
    its itself just me more most my myself no nor not now of off on once only or other our ours
    ourselves out over own same she should so some such than that the their theirs them
    themselves then there these they this those through to too under until up very was we were
    what when where which while who whom why will with would you your yours yourself yourselves
    s t don ll re ve d m o y shall may might must also us let""".split()
)
"""English function words; question words are among them, so "what did X do" keeps only X."""


@lru_cache(maxsize=1)
def _stemmer() -> Stemmer.Stemmer:
    return Stemmer.Stemmer("english")


def normalize(text: str) -> str:
    """NFKC, case-folded, possessive 's removed."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return _POSSESSIVE.sub(r"\1", folded)


def analyze(text: str) -> list[str]:
    """Tokens of ``text``: lower-cased alphanumerics, stop words dropped, Snowball-stemmed."""
    tokens = [tok for tok in _TOKEN.findall(normalize(text)) if tok not in STOPWORDS]
    stems: list[str] = _stemmer().stemWords(tokens)
    return stems


def analyzed_string(text: str) -> str:
    """The analysed terms joined by single spaces: what backends index."""
    return " ".join(analyze(text))


def query_terms(text: str) -> list[str]:
    """Distinct analysed terms of a query, in first-seen order (each term counts once)."""
    return list(dict.fromkeys(analyze(text)))
