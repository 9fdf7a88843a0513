"""The embedded index for the SQLite default: FTS5 BM25 plus exact cosine in numpy.

One SQLite file (or ``:memory:``) holds the documents, their vectors (float32 blobs) and one
FTS5 table per field. Vectors are loaded into numpy matrices on the first dense query after a
write; a dense query is one matrix-vector product over the rows the filters admit.
"""

from __future__ import annotations

import dataclasses
import sqlite3
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from apexmem_neo.search.config import DocField, Method
from apexmem_neo.search.documents import SearchDocument
from apexmem_neo.search.protocol import (
    ChannelRequest,
    Hit,
    IndexedDocument,
    SearchError,
    SearchFilters,
)

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS search_docs (rowid INTEGER PRIMARY KEY, doc_id TEXT UNIQUE "
    "NOT NULL, kind TEXT NOT NULL, conversation_id TEXT, session_id TEXT, speaker TEXT, "
    "time TEXT, doc_json TEXT NOT NULL, text_vector BLOB NOT NULL, context_vector BLOB NOT NULL)",
    "CREATE TABLE IF NOT EXISTS search_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE VIRTUAL TABLE IF NOT EXISTS search_fts_text USING fts5(terms, tokenize='unicode61')",
    "CREATE VIRTUAL TABLE IF NOT EXISTS search_fts_context USING fts5(terms, "
    "tokenize='unicode61')",
)
_FTS = {DocField.TEXT: "search_fts_text", DocField.CONTEXT: "search_fts_context"}
_FILTER_COLUMNS = ("kind", "conversation_id", "session_id", "speaker")


@dataclass
class _Matrix:
    """The dense side in memory: doc ids, metadata columns and one matrix per field."""

    doc_ids: npt.NDArray[Any]
    columns: dict[str, npt.NDArray[Any]]
    vectors: dict[DocField, npt.NDArray[np.float32]]
    rows: dict[SearchFilters, npt.NDArray[np.intp]] = dataclasses.field(default_factory=dict)

    def admitted(self, filters: SearchFilters) -> npt.NDArray[np.intp]:
        """Row numbers the filters admit (memoised: kind filters repeat on every search)."""
        if filters not in self.rows:
            if len(self.rows) > 256:
                self.rows.clear()
            self.rows[filters] = np.flatnonzero(_mask(self, filters))
        return self.rows[filters]


