"""Hybrid search over any SearchIndex: analyse, embed, ask each channel, fuse, group by kind.

Every search runs inside one scope: ``filters.scope`` is required (``MissingScopeError``
otherwise), every backend applies it in every channel, and hits are checked against it once
more before they are returned.
"""

from __future__ import annotations

import warnings
from collections import OrderedDict
from collections.abc import Collection, Iterator, Sequence

import numpy as np
from pydantic import BaseModel, ConfigDict

from apexmem_neo.search import fusion
from apexmem_neo.search.config import DEFAULT, Method, SearchConfig
from apexmem_neo.search.documents import ALL_KINDS, DocKind, SearchDocument
from apexmem_neo.search.protocol import (
    ChannelRequest,
    Embedder,
    EmptyQueryError,
    ForgetfulEmbedder,
    Hit,
    IndexedDocument,
    MissingScopeError,
    SearchFilters,
    SearchIndex,
)
from apexmem_neo.search.text import analyzed_string, query_terms

QUERY_CACHE_SIZE = 256


class QueryTruncatedWarning(UserWarning):
    """The query was longer than the embedding model's window and was cut for the dense part."""


class SearchHit(BaseModel):
    """A search result: the graph id it points at, its score and what it says."""

    model_config = ConfigDict(frozen=True)

    doc_id: str
    kind: DocKind
    graph_id: str
    score: float
    text: str
    title: str = ""
    speaker: str | None = None
    session_id: str | None = None
    time: str | None = None


class SearchResults(BaseModel):
    """The four groups the agent's Search tool shows, best first within each group."""

    query: str
    entities: list[SearchHit] = []
    properties: list[SearchHit] = []
    events: list[SearchHit] = []
    turns: list[SearchHit] = []
    hint: str | None = None
    """When nothing was found because the scope holds nothing: the scopes that do
    (``Memory.search`` fills it)."""

    @property
    def empty(self) -> bool:
        """No hit of any kind."""
        return not (self.entities or self.properties or self.events or self.turns)

    def group(self, kind: DocKind) -> list[SearchHit]:
        return {
            DocKind.ENTITY: self.entities,
            DocKind.PROPERTY: self.properties,
            DocKind.EVENT: self.events,
            DocKind.TURN: self.turns,
        }[kind]


