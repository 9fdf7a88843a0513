"""Online mode: build the graph only for documents relevant to the question.

``relevance(question, texts, embedder)`` scores each text in [0, 1]: a lexical part (BM25
over the given texts, divided by the best score so the top text has 1.0) and, when an
embedder is given, a semantic part (cosine similarity clipped to [0, 1]); the parts are
averaged with ``semantic_weight``. ``build_online`` ingests only the turns scoring at least
``theta`` (default 0.2) through a ``ConstructionPipeline``; its checkpoint is the cache, so
a second question reuses every turn already built and pays only for new ones.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from typing import Final, Protocol

from pydantic import BaseModel

from apexmem_neo.construction.loaders import TurnInput
from apexmem_neo.construction.pipeline import ConstructionPipeline, RunStats

THETA_REL: Final = 0.2
STOPWORDS: Final = frozenset(
    "a an and are as at be but by did do does for from had has have he her him his how i in "
    "is it its me my of on or our she so that the their them they this to was we were what "
    "when where which who why will with you your".split()
)
_WORD = re.compile(r"[a-z0-9]+")


class TextEmbedder(Protocol):
    """Anything with ``embed(texts) -> vectors`` (the search layer's Embedder fits)."""

    def embed(self, texts: Sequence[str]) -> list[list[float]]: ...


def terms(text: str) -> list[str]:
    return [w for w in _WORD.findall(text.casefold()) if w not in STOPWORDS]


def bm25_scores(query: str, texts: Sequence[str], k1: float = 1.2, b: float = 0.75) -> list[float]:
    docs = [terms(t) for t in texts]
    if not docs:
        return []
    avg = sum(len(d) for d in docs) / len(docs) or 1.0
    df = Counter(w for d in docs for w in set(d))
    scores = []
    for doc in docs:
        counts = Counter(doc)
        score = 0.0
        for word in set(terms(query)):
            if counts[word]:
                idf = math.log(1 + (len(docs) - df[word] + 0.5) / (df[word] + 0.5))
                tf = counts[word] * (k1 + 1) / (counts[word] + k1 * (1 - b + b * len(doc) / avg))
                score += idf * tf
        scores.append(score)
    return scores


def _cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return dot / norm if norm else 0.0


def relevance(
    question: str,
    texts: Sequence[str],
    embedder: TextEmbedder | None = None,
    semantic_weight: float = 0.5,
) -> list[float]:
    """Each text's relevance to ``question`` in [0, 1] (lexical, plus semantic if embedded)."""
    lexical = bm25_scores(question, texts)
    best = max(lexical, default=0.0)
    lexical = [s / best if best > 0 else 0.0 for s in lexical]
    if embedder is None or not texts:
        return lexical
    vectors = embedder.embed([question, *texts])
    semantic = [min(1.0, max(0.0, _cosine(vectors[0], v))) for v in vectors[1:]]
    w = min(1.0, max(0.0, semantic_weight))
    return [w * s + (1 - w) * x for s, x in zip(semantic, lexical, strict=True)]


class OnlineResult(BaseModel):
    question: str
    theta: float
    scores: list[float]
    selected: list[str]
    built: int
    reused: int
    stats: RunStats


def build_online(
    question: str,
    turns: Sequence[TurnInput],
    pipeline: ConstructionPipeline,
    embedder: TextEmbedder | None = None,
    theta: float = THETA_REL,
) -> OnlineResult:
    """Ingest only the turns whose relevance is at least ``theta``; report built vs reused."""
    scores = relevance(question, [t.text for t in turns], embedder)
    chosen = [t for t, s in zip(turns, scores, strict=True) if s >= theta]
    stats = pipeline.ingest(chosen, source=f"online: {question}")
    return OnlineResult(
        question=question,
        theta=theta,
        scores=scores,
        selected=[t.source_key for t in chosen],
        built=stats.processed,
        reused=stats.turns_skipped,
        stats=stats,
    )