class EmbeddedIndex:
    """SearchIndex in-process: SQLite FTS5 for BM25, numpy for exact cosine kNN."""

    def __init__(self, path: Path | str = ":memory:") -> None:
        self._path = str(path)
        self._conn: sqlite3.Connection | None = None
        self._matrix: _Matrix | None = None
        self._lock = threading.RLock()

    def _db(self) -> sqlite3.Connection:
        if self._conn is None:
            raise SearchError("EmbeddedIndex: call create() before using the index")
        return self._conn

    def create(self, dimensions: int) -> None:
        with self._lock:
            if self._conn is None:
                self._conn = sqlite3.connect(self._path, check_same_thread=False)
            db = self._conn
            for statement in _SCHEMA:
                db.execute(statement)
            row = db.execute("SELECT value FROM search_meta WHERE key = 'dimensions'").fetchone()
            if row is not None and int(row[0]) != dimensions:
                raise SearchError(
                    f"index at {self._path} holds {row[0]}-d vectors, not {dimensions}-d"
                )
            db.execute(
                "INSERT OR IGNORE INTO search_meta VALUES ('dimensions', ?)", (str(dimensions),)
            )
            db.commit()

    def upsert(self, docs: Sequence[IndexedDocument]) -> int:
        with self._lock:
            db = self._db()
            with db:
                for item in docs:
                    self._upsert_one(db, item)
            self._matrix = None
        return len(docs)

    def _upsert_one(self, db: sqlite3.Connection, item: IndexedDocument) -> None:
        doc = item.doc
        old = db.execute("SELECT rowid FROM search_docs WHERE doc_id = ?", (doc.doc_id,))
        found = old.fetchone()
        if found is not None:
            for table in _FTS.values():
                db.execute(f"DELETE FROM {table} WHERE rowid = ?", (found[0],))
            db.execute("DELETE FROM search_docs WHERE rowid = ?", (found[0],))
        cur = db.execute(
            "INSERT INTO search_docs (doc_id, kind, conversation_id, session_id, speaker, time, "
            "doc_json, text_vector, context_vector) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                doc.doc_id,
                doc.kind.value,
                doc.conversation_id,
                doc.session_id,
                doc.speaker,
                doc.time,
                doc.model_dump_json(),
                np.asarray(item.text_vector, dtype=np.float32).tobytes(),
                np.asarray(item.context_vector, dtype=np.float32).tobytes(),
            ),
        )
        rowid = cur.lastrowid
        db.execute(
            "INSERT INTO search_fts_text (rowid, terms) VALUES (?, ?)", (rowid, item.text_terms)
        )
        db.execute(
            "INSERT INTO search_fts_context (rowid, terms) VALUES (?, ?)",
            (rowid, item.context_terms),
        )

    def retrieve(self, requests: Sequence[ChannelRequest]) -> list[list[Hit]]:
        with self._lock:
            lexical = self._lexical_batch(requests)
            # One matrix-vector product per (field, query vector), shared by every kind filter.
            scored: dict[tuple[DocField, tuple[float, ...]], npt.NDArray[np.float32]] = {}
            return [
                lexical[i] if r.method is Method.LEXICAL else self._dense(r, scored)
                for i, r in enumerate(requests)
            ]

    def _lexical_batch(self, requests: Sequence[ChannelRequest]) -> dict[int, list[Hit]]:
        """Lexical requests differing only in kinds share one FTS5 query, ranked per kind."""
        groups: dict[tuple[Any, ...], list[int]] = {}
        for i, r in enumerate(requests):
            if r.method is Method.LEXICAL:
                rest = r.filters.model_copy(update={"kinds": None})
                groups.setdefault(
                    (r.field, r.terms, r.k, rest, r.filters.kinds is None), []
                ).append(i)
        out: dict[int, list[Hit]] = {}
        for (field, terms, k, rest, unkinded), members in groups.items():
            if not terms:
                out.update((i, []) for i in members)
                continue
            kinds = (
                None
                if unkinded
                else sorted({kd for i in members for kd in requests[i].filters.kinds or ()})
            )
            rows = self._fts(
                field, terms, k, rest.model_copy(update={"kinds": kinds and tuple(kinds)})
            )
            for i in members:
                wanted = requests[i].filters.kinds
                hits = [h for kind, h in rows if wanted is None or kind in wanted]
                hits.sort(key=lambda h: (-h.score, h.doc_id))
                out[i] = hits[:k]
        return out

    def _fts(
        self, field: DocField, terms: tuple[str, ...], k: int, filters: SearchFilters
    ) -> list[tuple[str, Hit]]:
        """Top ``k`` BM25 hits per kind, as (kind, hit) pairs."""
        match = " OR ".join(f'"{term}"' for term in terms)
        where, params = _sql_filters(filters)
        table = _FTS[field]
        sql = (
            f"WITH m AS MATERIALIZED (SELECT d.kind AS kind, d.doc_id AS doc_id, "
            f"bm25({table}) AS s FROM {table} JOIN search_docs d ON d.rowid = {table}.rowid "
            f"WHERE {table} MATCH ?{where}) SELECT kind, doc_id, s FROM (SELECT kind, doc_id, s, "
            "row_number() OVER (PARTITION BY kind ORDER BY s, doc_id) AS rn FROM m) WHERE rn <= ?"
        )
        rows = self._db().execute(sql, [match, *params, k]).fetchall()
        return [(kind, Hit(doc_id=doc_id, score=-score)) for kind, doc_id, score in rows]

    def _dense(
        self,
        request: ChannelRequest,
        scored: dict[tuple[DocField, tuple[float, ...]], npt.NDArray[np.float32]],
    ) -> list[Hit]:
        matrix = self._load_matrix()
        if matrix.doc_ids.size == 0 or not request.vector:
            return []
        rows = matrix.admitted(request.filters)
        if rows.size == 0:
            return []
        key = (request.field, request.vector)
        if key not in scored:
            query = np.asarray(request.vector, dtype=np.float32)
            scored[key] = matrix.vectors[request.field] @ query
        scores = scored[key][rows]
        k = min(request.k, rows.size)
        top = np.argpartition(-scores, k - 1)[:k]
        order = sorted(
            top.tolist(), key=lambda i: (-float(scores[i]), str(matrix.doc_ids[rows[i]]))
        )
        return [Hit(doc_id=str(matrix.doc_ids[rows[i]]), score=float(scores[i])) for i in order]

    def _load_matrix(self) -> _Matrix:
        if self._matrix is not None:
            return self._matrix
        rows = (
            self._db()
            .execute(
                "SELECT doc_id, kind, conversation_id, session_id, speaker, time, text_vector, "
                "context_vector FROM search_docs ORDER BY rowid"
            )
            .fetchall()
        )
        cols = list(zip(*rows, strict=True)) if rows else [()] * 8
        names = ("kind", "conversation_id", "session_id", "speaker", "time")
        self._matrix = _Matrix(
            doc_ids=np.array(cols[0], dtype=object),
            columns={n: np.array(cols[i + 1], dtype=object) for i, n in enumerate(names)},
            vectors={
                DocField.TEXT: _stack(cols[6]),
                DocField.CONTEXT: _stack(cols[7]),
            },
        )
        return self._matrix

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

    def count(self) -> int:
        with self._lock:
            row = self._db().execute("SELECT count(*) FROM search_docs").fetchone()
        return int(row[0])

    def drop(self) -> None:
        with self._lock:
            db = self._db()
            for table in ("search_docs", "search_meta", *_FTS.values()):
                db.execute(f"DROP TABLE IF EXISTS {table}")
            db.commit()
            self._matrix = None

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
            self._matrix = None


