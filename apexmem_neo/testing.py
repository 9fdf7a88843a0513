"""Deterministic, strict fakes for unit tests (no model, no service).

``HashingEmbedder`` maps each analysed term to a fixed random unit vector (drawn from a local
``random.Random`` seeded by the term and the seed) and sums them: texts sharing words get
similar vectors. Strict: it raises on texts with no term it knows when a vocabulary is given.
"""

from __future__ import annotations

import hashlib
import math
import random
from collections.abc import Iterable, Sequence

from apexmem_neo.search.text import analyze


class UnknownInputError(AssertionError):
    """A strict fake was given input it was not told about."""


class HashingEmbedder:
    """Bag-of-hashed-terms embedder; ``vocabulary`` (if given) makes unknown terms an error."""

    def __init__(
        self,
        dimensions: int = 32,
        seed: int = 0,
        vocabulary: Iterable[str] | None = None,
        max_tokens: int = 64,
    ) -> None:
        self._dimensions = dimensions
        self._seed = seed
        self._max_tokens = max_tokens
        self._vocabulary = (
            None if vocabulary is None else {t for text in vocabulary for t in analyze(text)}
        )
        self.calls: list[list[str]] = []

    @property
    def name(self) -> str:
        return f"hashing-{self._dimensions}-{self._seed}"

    @property
    def dimensions(self) -> int:
        return self._dimensions

    @property
    def max_tokens(self) -> int:
        return self._max_tokens

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def truncate(self, text: str) -> str:
        return " ".join(text.split()[: self._max_tokens])

    def _term_vector(self, term: str) -> list[float]:
        digest = hashlib.sha256(f"{self._seed}:{term}".encode()).digest()
        rng = random.Random(int.from_bytes(digest[:8], "big"))
        return [rng.gauss(0.0, 1.0) for _ in range(self._dimensions)]

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.calls.append(list(texts))
        return [self._embed_one(text) for text in texts]

    def _embed_one(self, text: str) -> list[float]:
        terms = analyze(text)
        if self._vocabulary is not None:
            unknown = [t for t in terms if t not in self._vocabulary]
            if unknown or not terms:
                raise UnknownInputError(f"HashingEmbedder does not know {unknown or text!r}")
        total = [0.0] * self._dimensions
        for term in terms or [text]:
            for i, value in enumerate(self._term_vector(term)):
                total[i] += value
        norm = math.sqrt(sum(v * v for v in total)) or 1.0
        return [v / norm for v in total]
