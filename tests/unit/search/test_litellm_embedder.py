"""LiteLLMEmbedder against a real OpenAI-compatible HTTP server on 127.0.0.1, and make_embedder."""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from apexmem_neo.search.embedder import (
    CachedEmbedder,
    EmbedderError,
    LiteLLMEmbedder,
    OnnxEmbedder,
    SentenceTransformerEmbedder,
    make_embedder,
)
from apexmem_neo.search.protocol import Embedder
from apexmem_neo.testing import HashingEmbedder
from tests.openai_stub_server import EMBEDDINGS_PATH, OpenAIStubServer, stub_vector

# LiteLLM fetches its model cost map from the network at import unless told not to.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

KEY = "sk-test-key"


@pytest.fixture
def stub() -> Iterator[OpenAIStubServer]:
    with OpenAIStubServer(dimensions=16) as server:
        yield server


def embedder_for(stub: OpenAIStubServer, **kwargs: int) -> LiteLLMEmbedder:
    return LiteLLMEmbedder("openai/stub-embed", api_base=stub.url, api_key=KEY, **kwargs)


def test_vectors_are_unit_length_with_the_servers_dimension(stub: OpenAIStubServer) -> None:
    texts = ["red apples", "a blue whale", "red apples"]
    vectors = embedder_for(stub).embed(texts)
    assert [len(v) for v in vectors] == [16, 16, 16]
    assert np.allclose(np.linalg.norm(np.asarray(vectors), axis=1), 1.0, atol=1e-6)
    expected = stub_vector("a blue whale", 16)
    assert np.allclose(vectors[1], expected / np.linalg.norm(expected), atol=1e-6)
    assert vectors[0] == vectors[2] != vectors[1]


def test_request_carries_the_bare_model_name_and_the_key(stub: OpenAIStubServer) -> None:
    embedder_for(stub).embed(["hello"])
    (request,) = stub.requests
    assert request.path == EMBEDDINGS_PATH
    assert request.body["model"] == "stub-embed"
    assert request.authorization == f"Bearer {KEY}"


def test_a_batch_is_one_request_and_batch_size_splits_it(stub: OpenAIStubServer) -> None:
    texts = [f"text {i}" for i in range(5)]
    whole = embedder_for(stub).embed(texts)
    assert len(stub.requests) == 1 and stub.requests[0].body["input"] == texts
    split = embedder_for(stub, batch_size=2).embed(texts)
    assert [r.body["input"] for r in stub.requests[1:]] == [texts[:2], texts[2:4], texts[4:]]
    assert split == whole
    assert embedder_for(stub).embed([]) == [] and len(stub.requests) == 4


def test_dimensions_are_probed_once_or_taken_as_given(stub: OpenAIStubServer) -> None:
    probed = embedder_for(stub)
    assert probed.dimensions == 16 and probed.dimensions == 16
    assert len(stub.requests) == 1
    declared = embedder_for(stub, dimensions=16)
    assert declared.dimensions == 16 and len(stub.requests) == 1
    assert len(declared.embed(["text"])[0]) == 16
    assert "dimensions" not in stub.requests[-1].body
    wrong = embedder_for(stub, dimensions=8)
    with pytest.raises(EmbedderError, match="vectors of 16 dimensions, not 8"):
        wrong.embed(["text"])


def test_name_tokens_and_truncation(stub: OpenAIStubServer) -> None:
    embedder = embedder_for(stub, max_tokens=3)
    assert embedder.name == "openai/stub-embed" and embedder.max_tokens == 3
    assert embedder.count_tokens("one two three four five") > 0
    assert embedder.truncate("abcdefghijklmnopqrstuvwxyz") == "abcdefghijkl"
    assert stub.requests == []


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_a_server_that_is_not_listening_gives_one_line() -> None:
    base = f"http://127.0.0.1:{free_port()}/v1"
    embedder = LiteLLMEmbedder("openai/stub-embed", api_base=base, api_key=KEY)
    with pytest.raises(EmbedderError) as info:
        embedder.embed(["hello"])
    message = str(info.value)
    assert message.startswith(f"embedding model 'openai/stub-embed' at {base}: ")
    assert "\n" not in message


def test_make_embedder_picks_the_class(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    hosted = make_embedder("openai/x", models_dir=tmp_path, cache_path=None, api_base="http://h")
    assert isinstance(hosted, LiteLLMEmbedder) and hosted.name == "openai/x"
    local = make_embedder("all-MiniLM-L6-v2", models_dir=tmp_path, cache_path=None)
    assert isinstance(local, OnnxEmbedder) and local.name == "all-MiniLM-L6-v2"
    on_torch = make_embedder("all-MiniLM-L6-v2", models_dir=tmp_path, cache_path=None,
                             runtime="torch")  # fmt: skip
    assert isinstance(on_torch, SentenceTransformerEmbedder)
    given: Embedder = HashingEmbedder()
    assert make_embedder(given, models_dir=tmp_path, cache_path=tmp_path / "c.db") is given
    monkeypatch.chdir(tmp_path)
    (tmp_path / "openai" / "x").mkdir(parents=True)  # a local model directory wins
    assert isinstance(  # not a sentence-transformers layout ONNX runs: torch's
        make_embedder("openai/x", models_dir=None, cache_path=None), SentenceTransformerEmbedder
    )


def test_make_embedder_caches_named_models(stub: OpenAIStubServer, tmp_path: Path) -> None:
    cached = make_embedder(
        "openai/stub-embed", models_dir=None, cache_path=tmp_path / "c.db", api_base=stub.url,
        api_key=KEY,
    )  # fmt: skip
    assert isinstance(cached, CachedEmbedder) and cached.name == "openai/stub-embed"
    first = cached.embed(["a cat", "a dog"])
    assert cached.embed(["a dog", "a cat"]) == [first[1], first[0]]
    assert len(stub.requests) == 1
    cached.close()
