"""Elasticsearch backend: dense_vector (float HNSW, cosine) and BM25 text fields, one index.

Analysed terms are indexed with the whitespace analyzer (analysis happens once, in
``apexmem_neo.search.text``), so BM25 sees the same tokens as on the other backends. Every
batch of channel requests is one ``_msearch`` round trip; fusion happens client-side.
An unreachable server raises ``ServiceUnavailableError`` naming the URL, never a fallback.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

from elastic_transport import ConnectionError as TransportConnectionError
from elastic_transport import ConnectionTimeout
from elasticsearch import Elasticsearch, NotFoundError, helpers

from apexmem_neo.errors import ServiceUnavailableError
from apexmem_neo.search.config import DocField, Method
from apexmem_neo.search.documents import SearchDocument
from apexmem_neo.search.protocol import (
    ChannelRequest,
    Hit,
    IndexedDocument,
    SearchError,
    SearchFilters,
)

T = TypeVar("T")
BULK_CHUNK_DOCS = 500
BULK_CHUNK_BYTES = 20 * 1024 * 1024
INDEX_SETTINGS: dict[str, Any] = {
    "number_of_shards": 1,
    "number_of_replicas": 0,
    # ``upsert`` refreshes once when it has written everything; periodic refreshes during a
    # bulk load only cut small segments whose HNSW graphs merges then rebuild.
    "refresh_interval": "-1",
}
_TERMS = {DocField.TEXT: "text_terms", DocField.CONTEXT: "context_terms"}
_VECTORS = {DocField.TEXT: "text_vector", DocField.CONTEXT: "context_vector"}


def mapping(dimensions: int) -> dict[str, Any]:
    """The index mapping: keyword filters, whitespace-analysed terms, float HNSW vectors."""
    vector = {
        "type": "dense_vector",
        "dims": dimensions,
        "index": True,
        "similarity": "cosine",
        "index_options": {"type": "hnsw", "m": 16, "ef_construction": 100},
    }
    keyword = {"type": "keyword"}
    terms = {"type": "text", "analyzer": "whitespace", "similarity": "BM25"}
    return {
        "dynamic": "strict",
        # Vectors are searched, never read back: keeping them out of _source makes bulk
        # indexing and merges cheaper and the index smaller.
        "_source": {"excludes": list(_VECTORS.values())},
        "properties": {
            "doc_id": keyword,
            "kind": keyword,
            "conversation_id": keyword,
            "session_id": keyword,
            "speaker": keyword,
            "time": keyword,
            "text_terms": terms,
            "context_terms": terms,
            "text_vector": vector,
            "context_vector": vector,
            "doc": {"type": "object", "enabled": False},
        },
    }


class ElasticsearchIndex:
    """SearchIndex on one Elasticsearch index named ``name`` (the caller makes it unique)."""

    def __init__(self, client: Elasticsearch, name: str, url: str | None = None) -> None:
        self._client = client
        self._name = name
        self._url = url or _client_url(client)

    @property
    def name(self) -> str:
        return self._name

    def _call(self, action: Callable[[], T]) -> T:
        try:
            return action()
        except (TransportConnectionError, ConnectionTimeout) as exc:
            raise ServiceUnavailableError("elasticsearch", self._url, str(exc)) from exc

    def create(self, dimensions: int) -> None:
        def _create() -> None:
            if self._client.indices.exists(index=self._name):
                found = self._client.indices.get_mapping(index=self._name)
                properties = found[self._name]["mappings"]["properties"]
                dims = properties["text_vector"]["dims"]
                if int(dims) != dimensions:
                    raise SearchError(
                        f"index {self._name} holds {dims}-d vectors, not {dimensions}"
                    )
                if "doc_id" not in properties:
                    raise SearchError(
                        f"index {self._name} has the mapping of an older version (no doc_id "
                        "field); drop it and index again"
                    )
                return
            self._client.indices.create(
                index=self._name,
                mappings=mapping(dimensions),
                settings=INDEX_SETTINGS,
            )

        self._call(_create)

    def upsert(self, docs: Iterable[IndexedDocument]) -> int:
        """Stream ``docs`` through the bulk helper, then refresh once (never per document)."""
        actions = (_action(self._name, item) for item in docs)

        def _bulk() -> int:
            ok, errors = helpers.bulk(
                self._client,
                actions,
                raise_on_error=False,
                chunk_size=BULK_CHUNK_DOCS,
                max_chunk_bytes=BULK_CHUNK_BYTES,
                refresh=False,
            )
            if isinstance(errors, list) and errors:
                raise SearchError(f"bulk indexing into {self._name} failed: {errors[:3]}")
            self._client.indices.refresh(index=self._name)
            return int(ok)

        return self._call(_bulk)

    def refresh(self) -> None:
        self._call(lambda: self._client.indices.refresh(index=self._name))

    def retrieve(self, requests: Sequence[ChannelRequest]) -> list[list[Hit]]:
        if not requests:
            return []
        searches: list[dict[str, Any]] = []
        for request in requests:
            searches.extend(({"index": self._name}, _body(request)))
        response = self._call(lambda: self._client.msearch(searches=searches))
        out: list[list[Hit]] = []
        for item in response["responses"]:
            if "error" in item:
                raise SearchError(f"search in {self._name} failed: {item['error']}")
            hits = item["hits"]["hits"]
            out.append(
                [Hit(doc_id=h["fields"]["doc_id"][0], score=float(h["_score"])) for h in hits]
            )
        return out

    def get(self, doc_ids: Sequence[str]) -> dict[str, SearchDocument]:
        if not doc_ids:
            return {}
        response = self._call(
            lambda: self._client.mget(index=self._name, ids=list(doc_ids), source=["doc"])
        )
        return {
            d["_id"]: SearchDocument.model_validate(d["_source"]["doc"])
            for d in response["docs"]
            if d.get("found")
        }

    def count(self) -> int:
        return int(self._call(lambda: self._client.count(index=self._name))["count"])

    def drop(self) -> None:
        def _drop() -> None:
            with contextlib.suppress(NotFoundError):
                self._client.indices.delete(index=self._name)

        self._call(_drop)

    def close(self) -> None:
        """The client belongs to the caller; nothing to release here."""


def _client_url(client: Elasticsearch) -> str:
    nodes = list(client.transport.node_pool.all())
    return str(nodes[0].base_url) if nodes else "<unknown Elasticsearch URL>"


def _action(index: str, item: IndexedDocument) -> dict[str, Any]:
    doc = item.doc
    return {
        "_op_type": "index",
        "_index": index,
        "_id": doc.doc_id,
        "_source": {
            "doc_id": doc.doc_id,
            "kind": doc.kind.value,
            "conversation_id": doc.conversation_id,
            "session_id": doc.session_id,
            "speaker": doc.speaker,
            "time": doc.time,
            "text_terms": item.text_terms,
            "context_terms": item.context_terms,
            "text_vector": item.text_vector.tolist(),
            "context_vector": item.context_vector.tolist(),
            "doc": doc.model_dump(mode="json"),
        },
    }


def _body(request: ChannelRequest) -> dict[str, Any]:
    filters = es_filters(request.filters)
    if request.method is Method.LEXICAL:
        if not request.terms:
            return {"size": 0, "query": {"match_none": {}}}
        match = {"match": {_TERMS[request.field]: " ".join(request.terms)}}
        query = {"bool": {"must": [match], "filter": filters}}
        return {"size": request.k, "query": query, **_IDS_ONLY}
    knn = {
        "field": _VECTORS[request.field],
        "query_vector": list(request.vector),
        "k": request.k,
        "num_candidates": max(request.num_candidates, request.k),
        "filter": filters,
    }
    return {"size": request.k, "knn": knn, **_IDS_ONLY}


_IDS_ONLY: dict[str, Any] = {
    # Hits carry doc_id from doc values: no stored-field (_id, _source) reads in the fetch
    # phase, which cost more than the search itself at depth 100. No hit counting either.
    "_source": False,
    "stored_fields": "_none_",
    "docvalue_fields": ["doc_id"],
    "track_total_hits": False,
}


def es_filters(filters: SearchFilters) -> list[dict[str, Any]]:
    """``SearchFilters`` as Elasticsearch filter clauses."""
    clauses: list[dict[str, Any]] = []
    for field, allowed in (
        ("kind", filters.kinds),
        ("conversation_id", filters.conversation_ids),
        ("session_id", filters.session_ids),
        ("speaker", filters.speakers),
    ):
        if allowed is not None:
            clauses.append({"terms": {field: [str(v) for v in allowed]}})
    bounds = {"gte": filters.time_from, "lte": filters.time_to}
    bounds = {op: value for op, value in bounds.items() if value is not None}
    if bounds:
        clauses.append({"range": {"time": bounds}})
    return clauses
