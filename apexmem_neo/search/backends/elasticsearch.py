"""Elasticsearch backend: dense_vector (BBQ or int8 HNSW, rescored; cosine) and BM25 text fields.

Analysed terms are indexed with the whitespace analyzer (analysis happens once, in
``apexmem_neo.search.text``), so BM25 sees the same tokens as on the other backends. Every
batch of channel requests is one ``_msearch`` round trip; fusion happens client-side. Hits and
fetched documents are read from doc values (``doc_id``, ``doc_json``), never from ``_source``:
in an index with vector fields a ``_source`` read is several times slower than the binary doc
values.
An unreachable server raises ``ServiceUnavailableError`` naming the URL, never a fallback.

A search's scope is a ``term`` filter on the ``scope`` keyword, in the bool query of the
lexical channels and in the ``filter`` of every kNN query (applied during the HNSW walk, so
``k`` hits of the scope come back however many documents other scopes hold). An index made
before scopes has no ``scope`` field and cannot be migrated in place (vectors and documents
are kept out of ``_source``): ``create()`` refuses it with the command that rebuilds it.

Erasing: a Lucene delete only marks a document (a soft delete); its terms, doc values and
recovery source stay in the segment files, and the translog keeps the write, until a merge
drops it and a flush trims the log. ``delete_documents`` therefore deletes, then merges the
deleted documents away (see ``_expunge_deleted``) and flushes. It deletes the ids a search
found with bulk deletes rather than ``_delete_by_query``, which needs the reindex module
that minimal distributions leave out.
"""

from __future__ import annotations

import base64
import contextlib
import time
from collections.abc import Callable, Collection, Iterable, Sequence
from typing import Any, TypeVar

import numpy as np
import orjson
from elastic_transport import ConnectionError as TransportConnectionError
from elastic_transport import ConnectionTimeout
from elasticsearch import Elasticsearch, NotFoundError, helpers

from apexmem_neo.errors import ServiceUnavailableError
from apexmem_neo.search.config import DocField, Method
from apexmem_neo.search.documents import ALL_KINDS, SearchDocument, doc_ids_of
from apexmem_neo.search.protocol import (
    ChannelRequest,
    EmbedderInfo,
    Hit,
    IndexedDocument,
    SearchError,
    SearchFilters,
    UnscopedIndexError,
    per_kind_vector_name,
    reconcile_embedder,
)

T = TypeVar("T")
BULK_CHUNK_DOCS = 500
BULK_CHUNK_BYTES = 20 * 1024 * 1024
OPTIMIZE_TIMEOUT_S = 4 * 3600  # a force-merge of 1M documents on two cores takes hours
INDEX_SETTINGS: dict[str, Any] = {
    "number_of_shards": 1,
    "number_of_replicas": 0,
    # ``upsert`` refreshes once when it has written everything; periodic refreshes during a
    # bulk load only cut small segments whose HNSW graphs merges then rebuild.
    "refresh_interval": "-1",
}
_TERMS = {DocField.TEXT: "text_terms", DocField.CONTEXT: "context_terms"}
# One pair of vector fields per kind, each its own HNSW graph: a search within a kind is then
# an unfiltered graph walk. A kind filter on one shared graph made HNSW wander, so a search
# of a small kind was several times slower than on its own graph (benchmarks/search/speed.py
# measures it; the CHANGELOG has the figures).
VECTOR_INDEX_TYPES = ("hnsw", "int8_hnsw", "bbq_hnsw")
DEFAULT_VECTOR_INDEX = "auto"
"""BBQ (1-bit vectors, rescored) when the vectors have the 64 dimensions it needs, else int8.
BBQ keeps the recall of an exact index within noise, queries faster than float HNSW and
force-merges much faster (benchmarks/search/speed.py --optimize; figures in the CHANGELOG)."""
BBQ_MIN_DIMS = 64
# Quantised graphs gather oversample * k candidates and rescore them with the float vectors.
RESCORE_OVERSAMPLE = 3.0
SCAN_PAGE = 1000
IDS_PER_SCAN = 4000
EXPUNGE_WAIT_S = 120.0
"""How long ``delete_documents`` waits for the shards' retention leases to pass its deletes
(Elasticsearch renews them every 30 s) before it gives up with a ``SearchError``."""
EXPUNGE_POLL_S = 1.0


