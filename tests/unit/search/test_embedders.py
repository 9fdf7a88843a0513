"""Embedders: the hashing fake, the on-disk cache, and the real MiniLM (packaged, offline)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from apexmem_neo.search.embedder import CachedEmbedder, SentenceTransformerEmbedder, resolve_model
from apexmem_neo.testing import HashingEmbedder, UnknownInputError


def cos(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


def test_hashing_embedder_is_deterministic_and_unit_length() -> None:
    one, two = HashingEmbedder(seed=3), HashingEmbedder(seed=3)
    va, vb = one.embed(["red apples"])[0], two.embed(["red apples"])[0]
    assert va == vb and math.isclose(sum(x * x for x in va), 1.0)
    near, far = one.embed(["red apple pie", "blue whale"])
    assert cos(va, near) > cos(va, far)
    assert HashingEmbedder(seed=4).embed(["red apples"])[0] != va


def test_strict_hashing_embedder_rejects_unknown_words() -> None:
    strict = HashingEmbedder(vocabulary=["red apples"])
    strict.embed(["apple"])
    with pytest.raises(UnknownInputError, match="pear"):
        strict.embed(["red pear"])


def test_cache_calls_the_model_once_per_text(tmp_path: Path) -> None:
    inner = HashingEmbedder()
    cached = CachedEmbedder(inner, tmp_path / "cache.db")
    first = cached.embed(["a cat", "a dog", "a cat"])
    assert inner.calls == [["a cat", "a dog"]]
    cached.close()
    again = CachedEmbedder(inner, tmp_path / "cache.db")
    assert again.embed(["a dog", "a cat"]) == [first[1], first[0]]
    assert inner.calls == [["a cat", "a dog"]]
    other_model = CachedEmbedder(HashingEmbedder(seed=9), tmp_path / "cache.db")
    assert other_model.embed(["a cat"]) != [first[0]]
    again.close()
    other_model.close()


def test_unknown_model_name_is_passed_through() -> None:
    assert resolve_model("/models/bge-small") == "/models/bge-small"
    assert Path(resolve_model("all-MiniLM-L6-v2")).exists()


@pytest.fixture(scope="module")
def minilm() -> SentenceTransformerEmbedder:
    return SentenceTransformerEmbedder()


def test_minilm_embeds_offline(minilm: SentenceTransformerEmbedder) -> None:
    assert minilm.dimensions == 384 and minilm.max_tokens == 256
    query, near, far = minilm.embed(
        [
            "When did Caroline go to the support group?",
            "Caroline: I went to an LGBTQ support group yesterday.",
            "Melanie: We went camping with the kids.",
        ]
    )
    assert math.isclose(sum(x * x for x in query), 1.0, rel_tol=1e-4)
    assert cos(query, near) > cos(query, far)


def test_minilm_truncates_to_its_window(minilm: SentenceTransformerEmbedder) -> None:
    long = "word " * 1000
    assert minilm.count_tokens(long) > 256
    assert minilm.count_tokens(minilm.truncate(long)) <= 256