def _stack(blobs: Sequence[bytes]) -> npt.NDArray[np.float32]:
    if not blobs:
        return np.zeros((0, 0), dtype=np.float32)
    return np.vstack([np.frombuffer(b, dtype=np.float32) for b in blobs])


def _sql_filters(filters: SearchFilters) -> tuple[str, list[Any]]:
    clauses: list[str] = []
    params: list[Any] = []
    values = (filters.kinds, filters.conversation_ids, filters.session_ids, filters.speakers)
    for column, allowed in zip(_FILTER_COLUMNS, values, strict=True):
        if allowed is not None:
            clauses.append(f"d.{column} IN ({','.join('?' * len(allowed))})")
            params.extend(str(v) for v in allowed)
    if filters.time_from is not None:
        clauses.append("d.time >= ?")
        params.append(filters.time_from)
    if filters.time_to is not None:
        clauses.append("d.time <= ?")
        params.append(filters.time_to)
    return "".join(f" AND {c}" for c in clauses), params


def _mask(matrix: _Matrix, filters: SearchFilters) -> npt.NDArray[np.bool_]:
    mask = np.ones(matrix.doc_ids.size, dtype=bool)
    values = (filters.kinds, filters.conversation_ids, filters.session_ids, filters.speakers)
    for column, allowed in zip(_FILTER_COLUMNS, values, strict=True):
        if allowed is not None:
            mask &= np.isin(matrix.columns[column], [str(v) for v in allowed])
    times = matrix.columns["time"]
    if filters.time_from is not None or filters.time_to is not None:
        low, high = filters.time_from, filters.time_to
        mask &= np.array(
            [
                t is not None and (low is None or t >= low) and (high is None or t <= high)
                for t in times
            ],
            dtype=bool,
        )
    return mask