def vector_index_options(vector_index: str, dimensions: int = BBQ_MIN_DIMS) -> dict[str, Any]:
    """HNSW options for one of ``VECTOR_INDEX_TYPES`` (float, int8 or BBQ 1-bit vectors) or
    ``auto`` (see ``DEFAULT_VECTOR_INDEX``)."""
    if vector_index == "auto":
        vector_index = "bbq_hnsw" if dimensions >= BBQ_MIN_DIMS else "int8_hnsw"
    if vector_index not in VECTOR_INDEX_TYPES:
        known = ("auto", *VECTOR_INDEX_TYPES)
        raise ValueError(f"unknown vector index {vector_index!r}; known: {known}")
    options: dict[str, Any] = {"type": vector_index, "m": 16, "ef_construction": 100}
    if vector_index != "hnsw":
        options["rescore_vector"] = {"oversample": RESCORE_OVERSAMPLE}
    return options


VECTOR_FIELDS = [per_kind_vector_name(kind, field) for kind in ALL_KINDS for field in DocField]


def mapping(
    dimensions: int, vector_index: str = DEFAULT_VECTOR_INDEX, embedder: str = ""
) -> dict[str, Any]:
    """The index mapping: keyword filters, whitespace-analysed terms, HNSW vectors, and in
    ``_meta`` the name of the embedding model that made the vectors."""
    vector = {
        "type": "dense_vector",
        "dims": dimensions,
        "index": True,
        "similarity": "cosine",
        "index_options": vector_index_options(vector_index, dimensions),
    }
    keyword = {"type": "keyword"}
    terms = {"type": "text", "analyzer": "whitespace", "similarity": "BM25"}
    return {
        "_meta": {"embedder": embedder},
        "dynamic": "strict",
        # Vectors are searched, never read back: keeping them out of _source makes bulk
        # indexing and merges cheaper and the index smaller.
        "_source": {"excludes": [*VECTOR_FIELDS, "doc_json"]},
        "properties": {
            "doc_id": keyword,
            "scope": keyword,
            "kind": keyword,
            "conversation_id": keyword,
            "session_id": keyword,
            "speaker": keyword,
            "time": keyword,
            "text_terms": terms,
            "context_terms": terms,
            **{name: vector for name in VECTOR_FIELDS},
            "doc_json": {"type": "binary", "doc_values": True},
        },
    }


