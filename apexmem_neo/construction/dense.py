"""Dense top-k candidates for resolution, from the search layer's embedder.

``CatalogDenseSource`` implements ``CandidateSource`` over the resolution catalogs
themselves: entity names (with aliases and type) and property names are embedded the first
time they are seen and kept as one normalised float32 matrix per kind, so a lookup is one
query embedding plus a matrix product. It reads the catalogs live, so entities proposed
earlier in the same run are candidates for later mentions (this is what catches
"Mel" ~ "Melanie's mom" style paraphrases that fuzzy matching misses).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from apexmem_neo.construction.candidates import CandidateKind, EntityCatalog, PropertyCatalog
from apexmem_neo.search.protocol import Embedder


@dataclass
class _Matrix:
    """Keys and their unit-length embeddings, grown in place."""

    keys: list[str] = field(default_factory=list)
    vectors: NDArray[np.float32] | None = None

    def extend(self, keys: list[str], vectors: NDArray[np.float32]) -> None:
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        unit = vectors / np.maximum(norms, 1e-12)
        self.vectors = unit if self.vectors is None else np.vstack([self.vectors, unit])
        self.keys.extend(keys)


class CatalogDenseSource:
    """Cosine top-k over the catalogs' entity and property names (see module docstring)."""

    def __init__(
        self, embedder: Embedder, entities: EntityCatalog, properties: PropertyCatalog
    ) -> None:
        self.embedder = embedder
        self.entities = entities
        self.properties = properties
        self._matrices: dict[CandidateKind, _Matrix] = {"entity": _Matrix(), "property": _Matrix()}
        self._texts: dict[CandidateKind, dict[str, str]] = {"entity": {}, "property": {}}

    def _current_texts(self, kind: CandidateKind) -> dict[str, str]:
        if kind == "property":
            return {name: name.replace("_", " ") for name in self.properties.properties}
        return {
            entity_id: " / ".join((e.name, *e.aliases))
            for entity_id, e in self.entities.entities.items()
        }

    def _refresh(self, kind: CandidateKind) -> _Matrix:
        """Embed what is new or changed (an entity gaining an alias is re-embedded)."""
        matrix, seen = self._matrices[kind], self._texts[kind]
        fresh = {k: t for k, t in self._current_texts(kind).items() if seen.get(k) != t}
        if fresh:
            vectors = np.asarray(self.embedder.embed(list(fresh.values())), dtype=np.float32)
            matrix.extend(list(fresh), vectors)
            seen.update(fresh)
        return matrix

    def nearest(self, text: str, kind: CandidateKind, k: int) -> list[tuple[str, float]]:
        matrix = self._refresh(kind)
        if matrix.vectors is None or not text.strip():
            return []
        query = np.asarray(self.embedder.embed([text])[0], dtype=np.float32)
        query /= max(float(np.linalg.norm(query)), 1e-12)
        scores = matrix.vectors @ query
        best: dict[str, float] = {}
        # A re-embedded key appears more than once; its latest row wins.
        for row, key in enumerate(matrix.keys):
            best[key] = float(scores[row])
        ranked = sorted(best.items(), key=lambda item: (-item[1], item[0]))
        return [(key, max(0.0, min(1.0, score))) for key, score in ranked[:k]]
