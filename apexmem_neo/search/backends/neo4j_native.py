"""Neo4j-native backend: Neo4j vector (HNSW, cosine) and full-text (Lucene BM25) indexes.

Design: dedicated ``SearchDoc`` nodes (label configurable per namespace, so tests and
benchmarks never collide with each other or with the graph store's labels), one per search
document, each linked ``(:SearchDoc)-[:INDEXES]->(g)`` to the graph node it came from (Turn,
Entity, Property, Event or Evidence, matched on the store's id properties) when that node is
in the same database. Indexing separate nodes keeps the graph store's nodes free of vectors
and analysed terms, and lets a turn's context (neighbour window) be indexed as its own field.

Each kind's vectors live in their own properties (``turn_text_vector``, ...) with their own
vector index, so a dense query filtered only by kind walks just the admitted kinds' HNSW
graphs; other filters use an exact cosine scan over the admitted documents.

Scopes: every document node has a ``scope`` property (indexed) and every query checks it.
Search nodes never get the graph's ``Scope_...`` labels, so the agent's scope-confined Cypher
never sees them. Full-text and exact queries filter before their LIMIT. Neo4j's vector walk
cannot filter, so a scoped kNN drops other scopes' nodes after the walk and, when fewer than
``k`` remain while the walk may have stopped short, answers with the exact scan over the
scope (read through the scope index): ``k`` hits come back however many documents other
scopes hold. A namespace written before scopes is refused by ``create()`` with the rebuild
command (its documents name no scope, and the stored JSON would need rewriting too).

Cypher lives in
cypher/{schema,queries}/search_*.cypher and is loaded by ``load_cypher``, which finds files
through the store's loader (``apexmem_neo.store.neo4j.cypher_files``) and adds what search
needs on top of it: the namespace label and index names as validated ``{{slot}}``
identifiers.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from functools import lru_cache
from typing import Any, TypeVar

from neo4j import Driver, Query, RoutingControl
from neo4j.exceptions import ServiceUnavailable, SessionExpired

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
from apexmem_neo.store.neo4j.cypher_files import (
    LABELS,
    RELATIONSHIP_TYPES,
    cypher_root,
    strip_comments,
)

T = TypeVar("T")
SEARCH_RELATIONSHIP = "INDEXES"
REBUILD_COMMAND = "apexmem index --store neo4j --rebuild"
FORGET_BATCH = 1000
_IDENT = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,62}$")
_SLOT = re.compile(r"\{\{(\w+)\}\}")
_LABEL_USE = re.compile(r"\(\s*\w*\s*:\s*(\w+)")
_TYPE_USE = re.compile(r"\[\s*\w*\s*:\s*(\w+)")


def load_cypher(name: str, **slots: str | int) -> list[str]:
    """Statements of ``cypher/<name>.cypher`` with ``{{slot}}`` filled from ``slots``.

    Files are found by the store's loader (``cypher_root``: the package copy, else the
    repository's). Slots take only identifiers (``[A-Za-z][A-Za-z0-9_]*``) or integers, never
    user data; values travel as query parameters. After filling, every label must be the
    store's allow-list or the ``label`` / ``meta_label`` slot, and every relationship type the
    store's or ``INDEXES``.
    """
    for key, value in slots.items():
        if not isinstance(value, int) and not _IDENT.match(value):
            raise ValueError(f"cypher slot {key}={value!r} is not a plain identifier")
    text = _read(name)
    missing = set(_SLOT.findall(text)) - set(slots)
    if missing:
        raise ValueError(f"cypher/{name}.cypher needs slots {sorted(missing)}")
    filled = strip_comments(_SLOT.sub(lambda m: str(slots[m.group(1)]), text))
    own = {str(slots.get("label", "")), str(slots.get("meta_label", ""))}
    labels = set(_LABEL_USE.findall(filled)) - LABELS - own
    types = set(_TYPE_USE.findall(filled)) - RELATIONSHIP_TYPES - {SEARCH_RELATIONSHIP}
    if labels or types:
        raise ValueError(f"cypher/{name}.cypher uses labels {labels} / types {types} off the list")
    return [s.strip() for s in filled.split(";") if s.strip()]


@lru_cache(maxsize=64)
def _read(name: str) -> str:
    folder, _, stem = name.partition("/")
    file = cypher_root().joinpath(folder).joinpath(f"{stem}.cypher")
    return file.read_text(encoding="utf-8")


class Neo4jNativeIndex:
    """SearchIndex on Neo4j; ``namespace`` names the label and the indexes (an identifier)."""

    def __init__(
        self,
        driver: Driver,
        namespace: str = "SearchDoc",
        database: str | None = None,
        url: str | None = None,
    ) -> None:
        if not _IDENT.match(namespace):
            raise ValueError(f"namespace {namespace!r} must be a plain identifier")
        self._driver = driver
        self._label = namespace if namespace == "SearchDoc" else f"SearchDoc_{namespace}"
        # One node of this label records the namespace's embedder (name and dimensions).
        self._meta_label = "SearchMeta" if namespace == "SearchDoc" else f"SearchMeta_{namespace}"
        self._prefix = f"search_{namespace.lower()}"
        self._database = database
        self._url = url or "the configured Neo4j address"

    def _q(self, name: str, **slots: str | int) -> list[str]:
        return load_cypher(
            name, label=self._label, meta_label=self._meta_label, prefix=self._prefix, **slots
        )

    def _run(self, statement: str, params: dict[str, Any], write: bool = False) -> list[Any]:
        def _go() -> list[Any]:
            records, _, _ = self._driver.execute_query(
                Query(statement),
                params,
                database_=self._database,
                routing_=RoutingControl.WRITE if write else RoutingControl.READ,
            )
            return list(records)

        return self._call(_go)

    def _call(self, action: Callable[[], T]) -> T:
        try:
            return action()
        except (ServiceUnavailable, SessionExpired) as exc:
            raise ServiceUnavailableError("neo4j", self._url, str(exc)) from exc

    def create(self, dimensions: int, embedder: str = "") -> None:
        self._refuse_shared_vector_index()
        self._refuse_unscoped_documents()
        stored = self._recorded()
        given = (embedder, dimensions)
        record = reconcile_embedder(self._where(), stored, given, REBUILD_COMMAND)
        for statement in self._q("schema/search_create", dimensions=int(dimensions)):
            self._run(statement, {}, write=True)
        self._run("CALL db.awaitIndexes(300)", {}, write=True)
        if record:
            (statement,) = self._q("queries/search_meta_set")
            self._run(statement, {"embedder": embedder, "dimensions": dimensions}, write=True)

    def _refuse_shared_vector_index(self) -> None:
        legacy = f"{self._prefix}_text_vector"
        found = self._run(
            "SHOW INDEXES YIELD name WHERE name = $name RETURN name", {"name": legacy}
        )
        if found:
            raise SearchError(
                f"search namespace {self._label} has the indexes of an older version (a shared "
                f"vector index {legacy}, not one per kind); drop it and index again "
                f"({REBUILD_COMMAND})"
            )

    def _refuse_unscoped_documents(self) -> None:
        (statement,) = self._q("queries/search_unscoped")
        if self._run(statement, {}):
            raise UnscopedIndexError(self._where(), REBUILD_COMMAND)

    def embedder_info(self) -> EmbedderInfo | None:
        return self._recorded()

    def _recorded(self) -> EmbedderInfo | None:
        """The namespace's meta node; for a namespace created before it existed, no name and
        the size of its vector indexes; None when the namespace has neither."""
        (statement,) = self._q("queries/search_meta_get")
        records = self._run(statement, {})
        if records:
            return str(records[0]["embedder"] or ""), int(records[0]["dimensions"])
        (statement,) = self._q("queries/search_vector_dimensions")
        name = f"{self._prefix}_{per_kind_vector_name(ALL_KINDS[0], DocField.TEXT)}"
        found = self._run(statement, {"name": name})
        return ("", int(found[0]["dimensions"])) if found else None

    def _where(self) -> str:
        return f"{self._label} on Neo4j at {self._url}"

    def upsert(self, docs: Iterable[IndexedDocument]) -> int:
        (statement,) = self._q("queries/search_upsert")
        written = 0
        for chunk in _chunks(docs, 500):
            self._run(statement, {"rows": [_row(item) for item in chunk]}, write=True)
            written += len(chunk)
        return written

    def optimize(self) -> None:
        """Wait until every index is online. Neo4j merges its Lucene index segments itself
        and exposes no force-merge, so there is nothing more to do after a bulk load."""
        self._run("CALL db.awaitIndexes(300)", {}, write=True)

    def retrieve(self, requests: Sequence[ChannelRequest]) -> list[list[Hit]]:
        return [
            self._lexical(r) if r.method is Method.LEXICAL else self._dense(r) for r in requests
        ]

    def _lexical(self, request: ChannelRequest) -> list[Hit]:
        if not request.terms:
            return []
        (statement,) = self._q("queries/search_fulltext")
        params = _filter_params(request.filters)
        params.update(
            index=f"{self._prefix}_{request.field.value}_terms",
            query=" ".join(request.terms),
            k=request.k,
        )
        return _hits(self._run(statement, params))

    def _dense(self, request: ChannelRequest) -> list[Hit]:
        if _only_kinds_and_scope(request.filters):
            hits = self._approximate(request)
            if hits is not None:
                return hits
        (statement,) = self._q("queries/search_vector_exact")
        params = _filter_params(request.filters)
        params.update(
            vector=list(request.vector),
            k=request.k,
            properties={
                kind.value: per_kind_vector_name(kind, request.field) for kind in ALL_KINDS
            },
        )
        return _hits(self._run(statement, params))

    def _approximate(self, request: ChannelRequest) -> list[Hit] | None:
        """The best ``k`` hits of the scope among the kinds' HNSW walks; None when fewer than
        ``k`` survived the scope filter and a walk may have stopped short of the scope's
        documents (it found all it was asked for), so only the exact scan can tell."""
        (statement,) = self._q("queries/search_vector_ann")
        candidates = max(request.num_candidates, request.k)
        params = {
            "vector": list(request.vector),
            "scope": request.filters.scope,
            "candidates": candidates,
            "indexes": [
                f"{self._prefix}_{per_kind_vector_name(kind, request.field)}"
                for kind in request.filters.kinds or ALL_KINDS
            ],
        }
        records = self._run(statement, params)
        found = [
            Hit(doc_id=h["doc_id"], score=float(h["score"])) for r in records for h in r["hits"]
        ]
        found.sort(key=lambda h: (-h.score, h.doc_id))
        if len(found) < request.k and any(r["found"] >= candidates for r in records):
            return None
        return found[: request.k]

    def get(self, doc_ids: Sequence[str]) -> dict[str, SearchDocument]:
        (statement,) = self._q("queries/search_get")
        records = self._run(statement, {"doc_ids": list(doc_ids)})
        return {r["doc_id"]: SearchDocument.model_validate_json(r["doc_json"]) for r in records}

    def delete_documents(
        self, scope: str, graph_ids: Collection[str] | None = None
    ) -> list[SearchDocument]:
        """DETACH DELETE the scope's document nodes of ``graph_ids`` (all when None), in
        transactions of ``FORGET_BATCH``; the deleted documents. Their properties (text,
        terms, vectors), links and full-text and vector index entries go with the nodes;
        the bytes Neo4j frees on disk are reused or pruned on its own schedule (store record
        reuse, Lucene merges, transaction log retention), which Cypher cannot hurry."""
        (statement,) = self._q("queries/search_forget")
        batches: Iterable[list[str] | None] = (
            [None] if graph_ids is None else _chunks(doc_ids_of(graph_ids), FORGET_BATCH)
        )
        erased: list[SearchDocument] = []
        for doc_ids in batches:
            params = {"scope": scope, "doc_ids": doc_ids, "limit": FORGET_BATCH}
            while True:
                records = self._run(statement, params, write=True)
                erased += [SearchDocument.model_validate_json(r["doc_json"]) for r in records]
                if len(records) < FORGET_BATCH:
                    break
        return erased

    def count(self) -> int:
        (statement,) = self._q("queries/search_count")
        return int(self._run(statement, {})[0]["count"])

    def drop(self) -> None:
        (statement,) = self._q("queries/search_delete_all")

        def _delete() -> None:
            with self._driver.session(database=self._database) as session:
                session.run(Query(statement)).consume()

        self._call(_delete)
        (statement,) = self._q("queries/search_meta_delete")
        self._run(statement, {}, write=True)
        for statement in self._q("schema/search_drop"):
            self._run(statement, {}, write=True)

    def close(self) -> None:
        """The driver belongs to the caller; nothing to release here."""


def _chunks(items: Iterable[T], size: int) -> Iterator[list[T]]:
    iterator = iter(items)
    while chunk := list(itertools.islice(iterator, size)):
        yield chunk


def _row(item: IndexedDocument) -> dict[str, Any]:
    doc = item.doc
    props = {
        **item.server_fields(),
        "graph_id": doc.graph_id,
        "doc_json": doc.model_dump_json(),
        per_kind_vector_name(doc.kind, DocField.TEXT): item.text_vector.tolist(),
        per_kind_vector_name(doc.kind, DocField.CONTEXT): item.context_vector.tolist(),
    }
    return {
        "doc_id": doc.doc_id,
        "graph_id": doc.graph_id,
        "kind": doc.kind.value,
        "props": {k: v for k, v in props.items() if v is not None},
    }


def _only_kinds_and_scope(filters: SearchFilters) -> bool:
    """Whether the HNSW walks can serve ``filters`` (kinds pick the indexes, the scope is
    checked after the walk); any other filter needs the exact scan."""
    rest = filters.model_dump(exclude={"kinds", "scope"})
    return all(value is None for value in rest.values())


def _filter_params(filters: SearchFilters) -> dict[str, Any]:
    def _list(values: tuple[str, ...] | None) -> list[str] | None:
        return None if values is None else [str(v) for v in values]

    return {
        "scope": filters.scope,
        "kinds": [k.value for k in (filters.kinds or ALL_KINDS)],
        "conversations": _list(filters.conversation_ids),
        "sessions": _list(filters.session_ids),
        "speakers": _list(filters.speakers),
        "time_from": filters.time_from,
        "time_to": filters.time_to,
    }


def _hits(records: list[Any]) -> list[Hit]:
    return [Hit(doc_id=r["doc_id"], score=float(r["score"])) for r in records]
