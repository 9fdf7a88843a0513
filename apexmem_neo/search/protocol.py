"""The SearchIndex and Embedder protocols and the value types they exchange.

A backend stores documents with their analysed terms and vectors, and answers batches of
single-channel requests (lexical BM25 or dense cosine over one field, with filters). Query
analysis, embedding, fusion and grouping live outside the backends (``engine.py``), written
once, so code outside a backend never asks which backend it runs on.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol, TypeAlias, runtime_checkable

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, ConfigDict, Field

from apexmem_neo.errors import REBUILD_COMMAND as REBUILD_COMMAND
from apexmem_neo.errors import EmbedderMismatchError as EmbedderMismatchError
from apexmem_neo.errors import EmptyQueryError as EmptyQueryError
from apexmem_neo.errors import MissingScopeError as MissingScopeError
from apexmem_neo.errors import SearchError as SearchError
from apexmem_neo.errors import UnscopedIndexError as UnscopedIndexError
from apexmem_neo.search.config import DocField, Method
from apexmem_neo.search.documents import DocKind, SearchDocument

Vector: TypeAlias = npt.NDArray[np.float32]

EmbedRuntime: TypeAlias = Literal["auto", "onnx", "torch"]
"""How a local embedding model runs: ONNX Runtime, torch, or auto (ONNX when it can)."""
EMBED_RUNTIMES: tuple[EmbedRuntime, ...] = ("auto", "onnx", "torch")


EmbedderInfo: TypeAlias = tuple[str, int]
"""An embedder's identity as an index records it: model name ("" when unknown), dimensions."""


def reconcile_embedder(
    where: str, stored: EmbedderInfo | None, given: EmbedderInfo, rebuild: str = REBUILD_COMMAND
) -> bool:
    """Raise ``EmbedderMismatchError`` unless an index that recorded ``stored`` can serve the
    embedder ``given``; return whether the index must write ``given`` as its record.

    A record without a name (an index of an older version) adopts the given name; a given
    name "" (a caller that knows only the vector size) is checked on dimensions alone.
    """
    if stored is None:
        return True
    (stored_name, stored_dims), (name, dims) = stored, given
    if stored_dims != dims or (stored_name and name and stored_name != name):
        raise EmbedderMismatchError(where, stored, given, rebuild)
    return bool(name) and not stored_name


@dataclass(frozen=True, slots=True)
class Hit:
    """One ranked document id with its score (higher is better)."""

    doc_id: str
    score: float


class SearchFilters(BaseModel):
    """Restrictions every channel applies. ``None`` means no restriction on that field.

    The time range is closed, ISO strings compared as strings (the store's convention).
    ``scope`` is a wall, not a preference: ``HybridSearch`` refuses a search without one.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    scope: str | None = Field(default=None, min_length=1)
    kinds: tuple[DocKind, ...] | None = None
    conversation_ids: tuple[str, ...] | None = None
    session_ids: tuple[str, ...] | None = None
    speakers: tuple[str, ...] | None = None
    time_from: str | None = None
    time_to: str | None = None

    def with_kind(self, kind: DocKind) -> SearchFilters:
        return self.model_copy(update={"kinds": (kind,)})

    def admits(self, doc: SearchDocument) -> bool:
        """The reference semantics that every backend's filter translation implements."""
        checks = (
            self.scope is None or doc.scope == self.scope,
            self.kinds is None or doc.kind in self.kinds,
            self.conversation_ids is None or doc.conversation_id in self.conversation_ids,
            self.session_ids is None or doc.session_id in self.session_ids,
            self.speakers is None or doc.speaker in self.speakers,
            self.time_from is None or (doc.time is not None and doc.time >= self.time_from),
            self.time_to is None or (doc.time is not None and doc.time <= self.time_to),
        )
        return all(checks)


@dataclass(frozen=True)
class IndexedDocument:
    """A document as a backend stores it: analysed terms and unit float32 vectors per field."""

    doc: SearchDocument
    text_terms: str
    context_terms: str
    text_vector: Vector
    context_vector: Vector

    @property
    def doc_id(self) -> str:
        return self.doc.doc_id

    def server_fields(self) -> dict[str, str | None]:
        """What a search server stores beside the vectors: the filter fields and the terms."""
        doc = self.doc
        return {
            "scope": doc.scope,
            "kind": doc.kind.value,
            "conversation_id": doc.conversation_id,
            "session_id": doc.session_id,
            "speaker": doc.speaker,
            "time": doc.time,
            "text_terms": self.text_terms,
            "context_terms": self.context_terms,
        }


