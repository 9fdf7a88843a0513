"""Fusion, text analysis and configuration: pure functions, no index."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from apexmem_neo.search import fusion
from apexmem_neo.search.config import PRESETS, Channel, Method, SearchConfig, preset
from apexmem_neo.search.protocol import Hit
from apexmem_neo.search.text import analyze, analyzed_string, query_terms


def hits(*ids: str) -> list[Hit]:
    return [Hit(doc_id=d, score=float(len(ids) - i)) for i, d in enumerate(ids)]


def test_rrf_sums_reciprocal_ranks() -> None:
    fused = fusion.rrf([hits("a", "b"), hits("b", "c")], [1.0, 1.0], k=60)
    assert [h.doc_id for h in fused] == ["b", "a", "c"]
    assert fused[0].score == pytest.approx(1 / 62 + 1 / 61)


def test_rrf_weights_and_ties_break_by_id() -> None:
    fused = fusion.rrf([hits("a"), hits("b")], [1.0, 1.0])
    assert [h.doc_id for h in fused] == ["a", "b"]
    heavy = fusion.rrf([hits("a"), hits("b")], [1.0, 3.0])
    assert [h.doc_id for h in heavy] == ["b", "a"]


def test_weighted_normalises_each_list() -> None:
    big = [Hit(doc_id="a", score=100.0), Hit(doc_id="b", score=50.0)]
    small = [Hit(doc_id="b", score=0.9), Hit(doc_id="c", score=0.1)]
    fused = fusion.weighted([big, small], [1.0, 1.0])
    assert [(h.doc_id, h.score) for h in fused] == [("a", 1.0), ("b", 1.0), ("c", 0.0)]
    single = fusion.weighted([[Hit(doc_id="x", score=3.0)], []], [0.5, 1.0])
    assert single == [Hit(doc_id="x", score=0.5)]


def test_fusion_checks_weights() -> None:
    with pytest.raises(ValueError, match="weights"):
        fusion.rrf([hits("a")], [1.0, 2.0])


def test_analysis_stems_drops_stop_words_and_possessives() -> None:
    assert analyze("What did Caroline's friends paint?") == ["carolin", "friend", "paint"]
    assert analyzed_string("Painting PAINTED paints") == "paint paint paint"
    assert query_terms("paint painted painting Melanie") == ["paint", "melani"]
    assert analyze("  ") == [] and analyze("the of and") == []


def test_presets_and_validation() -> None:
    assert {"bm25_only", "dense_only", "hybrid_rrf", "hybrid_weighted", "hybrid"} <= set(PRESETS)
    assert preset("bm25_only").channels == (Channel(method=Method.LEXICAL),)
    with pytest.raises(ValueError, match="unknown search preset 'nope'"):
        preset("nope")
    with pytest.raises(ValidationError):
        SearchConfig(channels=())
    with pytest.raises(ValidationError):
        SearchConfig(channels=(Channel(method=Method.DENSE, weight=0),))
