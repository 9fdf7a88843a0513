"""Fusion of ranked lists, written once for every backend: RRF and weighted score sums."""

from __future__ import annotations

from collections.abc import Sequence

from apexmem_neo.search.protocol import Hit


def rrf(lists: Sequence[Sequence[Hit]], weights: Sequence[float], k: int = 60) -> list[Hit]:
    """Reciprocal rank fusion: score(d) = sum over lists of weight / (k + rank), rank from 1."""
    _check(lists, weights)
    scores: dict[str, float] = {}
    for hits, weight in zip(lists, weights, strict=True):
        for rank, hit in enumerate(hits, start=1):
            scores[hit.doc_id] = scores.get(hit.doc_id, 0.0) + weight / (k + rank)
    return _ranked(scores)


def weighted(lists: Sequence[Sequence[Hit]], weights: Sequence[float]) -> list[Hit]:
    """Weighted sum of per-list min-max normalised scores (a list's best hit scores 1)."""
    _check(lists, weights)
    scores: dict[str, float] = {}
    for hits, weight in zip(lists, weights, strict=True):
        if not hits:
            continue
        top = max(h.score for h in hits)
        low = min(h.score for h in hits)
        span = top - low
        for hit in hits:
            norm = (hit.score - low) / span if span > 0 else 1.0
            scores[hit.doc_id] = scores.get(hit.doc_id, 0.0) + weight * norm
    return _ranked(scores)


def _check(lists: Sequence[Sequence[Hit]], weights: Sequence[float]) -> None:
    if len(lists) != len(weights):
        raise ValueError(f"{len(lists)} ranked lists but {len(weights)} weights")


def _ranked(scores: dict[str, float]) -> list[Hit]:
    # Ties break by doc_id so every backend returns the same order for the same scores.
    ordered = sorted(scores.items(), key=lambda item: (-item[1], item[0]))
    return [Hit(doc_id=doc_id, score=score) for doc_id, score in ordered]
