"""Embedders: sentence-transformers models (offline) and an on-disk cache for any embedder."""

from __future__ import annotations

import hashlib
import os
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from apexmem_neo.search.packaged_models import MPNET, EmbedderError, resolve_model
from apexmem_neo.search.protocol import Embedder
from apexmem_neo.settings import default_models_dir

DEFAULT_MODEL = MPNET.name
"""all-mpnet-base-v2, unpacked from the PyPI packages that carry it. On the LOCOMO dev
conversations it lifts hybrid turn recall@10 from 0.784 (all-MiniLM-L6-v2) to 0.803; it embeds
about 7x slower (46 vs 346 texts/s here), which ingestion hides behind its LLM calls.
MiniLM stays available by name."""

__all__ = [
    "DEFAULT_MODEL",
    "CachedEmbedder",
    "EmbedderError",
    "SentenceTransformerEmbedder",
    "resolve_model",
]


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
                from sentence_transformers import SentenceTransformer

                path = resolve_model(self._model_name, self._models_dir)
                try:
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


class CachedEmbedder:
    """Wraps an embedder with an SQLite cache keyed by (model name, sha256 of the text).

    Re-indexing the same documents then costs lookups, not model calls.
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
            self._conn = sqlite3.connect(self._path, check_same_thread=False)
            self._conn.execute(
                "CREATE TABLE IF NOT EXISTS embeddings (model TEXT NOT NULL, "
                "text_hash TEXT NOT NULL, vector BLOB NOT NULL, PRIMARY KEY (model, text_hash))"
            )
        return self._conn

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        keys = [hashlib.sha256(t.encode("utf-8")).hexdigest() for t in texts]
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

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None