class ElasticsearchIndex:
    """SearchIndex on one Elasticsearch index named ``name`` (the caller makes it unique)."""

    def __init__(
        self,
        client: Elasticsearch,
        name: str,
        url: str | None = None,
        vector_index: str = DEFAULT_VECTOR_INDEX,
    ) -> None:
        vector_index_options(vector_index)  # a bad name fails here, before any request
        self._client = client
        self._name = name
        self._url = url or _client_url(client)
        self._vector_index = vector_index

    @property
    def name(self) -> str:
        return self._name

    def _call(self, action: Callable[[], T]) -> T:
        try:
            return action()
        except (TransportConnectionError, ConnectionTimeout) as exc:
            raise ServiceUnavailableError("elasticsearch", self._url, str(exc)) from exc

    def create(self, dimensions: int, embedder: str = "") -> None:
        def _create() -> None:
            mappings = self._mapping()
            stored = self._recorded(mappings)
            if mappings is not None and "scope" not in mappings["properties"]:
                raise UnscopedIndexError(self._where())
            if reconcile_embedder(self._where(), stored, (embedder, dimensions)):
                if stored is None:
                    self._client.indices.create(
                        index=self._name,
                        mappings=mapping(dimensions, self._vector_index, embedder),
                        settings=INDEX_SETTINGS,
                    )
                else:  # an index of an older version adopts the embedder's name
                    self._client.indices.put_mapping(index=self._name, meta={"embedder": embedder})

        self._call(_create)

    def embedder_info(self) -> EmbedderInfo | None:
        return self._call(lambda: self._recorded(self._mapping()))

    def _mapping(self) -> dict[str, Any] | None:
        """The index's mapping (with ``properties``, maybe empty); None when there is no index."""
        try:
            found = self._client.indices.get_mapping(index=self._name)
        except NotFoundError:
            return None
        mappings = dict(found[self._name]["mappings"])
        mappings.setdefault("properties", {})
        return mappings

    def _recorded(self, mappings: dict[str, Any] | None) -> EmbedderInfo | None:
        """The embedder recorded in the mapping's ``_meta`` ("" as name for an index made
        before names were kept) with the vector size; None when the index does not exist."""
        if mappings is None:
            return None
        properties = mappings["properties"]
        required = ("doc_id", "doc_json", VECTOR_FIELDS[0])
        missing = [f for f in required if f not in properties]
        if missing:
            raise SearchError(
                f"index {self._name} has the mapping of an older version (no "
                f"{', '.join(missing)} field); drop it and index again"
            )
        name = str(mappings.get("_meta", {}).get("embedder", ""))
        return name, int(properties[VECTOR_FIELDS[0]]["dims"])

    def _where(self) -> str:
        return f"{self._name!r} on Elasticsearch at {self._url}"

    def upsert(self, docs: Iterable[IndexedDocument]) -> int:
        """Stream ``docs`` through the bulk helper, then refresh once (never per document)."""

        def _bulk() -> int:
            ok, errors = helpers.bulk(
                self._client,
                # The helper's annotation wants action dicts; expand_action_callback turns
                # each IndexedDocument into its action line and pre-serialised body.
                docs,  # type: ignore[arg-type]
                expand_action_callback=lambda item: _bulk_lines(self._name, item),
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

    def segments(self) -> int:
        """Lucene segments of the index: every kNN request walks each one's HNSW graphs."""
        rows = self._call(lambda: self._client.cat.segments(index=self._name, format="json"))
        return len(rows)

    def optimize(self, max_segments: int = 1) -> None:
        """Force-merge the index down to ``max_segments`` segments; blocks until done.

        For an index that is read far more than written (memory after a bulk ingest): fewer
        segments mean fewer HNSW graphs per kNN request. Merging rebuilds the graphs, so it
        costs minutes per 100k documents on two cores; searches keep working meanwhile.
        """
        if max_segments < 1:
            raise ValueError(f"max_segments must be at least 1, got {max_segments}")
        self._call(
            lambda: self._client.options(request_timeout=OPTIMIZE_TIMEOUT_S).indices.forcemerge(
                index=self._name, max_num_segments=max_segments, wait_for_completion=True
            )
        )

    def retrieve(self, requests: Sequence[ChannelRequest]) -> list[list[Hit]]:
        if not requests:
            return []
        # The msearch lines serialised here by orjson: a query vector goes into every dense
        # request, and the client's standard-library encoder took a large share of an
        # msearch's time.
        header = orjson.dumps({"index": self._name})
        searches: list[bytes] = []
        for request in requests:
            searches.extend((header, orjson.dumps(_body(request))))
        response = self._call(
            lambda: self._client.msearch(searches=searches)  # type: ignore[arg-type]
        )
        out: list[list[Hit]] = []
        for item in response["responses"]:
            if "error" in item:
                raise SearchError(f"search in {self._name} failed: {item['error']}")
            hits = item["hits"]["hits"]
            out.append(
                [Hit(doc_id=h["fields"]["doc_id"][0], score=float(h["_score"])) for h in hits]
            )
        return out

    def delete_documents(
        self, scope: str, graph_ids: Collection[str] | None = None
    ) -> list[SearchDocument]:
        """Delete the scope's documents of ``graph_ids`` (all when None), then merge every
        deleted document out of the segments and flush the translog (module docstring); the
        deleted documents. Blocks until the merge is done: up to the lease renewal interval
        (30 s by default) plus the merge of the segments that held them."""

        def _delete() -> list[SearchDocument]:
            if self._mapping() is None:
                return []
            found = self._scope_documents(scope, graph_ids)
            self._delete_ids([d.doc_id for d in found])
            self._expunge_deleted()
            return found

        return self._call(_delete)

    def _scope_documents(
        self, scope: str, graph_ids: Collection[str] | None
    ) -> list[SearchDocument]:
        """The scope's documents of ``graph_ids`` (all when None), as stored."""
        in_scope: dict[str, Any] = {"term": {"scope": scope}}
        if graph_ids is None:
            return self._scan([in_scope])
        ids = doc_ids_of(graph_ids)
        found: list[SearchDocument] = []
        for start in range(0, len(ids), IDS_PER_SCAN):
            chunk = ids[start : start + IDS_PER_SCAN]
            found += self._scan([in_scope, {"ids": {"values": chunk}}])
        return found

    def _scan(self, filters: list[dict[str, Any]]) -> list[SearchDocument]:
        """Every document the filters admit, paged by ``search_after`` on doc_id."""
        found: list[SearchDocument] = []
        after: list[Any] | None = None
        while True:
            hits = self._client.search(
                index=self._name,
                query={"bool": {"filter": filters}},
                size=SCAN_PAGE,
                sort=[{"doc_id": "asc"}],
                search_after=after,
                source=False,
                docvalue_fields=[{"field": "doc_json"}],
                track_total_hits=False,
            )["hits"]["hits"]
            found += [_stored(hit) for hit in hits]
            if len(hits) < SCAN_PAGE:
                return found
            after = hits[-1]["sort"]

    def _delete_ids(self, doc_ids: list[str]) -> None:
        """Bulk-delete documents by id, then refresh: no search finds them afterwards."""
        if not doc_ids:
            return
        actions = ({"_op_type": "delete", "_index": self._name, "_id": i} for i in doc_ids)
        _, errors = helpers.bulk(self._client, actions, raise_on_error=False, refresh=False)
        # A document deleted meanwhile (404) is as gone as one deleted here.
        rows = errors if isinstance(errors, list) else []
        failed = [e for e in rows if e.get("delete", {}).get("status") != 404]
        if failed:
            raise SearchError(f"deleting from {self._name} failed: {failed[:3]}")
        self._client.indices.refresh(index=self._name)

    def _expunge_deleted(self) -> None:
        """Merge the index's deleted documents out of its segments, then flush.

        A merge keeps a soft-deleted document while its operation may still be needed: until
        a flushed commit holds it and every shard's retention lease (kept for bringing a
        replica up to date) has passed it. So this flushes, waits for the leases
        (Elasticsearch renews them on its own schedule, every 30 s by default), then merges
        every segment with deletes in it (``expunge_deletes_allowed`` 0; the default spares
        segments under 10 % deleted).
        """
        shards = self._shard_stats()
        if not any(copy["docs"]["deleted"] for copies in shards.values() for copy in copies):
            return
        self._client.indices.flush(index=self._name)
        targets = {n: max(c["seq_no"]["max_seq_no"] for c in cs) for n, cs in shards.items()}
        deadline = time.monotonic() + EXPUNGE_WAIT_S
        while not _leases_past(self._shard_stats(), targets):
            if time.monotonic() > deadline:
                raise SearchError(
                    f"{self._where()}: the documents are deleted and no search finds them, "
                    f"but a retention lease (a replica behind or away) keeps their copies in "
                    f"the segments after {EXPUNGE_WAIT_S:.0f} s; delete again later to purge them"
                )
            time.sleep(EXPUNGE_POLL_S)
        self._client.indices.put_settings(
            index=self._name, settings={"index.merge.policy.expunge_deletes_allowed": 0}
        )
        self._client.options(request_timeout=OPTIMIZE_TIMEOUT_S).indices.forcemerge(
            index=self._name, only_expunge_deletes=True, wait_for_completion=True
        )
        self._client.indices.flush(index=self._name)

    def _shard_stats(self) -> dict[str, list[dict[str, Any]]]:
        """Per shard number, the stats of each copy (docs, seq_no, retention_leases)."""
        stats = self._client.indices.stats(index=self._name, level="shards")
        return dict(stats["indices"][self._name]["shards"])

    def get(self, doc_ids: Sequence[str]) -> dict[str, SearchDocument]:
        if not doc_ids:
            return {}
        unique = list(dict.fromkeys(doc_ids))
        response = self._call(
            lambda: self._client.search(
                index=self._name,
                query={"ids": {"values": unique}},
                size=len(unique),
                source=False,
                stored_fields="_none_",
                docvalue_fields=[{"field": "doc_json"}],
                track_total_hits=False,
            )
        )
        docs = (_stored(h) for h in response["hits"]["hits"])
        return {d.doc_id: d for d in docs}

    def count(self) -> int:
        """Documents in the index; 0 for an index never created (as on the other backends)."""

        def _count() -> int:
            try:
                return int(self._client.count(index=self._name)["count"])
            except NotFoundError:
                return 0

        return self._call(_count)

    def drop(self) -> None:
        def _drop() -> None:
            with contextlib.suppress(NotFoundError):
                self._client.indices.delete(index=self._name)

        self._call(_drop)

    def close(self) -> None:
        """The client belongs to the caller; nothing to release here."""


def _stored(hit: dict[str, Any]) -> SearchDocument:
    """The document a hit carries in its ``doc_json`` doc value."""
    return SearchDocument.model_validate_json(base64.b64decode(hit["fields"]["doc_json"][0]))


def _leases_past(shards: dict[str, list[dict[str, Any]]], targets: dict[str, int]) -> bool:
    """Whether every copy's retention leases retain nothing at or below its shard's target
    sequence number (so a merge may drop the deletes up to it)."""
    return all(
        lease["retaining_seq_no"] > targets[number]
        for number, copies in shards.items()
        if number in targets
        for copy in copies
        for lease in copy["retention_leases"]["leases"]
    )


def _client_url(client: Elasticsearch) -> str:
    nodes = list(client.transport.node_pool.all())
    return str(nodes[0].base_url) if nodes else "<unknown Elasticsearch URL>"


def _bulk_lines(index: str, item: IndexedDocument) -> tuple[dict[str, Any], bytes]:
    """The bulk action line and the document, serialised here by orjson.

    orjson writes float32 vectors directly in their shortest form: half the bytes of the
    standard serialiser's Python floats and much faster, which matters when two
    768-d vectors are most of every document.
    """
    doc = item.doc
    source = {
        "doc_id": doc.doc_id,
        **item.server_fields(),
        per_kind_vector_name(doc.kind, DocField.TEXT): np.ascontiguousarray(
            item.text_vector, np.float32
        ),
        per_kind_vector_name(doc.kind, DocField.CONTEXT): np.ascontiguousarray(
            item.context_vector, np.float32
        ),
        "doc_json": base64.b64encode(doc.model_dump_json().encode()).decode("ascii"),
    }
    header = {"index": {"_index": index, "_id": doc.doc_id}}
    return header, orjson.dumps(source, option=orjson.OPT_SERIALIZE_NUMPY)


def _body(request: ChannelRequest) -> dict[str, Any]:
    filters = es_filters(request.filters)
    if request.method is Method.LEXICAL:
        if not request.terms:
            return {"size": 0, "query": {"match_none": {}}}
        match = {"match": {_TERMS[request.field]: " ".join(request.terms)}}
        query = {"bool": {"must": [match], "filter": filters}}
        return {"size": request.k, "query": query, **_IDS_ONLY}
    # One kNN query per admitted kind, each on that kind's graph with the other filters. The
    # kinds' documents are disjoint, so every hit's score is its own cosine score and the
    # top ``k`` of the union is the top ``k`` of the admitted kinds. A knn *query* (not the
    # top-level knn section) runs in the query phase, with no separate DFS round, so a
    # search's requests take less time, with the same candidates (num_candidates per shard,
    # top ``size`` kept).
    other_filters = es_filters(request.filters.model_copy(update={"kinds": None}))
    clauses: list[dict[str, Any]] = [
        {
            "knn": {
                "field": per_kind_vector_name(kind, request.field),
                "query_vector": request.vector,
                "num_candidates": max(request.num_candidates, request.k),
                "filter": other_filters,
            }
        }
        for kind in request.filters.kinds or ALL_KINDS
    ]
    knn = clauses[0] if len(clauses) == 1 else {"bool": {"should": clauses}}
    return {"size": request.k, "query": knn, **_IDS_ONLY}


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
    if filters.scope is not None:
        clauses.append({"term": {"scope": filters.scope}})
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