def per_kind_vector_name(kind: DocKind, field: DocField) -> str:
    """The field (Elasticsearch) or property (Neo4j) holding ``field``'s vector for documents
    of ``kind``. Each kind has its own vectors, so each kind gets its own HNSW graph and a
    kind-filtered kNN never walks the other kinds' nodes."""
    return f"{kind.value}_{field.value}_vector"


@dataclass(frozen=True)
class ChannelRequest:
    """One ranked list to compute: lexical (``terms``) or dense (``vector``) over ``field``."""

    method: Method
    field: DocField
    k: int
    filters: SearchFilters = dataclasses.field(default_factory=SearchFilters)
    terms: tuple[str, ...] = ()
    vector: tuple[float, ...] = ()
    num_candidates: int = 200

    def __post_init__(self) -> None:
        if self.k < 1:
            raise ValueError(f"k must be at least 1, not {self.k}")


@runtime_checkable
class SearchIndex(Protocol):
    """A document index with BM25 and cosine kNN over the fields ``text`` and ``context``.

    Constructors do no I/O; ``create()`` makes the index (idempotent) for vectors of
    ``dimensions`` from the model named ``embedder`` and records both; on an existing index it
    raises ``EmbedderMismatchError`` when they differ from the record (see
    ``reconcile_embedder``). ``embedder_info`` is that record, None before ``create()``;
    ``drop()`` removes it with the documents. ``upsert`` replaces documents by ``doc_id``
    (re-indexing is idempotent); it may be given a stream, and what it wrote is searchable
    when it returns. ``retrieve`` answers each request with at most ``k`` hits, best first,
    among the documents its filters admit; a scope filter holds in every channel and still
    yields ``k`` hits of the scope when other scopes hold most documents. ``create()`` on an
    index written before scopes migrates its documents to the scope ``default`` or raises
    ``UnscopedIndexError`` naming the rebuild command.
    ``optimize`` readies an index that was just bulk-loaded for fast reads (Elasticsearch:
    force-merge to one segment, so each kNN request walks one HNSW graph per kind instead of
    one per segment); it may take minutes on a large index and changes no result.
    ``delete_documents`` erases a scope's documents whose ``graph_id`` is in ``graph_ids``
    (every document of the scope when None) and returns them as they were stored, text and
    context included, so the caller can purge what else was derived from them (cached
    vectors). Erased means removed from what the backend stores, not only hidden from
    results (each backend's docstring says how far its storage allows); no search finds them
    when it returns. A scope or an id with no documents erases nothing and returns ``[]``.
    """

    def create(self, dimensions: int, embedder: str = "") -> None: ...

    def embedder_info(self) -> EmbedderInfo | None: ...

    def upsert(self, docs: Iterable[IndexedDocument]) -> int: ...

    def retrieve(self, requests: Sequence[ChannelRequest]) -> list[list[Hit]]: ...

    def get(self, doc_ids: Sequence[str]) -> dict[str, SearchDocument]: ...

    def optimize(self) -> None: ...

    def delete_documents(
        self, scope: str, graph_ids: Collection[str] | None = None
    ) -> list[SearchDocument]: ...

    def count(self) -> int: ...

    def drop(self) -> None: ...

    def close(self) -> None: ...


@runtime_checkable
class Embedder(Protocol):
    """Text -> unit-length vectors. ``name`` identifies the model (it keys the cache)."""

    @property
    def name(self) -> str: ...

    @property
    def dimensions(self) -> int: ...

    @property
    def max_tokens(self) -> int: ...

    def embed(self, texts: Sequence[str]) -> list[list[float]]: ...

    def count_tokens(self, text: str) -> int: ...

    def truncate(self, text: str) -> str: ...


@runtime_checkable
class ForgetfulEmbedder(Embedder, Protocol):
    """An embedder that keeps what it computed (an on-disk cache of vectors) and can erase the
    entries of given texts: ``forget`` returns how many it deleted. ``HybridSearch.forget``
    calls it with the texts of the documents it erases."""

    def forget(self, texts: Iterable[str]) -> int: ...
