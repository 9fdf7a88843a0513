"""The ONNX runtime of the local embedder: the packaged MiniLM exported once, its vectors and
token counts the torch runtime's, the runtime choice, and a search process without torch."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from apexmem_neo.memory import Memory
from apexmem_neo.search.embedder import (
    OnnxEmbedder,
    SentenceTransformerEmbedder,
    local_embedder,
    make_embedder,
)
from apexmem_neo.search.onnx_embedder import onnx_path, read_layout
from apexmem_neo.search.packaged_models import MINILM, EmbedderError, resolve_model

TEXTS = [
    "When did Caroline go to the support group?",
    "Caroline: I went to an LGBTQ support group yesterday. " * 40,  # past the window
    "ok",
]


@pytest.fixture(scope="module")
def models_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("models")


@pytest.fixture(scope="module")
def onnx_minilm(models_dir: Path) -> OnnxEmbedder:
    embedder = local_embedder(MINILM, models_dir, runtime="onnx")
    assert isinstance(embedder, OnnxEmbedder)
    return embedder


def test_the_export_gives_torchs_vectors(onnx_minilm: OnnxEmbedder, models_dir: Path) -> None:
    torch_minilm = SentenceTransformerEmbedder(MINILM, models_dir=models_dir)
    got, expected = np.array(onnx_minilm.embed(TEXTS)), np.array(torch_minilm.embed(TEXTS))
    assert got.shape == expected.shape == (3, 384)
    assert (got * expected).sum(axis=1).min() > 0.9999
    assert np.allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)
    assert onnx_minilm.name == torch_minilm.name == MINILM  # one model, one cache key
    assert onnx_minilm.dimensions == 384 and onnx_minilm.max_tokens == 256
    for text in TEXTS:
        assert onnx_minilm.count_tokens(text) == torch_minilm.count_tokens(text)
        assert onnx_minilm.truncate(text) == torch_minilm.truncate(text)


def test_the_export_is_kept_under_the_models_dir(
    onnx_minilm: OnnxEmbedder, models_dir: Path
) -> None:
    onnx_minilm.embed(["hello"])
    layout = read_layout(Path(resolve_model(MINILM, models_dir)))
    assert layout is not None and layout.pooling == "mean"
    kept = onnx_path(MINILM, layout, models_dir)
    assert kept.is_file() and kept.parent.parent == models_dir / "onnx"
    assert [p.name for p in kept.parent.iterdir()] == ["model.onnx"]  # no temporary left
    again = local_embedder(MINILM, models_dir, runtime="auto")
    assert isinstance(again, OnnxEmbedder)
    assert again.embed(["hello"]) == onnx_minilm.embed(["hello"])


def test_batches_keep_the_order_of_their_texts(onnx_minilm: OnnxEmbedder) -> None:
    texts = [f"{'long ' * (i % 7)}sentence {i}" for i in range(70)]
    one_by_one = [onnx_minilm.embed([t])[0] for t in texts[:5]]
    assert np.allclose(onnx_minilm.embed(texts)[:5], one_by_one, atol=1e-5)


def test_a_model_of_another_shape_runs_on_torch_or_is_refused(
    tmp_path: Path, models_dir: Path
) -> None:
    source = Path(resolve_model(MINILM, models_dir))
    dense = tmp_path / "with-dense"
    shutil.copytree(source, dense)
    modules = json.loads((dense / "modules.json").read_text())
    modules.append({"idx": 3, "name": "3", "path": "3_Dense",
                    "type": "sentence_transformers.models.Dense"})  # fmt: skip
    (dense / "modules.json").write_text(json.dumps(modules))
    assert read_layout(dense) is None
    assert isinstance(local_embedder(str(dense), models_dir), SentenceTransformerEmbedder)
    with pytest.raises(EmbedderError, match="APEXMEM_EMBED_RUNTIME=torch"):
        local_embedder(str(dense), models_dir, runtime="onnx")
    with pytest.raises(EmbedderError, match="unknown embedding runtime 'tensorflow'"):
        local_embedder(MINILM, models_dir, runtime="tensorflow")  # type: ignore[arg-type]


def test_the_runtime_is_a_memory_option(tmp_path: Path, models_dir: Path) -> None:
    chosen = make_embedder(MINILM, models_dir=models_dir, cache_path=None, runtime="torch")
    assert isinstance(chosen, SentenceTransformerEmbedder)
    with Memory.sqlite(
        tmp_path / "m.sqlite",
        home=tmp_path,
        lm=None,
        embedder=MINILM,
        models_dir=models_dir,
        embed_runtime="onnx",
    ) as memory:
        memory.add({"role": "user", "content": "I moved to Lisbon."}, scope="s", extract=False)
        assert memory.search("Lisbon", scope="s", k=1).turns


SEARCH_WITHOUT_TORCH = """
import sys
from apexmem_neo.memory import Memory
with Memory.sqlite(sys.argv[1], home=sys.argv[2], lm=None, embedder=sys.argv[3],
                   models_dir=sys.argv[4]) as memory:
    memory.add({"role": "user", "content": "I moved to Lisbon."}, scope="s", extract=False)
    assert memory.search("Where do I live?", scope="s", k=1).turns
print(sorted(m for m in ("torch", "transformers", "sentence_transformers") if m in sys.modules))
"""


def test_a_process_that_adds_and_searches_never_imports_torch(
    tmp_path: Path, onnx_minilm: OnnxEmbedder, models_dir: Path
) -> None:
    onnx_minilm.embed(["exported"])  # the one-time export needs torch; later processes do not
    done = subprocess.run(
        [sys.executable, "-c", SEARCH_WITHOUT_TORCH, str(tmp_path / "m.sqlite"), str(tmp_path),
         MINILM, str(models_dir)],
        capture_output=True, text=True, timeout=120, env={**os.environ, "HF_HUB_OFFLINE": "1"},
        check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
