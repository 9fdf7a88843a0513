"""The embedded index for the SQLite default: BM25 and exact cosine over in-memory numpy arrays.

One SQLite file (or ``:memory:``) holds the documents: metadata, analysed terms per field and
unit float32 vectors. Queries never read SQLite: the first query after opening loads every
document once into ``_Memory`` (one float32 matrix per field, term postings per field,
filter columns), and later writes update it in place, so a query is a few numpy operations:

- lexical: Lucene's BM25 (k1 1.2, b 0.75, idf ln(1 + (N - df + 0.5) / (df + 0.5))), the
  formula Elasticsearch and Neo4j full-text use, so the three backends rank alike. Postings
  are rebuilt lazily after writes (idf and average length change with every document).
- dense: exact cosine up to ``EXACT_DENSE_LIMIT`` documents (one matrix-vector product per
  field, shared by every filter of the query, then ``argpartition`` for the top k). Above it
  the product alone reads the whole float32 matrix (300 MB per field at 100k 768-d
  documents), so a first pass ranks by Hamming distance between sign bits of mean-centred
  vectors (96 bytes a document, several times faster) and only the best
  ``max(OVERSAMPLE * k, MIN_CANDIDATES)`` admitted documents are scored exactly: the same
  trade as Elasticsearch's BBQ with rescoring. A memory of a few conversations stays exact.

Every filter, the scope first, restricts the admitted rows before any top-k is taken, in
every channel and in both dense paths, so a search returns ``k`` hits of its scope however
many documents other scopes hold.

The file's schema, its migrations from older versions and how erasing leaves nothing of a
deleted document in it live in ``embedded_file``.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Collection, Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from apexmem_neo.search.backends import embedded_file
from apexmem_neo.search.config import DocField, Method
from apexmem_neo.search.documents import SearchDocument
from apexmem_neo.search.protocol import (
    ChannelRequest,
    EmbedderInfo,
    Hit,
    IndexedDocument,
    SearchError,
    SearchFilters,
)
from apexmem_neo.search.sqlite_erase import connect

_FILTER_COLUMNS = ("scope", "kind", "conversation_id", "session_id", "speaker", "time")
_FIELDS = (DocField.TEXT, DocField.CONTEXT)
BM25_K1 = 1.2
BM25_B = 0.75
EXACT_DENSE_LIMIT = 20_000
OVERSAMPLE = 8
MIN_CANDIDATES = 400

FloatArray = npt.NDArray[np.float32]
IntArray = npt.NDArray[np.intp]


class _SignBits:
    """Sign bits of one field's mean-centred unit vectors, packed 64 to a word: the cheap
    first pass of dense search in a large index (Hamming distance ranks like the angle)."""

    def __init__(self, vectors: FloatArray) -> None:
        self.centre: FloatArray = vectors.mean(axis=0)  # built only for large indexes
        self.words = self._pack(vectors - self.centre)

    @staticmethod
    def _pack(centred: FloatArray) -> npt.NDArray[np.uint64]:
        packed = np.packbits(centred > 0, axis=-1)
        pad = (-packed.shape[-1]) % 8  # whole 64-bit words
        if pad:
            widths = [(0, 0)] * (packed.ndim - 1) + [(0, pad)]
            packed = np.pad(packed, widths)
        return np.ascontiguousarray(packed).view(np.uint64)

    def distances(self, query: FloatArray) -> npt.NDArray[np.int32]:
        """Hamming distance of every document to ``query`` (smaller is closer)."""
        query_words = self._pack(query - self.centre)
        distances: npt.NDArray[np.int32] = np.bitwise_count(self.words ^ query_words).sum(
            axis=1, dtype=np.int32
        )
        return distances


class _Postings:
    """BM25 weights of one field as term-major postings: term t's documents are
    ``docs[starts[t]:starts[t + 1]]`` with weights ``weights[...]`` (the same slice)."""

    def __init__(self, tokens: list[IntArray], vocab_size: int) -> None:
        n_docs_total = len(tokens)
        lengths = np.array([t.size for t in tokens], dtype=np.float64)
        all_tokens = np.concatenate(tokens) if tokens else np.zeros(0, np.intp)
        owners = np.repeat(np.arange(n_docs_total, dtype=np.intp), lengths.astype(np.intp))
        # One (term, doc) pair per distinct term of a document, sorted term-major; tf = count.
        pairs, tf = np.unique(all_tokens * n_docs_total + owners, return_counts=True)
        terms, docs = np.divmod(pairs, max(n_docs_total, 1))
        df = np.bincount(terms, minlength=vocab_size).astype(np.float64)
        n_docs = float(np.count_nonzero(lengths))
        avg_len = float(lengths.sum()) / n_docs if n_docs else 1.0
        idf = np.log1p((n_docs - df + 0.5) / (df + 0.5))
        norm = BM25_K1 * (1.0 - BM25_B + BM25_B * lengths[docs] / avg_len)
        self.docs: IntArray = docs
        self.weights: FloatArray = (idf[terms] * tf / (tf + norm)).astype(np.float32)
        self.starts: IntArray = np.concatenate(([0], np.cumsum(df.astype(np.intp))))

    def scores(self, term_ids: Sequence[int], size: int) -> FloatArray:
        """BM25 of every document for the OR of ``term_ids`` (each counted once)."""
        spans = [(self.starts[t], self.starts[t + 1]) for t in term_ids]
        docs = np.concatenate([self.docs[a:b] for a, b in spans] or [np.zeros(0, np.intp)])
        weights = np.concatenate([self.weights[a:b] for a, b in spans] or [np.zeros(0, np.float32)])
        return np.bincount(docs, weights=weights, minlength=size).astype(np.float32)


class _Memory:
    """Every document of the index in numpy form; slots are positions, stable across upserts."""

    def __init__(self, dimensions: int) -> None:
        self.dimensions = dimensions
        self.slot_of: dict[str, int] = {}
        self.doc_ids: list[str] = []
        self.columns: dict[str, list[str | None]] = {c: [] for c in _FILTER_COLUMNS}
        self.vectors = {f: np.zeros((0, dimensions), np.float32) for f in _FIELDS}
        self.vocabulary: dict[str, int] = {}
        self.tokens: dict[DocField, list[IntArray]] = {f: [] for f in _FIELDS}
        self._postings: dict[DocField, _Postings] = {}
        self._sign_bits: dict[DocField, _SignBits] = {}
        self._rows: dict[SearchFilters, IntArray] = {}
        self._masks: dict[SearchFilters, npt.NDArray[np.bool_]] = {}
        self._column_arrays: dict[str, npt.NDArray[Any]] = {}

    @property
    def size(self) -> int:
        return len(self.doc_ids)

    def put(
        self,
        doc_id: str,
        columns: Sequence[str | None],
        terms: Sequence[str],
        vectors: Sequence[FloatArray],
    ) -> None:
        """Add or replace one document (by doc_id): filter columns in ``_FILTER_COLUMNS``
        order, then analysed terms and unit vectors in ``_FIELDS`` order."""
        slot = self.slot_of.get(doc_id)
        if slot is None:
            slot = self._append(doc_id)
        for column, value in zip(_FILTER_COLUMNS, columns, strict=True):
            self.columns[column][slot] = value
        for field, field_terms, vector in zip(_FIELDS, terms, vectors, strict=True):
            self.tokens[field][slot] = self._token_ids(field_terms)
            self.vectors[field][slot] = vector
        self.changed()

    def load(self, rows: Sequence[Sequence[Any]]) -> None:
        """Fill an empty memory from ``_COLUMNS`` rows in one pass (opening an index)."""
        if not rows:
            return
        self.doc_ids = [row[0] for row in rows]
        self.slot_of = {doc_id: slot for slot, doc_id in enumerate(self.doc_ids)}
        for column in _FILTER_COLUMNS:
            at = _AT[column]
            self.columns[column] = [row[at] for row in rows]
        for field in _FIELDS:
            vector_at, terms_at = _AT[f"{field.value}_vector"], _AT[f"{field.value}_terms"]
            joined = b"".join(row[vector_at] for row in rows)
            self.vectors[field] = np.frombuffer(joined, np.float32).reshape(len(rows), -1).copy()
            self.tokens[field] = [self._token_ids(row[terms_at]) for row in rows]
        self.changed()

    def changed(self) -> None:
        """Forget what was derived from the documents (postings, sign bits, filter masks)."""
        self._postings.clear()
        self._sign_bits.clear()
        self._rows.clear()
        self._masks.clear()
        self._column_arrays.clear()

    def _append(self, doc_id: str) -> int:
        slot = len(self.doc_ids)
        self.slot_of[doc_id] = slot
        self.doc_ids.append(doc_id)
        for values in self.columns.values():
            values.append(None)
        for field in _FIELDS:
            self.tokens[field].append(np.zeros(0, np.intp))
            matrix = self.vectors[field]
            if slot >= matrix.shape[0]:  # grow by doubling: amortised O(1) appends
                grown = np.zeros((max(64, 2 * matrix.shape[0]), self.dimensions), np.float32)
                grown[: matrix.shape[0]] = matrix
                self.vectors[field] = grown
        return slot

    def _token_ids(self, terms: str) -> IntArray:
        vocabulary = self.vocabulary
        ids = [vocabulary.setdefault(term, len(vocabulary)) for term in terms.split()]
        return np.array(ids, dtype=np.intp)

    def lexical_scores(self, field: DocField, terms: Sequence[str]) -> FloatArray:
        if field not in self._postings:
            self._postings[field] = _Postings(self.tokens[field], len(self.vocabulary))
        ids = [self.vocabulary[t] for t in terms if t in self.vocabulary]
        return self._postings[field].scores(ids, self.size)

    def dense_query(self, field: DocField, query: FloatArray) -> _DenseQuery:
        vectors = self.vectors[field][: self.size]
        if self.size <= EXACT_DENSE_LIMIT:
            return _DenseQuery(vectors, query, exact=vectors @ query)
        if field not in self._sign_bits:
            self._sign_bits[field] = _SignBits(vectors)
        return _DenseQuery(vectors, query, distances=self._sign_bits[field].distances(query))

    def warm(self) -> None:
        """Build now what the first query would build: BM25 postings and, above the exact
        limit, the sign bits of every field."""
        for field in _FIELDS:
            if field not in self._postings:
                self._postings[field] = _Postings(self.tokens[field], len(self.vocabulary))
            if self.size > EXACT_DENSE_LIMIT and field not in self._sign_bits:
                self._sign_bits[field] = _SignBits(self.vectors[field][: self.size])

    def admitted(self, filters: SearchFilters) -> IntArray:
        """Slots the filters admit (memoised: the same kind filters repeat on every search)."""
        if filters not in self._rows:
            self._rows[filters] = np.flatnonzero(self.mask(filters))
        return self._rows[filters]

    def mask(self, filters: SearchFilters) -> npt.NDArray[np.bool_]:
        if filters in self._masks:
            return self._masks[filters]
        if len(self._masks) > 256:
            self._masks.clear()
            self._rows.clear()
        mask = np.ones(self.size, dtype=bool)
        allowed_by_column = {
            "scope": None if filters.scope is None else (filters.scope,),
            "kind": filters.kinds,
            "conversation_id": filters.conversation_ids,
            "session_id": filters.session_ids,
            "speaker": filters.speakers,
        }
        for column, allowed in allowed_by_column.items():
            if allowed is not None:
                mask &= np.isin(self._column(column), [str(v) for v in allowed])
        if filters.time_from is not None or filters.time_to is not None:
            low, high = filters.time_from, filters.time_to
            times = self.columns["time"]
            mask &= np.fromiter(
                (
                    t is not None and (low is None or t >= low) and (high is None or t <= high)
                    for t in times
                ),
                dtype=bool,
                count=self.size,
            )
        self._masks[filters] = mask
        return mask

    def _column(self, name: str) -> npt.NDArray[Any]:
        if name not in self._column_arrays:
            self._column_arrays[name] = np.array(self.columns[name], dtype=object)
        return self._column_arrays[name]

    def top(self, rows: IntArray, picked: FloatArray, k: int, positive: bool) -> list[Hit]:
        """The best ``k`` of ``rows`` by their scores ``picked``, ties broken by doc_id (as
        every backend does)."""
        if positive:  # lexical: only documents sharing a term with the query
            keep = picked > 0
            rows, picked = rows[keep], picked[keep]
        if rows.size == 0:
            return []
        k = min(k, rows.size)
        top = np.argpartition(-picked, k - 1)[:k] if k < rows.size else np.arange(rows.size)
        hits = [Hit(doc_id=self.doc_ids[rows[i]], score=float(picked[i])) for i in top]
        hits.sort(key=lambda h: (-h.score, h.doc_id))
        return hits


class _DenseQuery:
    """One query vector against one field: exact scores of every document, or (large index)
    the Hamming first pass that picks which admitted documents to score exactly."""

    def __init__(
        self,
        vectors: FloatArray,
        query: FloatArray,
        exact: FloatArray | None = None,
        distances: npt.NDArray[np.int32] | None = None,
    ) -> None:
        self.vectors, self.query, self.exact, self.distances = vectors, query, exact, distances

    def scores(self, rows: IntArray, k: int) -> tuple[IntArray, FloatArray]:
        """Candidate rows among ``rows`` and their exact cosine scores."""
        if self.exact is not None:
            return rows, self.exact[rows]
        assert self.distances is not None
        candidates = max(OVERSAMPLE * k, MIN_CANDIDATES)
        if candidates < rows.size:
            rows = rows[np.argpartition(self.distances[rows], candidates - 1)[:candidates]]
        exact: FloatArray = self.vectors[rows] @ self.query
        return rows, exact


def _scores_of(
    scored: FloatArray | _DenseQuery, rows: IntArray, k: int
) -> tuple[IntArray, FloatArray]:
    if isinstance(scored, _DenseQuery):
        return scored.scores(rows, k)
    return rows, scored[rows]


class EmbeddedIndex:
    """SearchIndex in-process: SQLite for storage, numpy for BM25 and exact cosine kNN."""

    def __init__(self, path: Path | str = ":memory:") -> None:
        self._path = str(path)
        self._conn: sqlite3.Connection | None = None
        self._dimensions = 0
        self._memory: _Memory | None = None
        self._lock = threading.RLock()

    def _db(self) -> sqlite3.Connection:
        if self._conn is None:
            self._open_existing()
        assert self._conn is not None
        return self._conn

    def _open_existing(self) -> None:
        """Open an index file built earlier, so a reader needs no ``create()`` (before, a
        fresh EmbeddedIndex on a built file raised on every search, and the agent's prefetch
        read that as "no turns found"). A missing file is still an error naming the path."""
        with self._lock:
            if self._conn is not None:
                return
            if self._path == ":memory:" or not Path(self._path).is_file():
                raise SearchError(
                    f"EmbeddedIndex: no index at {self._path}; call create() first "
                    "(apexmem index builds one)"
                )
            db = connect(self._path)
            try:
                row = db.execute(
                    "SELECT value FROM search_meta WHERE key = 'dimensions'"
                ).fetchone()
            except sqlite3.DatabaseError as exc:
                db.close()
                raise SearchError(f"{self._path} is not a search index: {exc}") from exc
            if row is None:
                db.close()
                raise SearchError(f"{self._path} is not a search index: no dimensions stored")
            with db:
                embedded_file.migrate_to_scopes(db)
            self._conn, self._dimensions = db, int(row[0])

    def create(self, dimensions: int, embedder: str = "") -> None:
        with self._lock:
            if self._conn is None:
                self._conn = connect(self._path)
            embedded_file.create_schema(self._conn, self._path, dimensions, embedder)
            self._conn.commit()
            self._dimensions = dimensions

    def embedder_info(self) -> EmbedderInfo | None:
        with self._lock:
            return None if self._missing() else embedded_file.recorded(self._db())

    def _missing(self) -> bool:
        """Whether no index is open and none exists to open (no file, or in memory)."""
        return self._conn is None and (self._path == ":memory:" or not Path(self._path).is_file())

    def upsert(self, docs: Iterable[IndexedDocument]) -> int:
        written = 0
        with self._lock:
            db = self._db()
            with db:
                for item in docs:
                    row = _row(item)
                    db.execute(_UPSERT, row)
                    if self._memory is not None:
                        self._memory_put(self._memory, row)
                    written += 1
        return written

    def retrieve(self, requests: Sequence[ChannelRequest]) -> list[list[Hit]]:
        with self._lock:
            memory = self._load()
            # Score each (method, field, query) once; every kind filter reuses the scores.
            scored: dict[tuple[Any, ...], FloatArray | _DenseQuery] = {}
            out: list[list[Hit]] = []
            for request in requests:
                lexical = request.method is Method.LEXICAL
                key = (request.method, request.field, request.terms if lexical else request.vector)
                if memory.size == 0 or not (request.terms if lexical else request.vector):
                    out.append([])
                    continue
                if key not in scored:
                    scored[key] = (
                        memory.lexical_scores(request.field, request.terms)
                        if lexical
                        else memory.dense_query(
                            request.field, np.asarray(request.vector, np.float32)
                        )
                    )
                rows, picked = _scores_of(scored[key], memory.admitted(request.filters), request.k)
                out.append(memory.top(rows, picked, request.k, positive=lexical))
            return out

    def _load(self) -> _Memory:
        """Read every document into memory once (later writes keep it current)."""
        if self._memory is not None:
            return self._memory
        db = self._db()  # first: opening an existing file reads its dimensions
        memory = _Memory(self._dimensions)
        sql = f"SELECT {', '.join(_COLUMNS)} FROM search_docs ORDER BY rowid"
        memory.load(db.execute(sql).fetchall())
        self._memory = memory
        return memory

    @staticmethod
    def _memory_put(memory: _Memory, row: Sequence[Any]) -> None:
        """One ``_COLUMNS`` row (as ``_row`` makes it) into memory."""
        memory.put(
            row[_AT["doc_id"]],
            [row[_AT[column]] for column in _FILTER_COLUMNS],
            [row[_AT[f"{field.value}_terms"]] for field in _FIELDS],
            [np.frombuffer(row[_AT[f"{field.value}_vector"]], np.float32) for field in _FIELDS],
        )

    def get(self, doc_ids: Sequence[str]) -> dict[str, SearchDocument]:
        out: dict[str, SearchDocument] = {}
        ids = list(doc_ids)
        with self._lock:
            for start in range(0, len(ids), 500):
                chunk = ids[start : start + 500]
                marks = ",".join("?" * len(chunk))
                rows = self._db().execute(
                    f"SELECT doc_id, doc_json FROM search_docs WHERE doc_id IN ({marks})", chunk
                )
                for doc_id, raw in rows:
                    out[doc_id] = SearchDocument.model_validate_json(raw)
        return out

    def optimize(self) -> None:
        """Load the index into memory and build its postings and sign bits now, so the first
        search after a bulk load does not pay for them; SQLite's own statistics are refreshed."""
        with self._lock:
            self._db().execute("PRAGMA optimize")
            self._load().warm()

    def delete_documents(
        self, scope: str, graph_ids: Collection[str] | None = None
    ) -> list[SearchDocument]:
        """Erase the scope's documents of ``graph_ids`` (all when None) from the file and from
        memory; the erased documents. Nothing is left of them in the file's free space (see
        ``embedded_file``) or in its write-ahead log, which is truncated."""
        with self._lock:
            if self._missing() or embedded_file.recorded(self._db()) is None:
                return []  # never created, or dropped
            where = f"search index {self._path}"
            erased = embedded_file.erase(self._db(), scope, graph_ids, where)
            if erased:
                self._memory = None  # slots are positions: the next query reloads
            return erased

    def count(self) -> int:
        with self._lock:
            row = self._db().execute("SELECT count(*) FROM search_docs").fetchone()
        return int(row[0])

    def drop(self) -> None:
        with self._lock:
            if self._conn is None:
                if not os.path.exists(self._path):
                    return  # never created: nothing to drop
                self._conn = connect(self._path)
            db = self._conn
            for table in embedded_file.TABLES:
                db.execute(f"DROP TABLE IF EXISTS {table}")
            db.commit()
            self._memory = None

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
            self._memory = None


