"""Embedders: the hashing fake, the on-disk cache, the real MiniLM and mpnet (packaged, offline)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from apexmem_neo.search.embedder import DEFAULT_MODEL, CachedEmbedder, SentenceTransformerEmbedder
from apexmem_neo.search.packaged_models import (
    MINILM,
    MPNET,
    EmbedderError,
    SplitZipModel,
    resolve_model,
    unpack,
)
from apexmem_neo.settings import Settings
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


def test_settings_default_model_is_the_search_default() -> None:
    assert Settings().embed_model == DEFAULT_MODEL == MPNET.name


def test_unknown_model_name_is_passed_through() -> None:
    assert resolve_model("/models/bge-small", Path("/unused")) == "/models/bge-small"
    assert Path(resolve_model("all-MiniLM-L6-v2", Path("/unused"))).exists()


@pytest.fixture(scope="module")
def minilm() -> SentenceTransformerEmbedder:
    return SentenceTransformerEmbedder(MINILM)


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


def test_loading_a_model_prints_no_progress_bar(capfd: pytest.CaptureFixture[str]) -> None:
    from transformers.utils import logging as transformers_logging

    SentenceTransformerEmbedder(MINILM).embed(["hello"])
    assert "Loading weights" not in capfd.readouterr().err
    assert transformers_logging.is_progress_bar_enabled()  # the caller's setting is restored


def test_minilm_truncates_to_its_window(minilm: SentenceTransformerEmbedder) -> None:
    long = "word " * 1000
    assert minilm.count_tokens(long) > 256
    assert minilm.count_tokens(minilm.truncate(long)) <= 256


def test_split_model_without_its_packages_names_them(tmp_path: Path) -> None:
    model = SplitZipModel("toy-model", ("apexmem-no-such-part-001",), zip_sha256="0" * 64)
    with pytest.raises(EmbedderError, match="apexmem-no-such-part-001.*APEXMEM_EMBED_MODEL"):
        unpack(model, tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_split_model_with_wrong_checksum_leaves_nothing(tmp_path: Path) -> None:
    corrupt = SplitZipModel(MPNET.name, MPNET.distributions, zip_sha256="0" * 64)
    with pytest.raises(EmbedderError, match="sha256"):
        unpack(corrupt, tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_mpnet_unpacks_from_its_pypi_pieces_and_embeds(tmp_path: Path) -> None:
    path = Path(resolve_model("sentence-transformers/all-mpnet-base-v2", tmp_path))
    assert path == tmp_path / "all-mpnet-base-v2" and (path / "model.safetensors").exists()
    assert resolve_model("all-mpnet-base-v2", tmp_path) == str(path)  # unpacked once
    mpnet = SentenceTransformerEmbedder("all-mpnet-base-v2", models_dir=tmp_path)
    assert mpnet.dimensions == 768
    query, near, far = mpnet.embed(
        [
            "When did Caroline go to the support group?",
            "Caroline: I went to an LGBTQ support group yesterday.",
            "Melanie: We went camping with the kids.",
        ]
    )
    assert cos(query, near) > cos(query, far)