class HybridSearch:
    """Search documents in ``index`` with ``embedder`` under ``config``; no I/O on construction."""

    def __init__(
        self, index: SearchIndex, embedder: Embedder, config: SearchConfig = DEFAULT
    ) -> None:
        self.index = index
        self.embedder = embedder
        self.config = config
        self._query_vectors: OrderedDict[str, tuple[float, ...]] = OrderedDict()

    def create(self) -> None:
        """Create the index for this embedder (idempotent); an index built with another
        embedder raises ``EmbedderMismatchError``."""
        self.index.create(self.embedder.dimensions, self.embedder.name)

    def index_documents(self, docs: Sequence[SearchDocument], batch_size: int = 512) -> int:
        """Embed (through the embedder's cache, if any), analyse and upsert ``docs``.

        Documents are embedded ``batch_size`` at a time and streamed into one ``upsert`` call,
        so a backend that refreshes after writing (Elasticsearch) refreshes once.
        """

        def prepared() -> Iterator[IndexedDocument]:
            for start in range(0, len(docs), batch_size):
                yield from self.prepare(docs[start : start + batch_size])

        return self.index.upsert(prepared())

    def prepare(self, docs: Sequence[SearchDocument]) -> list[IndexedDocument]:
        """Documents with analysed terms and vectors, as a backend stores them."""
        unique = list(dict.fromkeys(embedded_texts(docs)))
        vectors = dict(zip(unique, self.embedder.embed(unique), strict=True))
        return [
            IndexedDocument(
                doc=d,
                text_terms=analyzed_string(d.indexed_text),
                context_terms=analyzed_string(d.context_text),
                text_vector=np.asarray(vectors[d.indexed_text], dtype=np.float32),
                context_vector=np.asarray(vectors[d.context_text], dtype=np.float32),
            )
            for d in docs
        ]

    def forget(self, scope: str, graph_ids: Collection[str] | None = None) -> list[SearchDocument]:
        """Erase the scope's documents of ``graph_ids`` (every document of the scope when None)
        from the index, and their vectors from the embedder's cache when it keeps one; the
        erased documents. Recent query vectors are dropped too: a query may quote them."""
        erased = self.index.delete_documents(scope, graph_ids)
        if isinstance(self.embedder, ForgetfulEmbedder):
            self.embedder.forget(embedded_texts(erased))
        self._query_vectors.clear()
        return erased

    def rank(
        self, query: str, k: int = 10, filters: SearchFilters | None = None
    ) -> list[SearchHit]:
        """One fused ranking of the documents ``filters`` admits; ``filters.scope`` is
        required (``MissingScopeError`` otherwise)."""
        filters, scope = _scoped(filters)
        requests = self._requests(query, [filters])
        lists = self.index.retrieve(requests)
        (hits,) = self._fuse_groups(query, lists, 1, k, scope)
        return hits

    def search(
        self, query: str, k: int = 10, filters: SearchFilters | None = None
    ) -> SearchResults:
        """Top ``k`` of each kind (entities, properties, events/evidence, turns) of one scope:
        ``filters.scope`` is required (``MissingScopeError`` otherwise)."""
        filters, scope = _scoped(filters)
        kinds = filters.kinds or ALL_KINDS
        requests = self._requests(query, [filters.with_kind(kind) for kind in kinds])
        lists = self.index.retrieve(requests)
        results = SearchResults(query=query)
        fused = self._fuse_groups(query, lists, len(kinds), k, scope)
        for kind, hits in zip(kinds, fused, strict=True):
            results.group(kind).extend(hits)
        return results

    def _requests(self, query: str, filter_sets: list[SearchFilters]) -> list[ChannelRequest]:
        if not query or not query.strip():
            raise EmptyQueryError()
        terms = tuple(query_terms(query))
        vector: tuple[float, ...] = ()
        if any(ch.method is Method.DENSE for ch in self.config.channels):
            vector = self._query_vector(query)
        cfg = self.config
        return [
            ChannelRequest(
                method=ch.method,
                field=ch.field,
                k=cfg.depth,
                filters=filters,
                terms=terms if ch.method is Method.LEXICAL else (),
                vector=vector if ch.method is Method.DENSE else (),
                num_candidates=max(cfg.num_candidates, cfg.depth),
            )
            for filters in filter_sets
            for ch in cfg.channels
        ]

    def _query_vector(self, query: str) -> tuple[float, ...]:
        """The query's embedding, from a small LRU cache (agents repeat their searches)."""
        if query in self._query_vectors:
            self._query_vectors.move_to_end(query)
            return self._query_vectors[query]
        vector = tuple(self.embedder.embed([self._fit(query)])[0])
        self._query_vectors[query] = vector
        if len(self._query_vectors) > QUERY_CACHE_SIZE:
            self._query_vectors.popitem(last=False)
        return vector

    def _fit(self, query: str) -> str:
        tokens = self.embedder.count_tokens(query)
        if tokens <= self.embedder.max_tokens:
            return query
        warnings.warn(
            f"query has {tokens} tokens, more than the {self.embedder.max_tokens} of "
            f"{self.embedder.name}; the dense search uses only its start",
            QueryTruncatedWarning,
            stacklevel=3,
        )
        return self.embedder.truncate(query)

    def _fuse_groups(
        self, query: str, lists: Sequence[Sequence[Hit]], groups: int, k: int, scope: str
    ) -> list[list[SearchHit]]:
        """Fuse each group's channel lists; one ``get`` fetches every group's documents.
        A document of another scope is dropped even if a backend let it through."""
        per_group = len(self.config.channels)
        fused = [self._fuse(lists[i * per_group : (i + 1) * per_group], k) for i in range(groups)]
        docs = self.index.get([h.doc_id for group in fused for h in group])
        docs = {doc_id: doc for doc_id, doc in docs.items() if doc.scope == scope}
        out: list[list[SearchHit]] = []
        for group in fused:
            hits = [_hit(docs[h.doc_id], h.score) for h in group if h.doc_id in docs]
            if self.config.speaker_boost > 1.0:
                hits = _boost_speakers(query, hits, self.config.speaker_boost)
            out.append(hits[:k])
        return out

    def _fuse(self, lists: Sequence[Sequence[Hit]], k: int) -> list[Hit]:
        weights = [ch.weight for ch in self.config.channels]
        if self.config.fusion == "rrf":
            fused = fusion.rrf(lists, weights, self.config.rrf_k)
        else:
            fused = fusion.weighted(lists, weights)
        # Keep a margin beyond k so the speaker boost can lift a hit from just below the cut.
        return fused[: max(2 * k, 20)]


def embedded_texts(docs: Sequence[SearchDocument]) -> list[str]:
    """The texts ``prepare`` embeds for ``docs``, exactly as given to the embedder (its cache
    keys them so): every text channel's ``indexed_text``, then every ``context_text``."""
    return [d.indexed_text for d in docs] + [d.context_text for d in docs]


def _scoped(filters: SearchFilters | None) -> tuple[SearchFilters, str]:
    """The filters of a search and the scope it runs in; a search without one is refused."""
    if filters is None or filters.scope is None:
        raise MissingScopeError()
    return filters, filters.scope


def _hit(doc: SearchDocument, score: float) -> SearchHit:
    return SearchHit(
        doc_id=doc.doc_id,
        kind=doc.kind,
        graph_id=doc.graph_id,
        score=score,
        text=doc.text,
        title=doc.title,
        speaker=doc.speaker,
        session_id=doc.session_id,
        time=doc.time,
    )


def _boost_speakers(query: str, hits: list[SearchHit], factor: float) -> list[SearchHit]:
    """Multiply the score of hits whose speaker the query names; stable re-sort."""
    words = set(query_terms(query))
    named = {
        s
        for s in {h.speaker for h in hits}
        if s and query_terms(s) and set(query_terms(s)) <= words
    }
    if not named:
        return hits
    boosted = [
        h.model_copy(update={"score": h.score * factor}) if h.speaker in named else h for h in hits
    ]
    return sorted(boosted, key=lambda h: (-h.score, h.doc_id))
