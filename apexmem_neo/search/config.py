"""One pydantic model for every search setting; named presets are module constants."""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class Method(StrEnum):
    LEXICAL = "lexical"
    DENSE = "dense"


class DocField(StrEnum):
    """Which document field a channel searches: the text alone or the text with its context."""

    TEXT = "text"
    CONTEXT = "context"


class Channel(BaseModel):
    """One ranked list to fuse: a method over a field, with its fusion weight."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    method: Method
    field: DocField = DocField.TEXT
    weight: float = Field(default=1.0, gt=0.0)


class SearchConfig(BaseModel):
    """Search settings.

    ``channels`` are fused with ``fusion``: reciprocal rank fusion (sum of
    weight / (rrf_k + rank)) or a weighted sum of min-max normalised scores. ``depth`` is how
    many hits each channel contributes; ``num_candidates`` is the HNSW beam for approximate
    kNN. ``speaker_boost`` multiplies the fused score of a turn whose speaker the query names.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = "custom"
    channels: tuple[Channel, ...] = Field(min_length=1)
    fusion: Literal["rrf", "weighted"] = "rrf"
    rrf_k: int = Field(default=60, ge=1)
    # Depth 50 instead of 100 costs hardly any recall (with a small RRF k, ranks past 50 add
    # little) and halves the kNN beam and the hits each channel ships.
    depth: int = Field(default=50, ge=1, le=1000)
    # 200, not 100: Elasticsearch's filtered HNSW then matches the exact kNN of the other
    # backends in recall, at the same latency.
    num_candidates: int = Field(default=200, ge=1, le=10000)
    speaker_boost: float = Field(default=1.0, ge=1.0)


def _ch(method: Method, field: DocField = DocField.TEXT, weight: float = 1.0) -> Channel:
    return Channel(method=method, field=field, weight=weight)


BM25_ONLY = SearchConfig(name="bm25_only", channels=(_ch(Method.LEXICAL),))
DENSE_ONLY = SearchConfig(name="dense_only", channels=(_ch(Method.DENSE),))
HYBRID_RRF = SearchConfig(
    name="hybrid_rrf",
    channels=(
        _ch(Method.LEXICAL),
        _ch(Method.LEXICAL, DocField.CONTEXT),
        _ch(Method.DENSE),
        _ch(Method.DENSE, DocField.CONTEXT),
    ),
)
HYBRID = SearchConfig(
    name="hybrid",
    channels=(
        _ch(Method.LEXICAL),
        _ch(Method.LEXICAL, DocField.CONTEXT, weight=2.0),
        _ch(Method.DENSE),
        _ch(Method.DENSE, DocField.CONTEXT),
    ),
    rrf_k=10,
    speaker_boost=2.0,
)
"""The default: BM25 and dense over each turn and over its neighbour window, RRF with a small
k (top ranks count), the window's BM25 list weighted double, and a 2x boost for turns whose
speaker the query names. Round values chosen from a small grid on development conversations
only (benchmarks/search/ has the recall benchmark; the CHANGELOG has the figures); recall
changes little for a boost near 2."""
HYBRID_WEIGHTED = HYBRID_RRF.model_copy(update={"name": "hybrid_weighted", "fusion": "weighted"})

PRESETS: dict[str, SearchConfig] = {
    c.name: c for c in (BM25_ONLY, DENSE_ONLY, HYBRID_RRF, HYBRID_WEIGHTED, HYBRID)
}
DEFAULT = HYBRID


def preset(name: str) -> SearchConfig:
    """The preset called ``name``; ValueError listing the known names otherwise."""
    try:
        return PRESETS[name]
    except KeyError:
        raise ValueError(f"unknown search preset {name!r}; known: {sorted(PRESETS)}") from None