_COLUMNS = (
    "doc_id",
    *_FILTER_COLUMNS,
    "doc_json",
    "text_vector",
    "context_vector",
    "text_terms",
    "context_terms",
)
_AT = {column: i for i, column in enumerate(_COLUMNS)}
_UPSERT = (
    f"INSERT INTO search_docs ({', '.join(_COLUMNS)}) "
    f"VALUES ({', '.join('?' * len(_COLUMNS))}) ON CONFLICT (doc_id) DO UPDATE SET "
    + ", ".join(f"{column} = excluded.{column}" for column in _COLUMNS[1:])
)


def _row(item: IndexedDocument) -> tuple[Any, ...]:
    """The document as a row in ``_COLUMNS`` order."""
    doc = item.doc
    return (
        doc.doc_id,
        doc.scope,
        doc.kind.value,
        doc.conversation_id,
        doc.session_id,
        doc.speaker,
        doc.time,
        doc.model_dump_json(),
        _unit(item.text_vector).tobytes(),
        _unit(item.context_vector).tobytes(),
        item.text_terms,
        item.context_terms,
    )


def _unit(vector: FloatArray) -> FloatArray:
    """Cosine becomes a dot product: vectors are stored at unit length (zero stays zero)."""
    v = np.asarray(vector, dtype=np.float32)
    norm = float(np.linalg.norm(v))
    return v / norm if norm > 0 else v
