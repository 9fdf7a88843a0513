"""Indexing throughput and query latency per backend at 10k and 100k documents.

Documents are synthetic (Zipf-distributed words, 70% turns, 10% each other kind) with random
unit vectors of the model's size, so the figures measure the backends and the shared search
code, not the model; the model's own throughput (documents/s, query embedding ms) is measured
separately on a sample of real text.

    .venv/bin/python -m benchmarks.search.speed [--sizes 10000 100000] [--backends ...]

``--optimize`` adds, for Elasticsearch, the latency after a force-merge to one segment
(``ElasticsearchIndex.optimize``, what `apexmem index` does after a bulk load) and what the
merge cost. Latency: the first query, the next ``--warmup`` queries and the ``--queries``
after them (the steady-state p50/p95) are reported apart, each phase with its own queries.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Sequence
from typing import Any

import numpy as np
from rich.console import Console
from rich.table import Table

from apexmem_neo.search.backends import embedded
from apexmem_neo.search.backends.elasticsearch import ElasticsearchIndex
from apexmem_neo.search.config import preset
from apexmem_neo.search.documents import DocKind, SearchDocument
from apexmem_neo.search.embedder import DEFAULT_MODEL
from apexmem_neo.search.engine import HybridSearch
from apexmem_neo.search.protocol import IndexedDocument, SearchFilters
from apexmem_neo.search.text import analyzed_string
from apexmem_neo.testing import HashingEmbedder
from benchmarks.search import common

DIMS = 768  # the default model's (all-mpnet-base-v2)
KIND_MIX = [DocKind.TURN] * 7 + [DocKind.ENTITY, DocKind.PROPERTY, DocKind.EVENT]


BENCH_SCOPE = "bench"
"""Every synthetic document belongs to one scope, as a single user's memory would."""


def synthetic(n: int, seed: int = 0) -> list[IndexedDocument]:
    """``n`` documents of 8-40 Zipf words over a 20k-word vocabulary, random unit vectors."""
    rng = np.random.default_rng(seed)
    vocab = np.array([f"w{i}" for i in range(20000)])
    vectors = rng.standard_normal((n, 2, DIMS)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=2, keepdims=True)
    docs = []
    for i in range(n):
        words = vocab[np.minimum(rng.zipf(1.3, size=int(rng.integers(8, 40))), 19999)]
        text = " ".join(words)
        doc = SearchDocument(
            kind=KIND_MIX[i % 10],
            graph_id=f"g{i}",
            text=text,
            context=text,
            speaker=f"s{i % 7}",
            session_id=f"ses{i % 500}",
            conversation_id=f"c{i % 50}",
            scope=BENCH_SCOPE,
            time=f"2023-{1 + i % 12:02d}-{1 + i % 28:02d}T00:00:00",
        )
        terms = analyzed_string(text)
        docs.append(IndexedDocument(doc, terms, terms, vectors[i, 0], vectors[i, 1]))
    return docs


def queries(n: int, seed: int = 1) -> list[str]:
    rng = np.random.default_rng(seed)
    return [" ".join(f"w{int(w)}" for w in rng.integers(1, 400, size=4)) for _ in range(n)]


class PrecomputedEmbedder:
    """The hashing embedder with the benchmark's queries embedded up front, so the timings
    measure the index and the shared search code, not the embedder (measured apart)."""

    def __init__(self, texts: list[str]) -> None:
        self._inner = HashingEmbedder(dimensions=DIMS)
        self._vectors = dict(zip(texts, self._inner.embed(texts), strict=True))
        self.name, self.dimensions, self.max_tokens = "precomputed", DIMS, 10_000

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return [self._vectors.get(t) or self._inner.embed([t])[0] for t in texts]

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def truncate(self, text: str) -> str:
        return text


def measure(backend: str, size: int, args: argparse.Namespace) -> dict[str, float]:
    docs = synthetic(size)
    index, close = common.make_index(
        backend, args.es_url, args.neo4j_uri, "speed", args.es_vector_index
    )
    try:
        index.create(DIMS)
        started = time.perf_counter()
        for start in range(0, size, 10000):
            index.upsert(docs[start : start + 10000])
        row: dict[str, float] = {
            "docs": size,
            "index_docs_per_s": size / (time.perf_counter() - started),
        }
        count = 1 + args.warmup + args.queries
        texts, after_merge = queries(count), queries(count, seed=2)
        embedder = PrecomputedEmbedder(texts + after_merge)
        search = HybridSearch(index, embedder, preset(args.preset))
        row.update(latency(search, texts, args.warmup))
        if args.optimize and isinstance(index, ElasticsearchIndex):
            # Force-merge, then new queries (none repeats one timed before the merge).
            row["segments_before_optimize"] = index.segments()
            started = time.perf_counter()
            index.optimize(1)
            row["optimize_s"] = time.perf_counter() - started
            timed = latency(search, after_merge, args.warmup)
            row.update({f"optimized_{k}": v for k, v in timed.items()})
    finally:
        close()
    return row


def latency(search: HybridSearch, texts: list[str], warmup: int) -> dict[str, float]:
    """search(query, k=10) over ``texts``: the first query, then ``warmup`` queries, then the
    rest, each reported apart. The steady-state p50/p95 are of the rest only: a server answers
    its first queries slower while its caches (OS pages of new segment files, filter bitsets,
    JIT) fill, and that start-up cost is the warm-up p50, not the steady figure."""
    latencies = []
    for query in texts:
        t0 = time.perf_counter()
        search.search(query, k=10, filters=SearchFilters(scope=BENCH_SCOPE))
        latencies.append(1000 * (time.perf_counter() - t0))
    # The first query loads what a backend keeps in memory (embedded: every document).
    first_ms, warm, steady = latencies[0], latencies[1 : 1 + warmup], latencies[1 + warmup :]
    q = statistics.quantiles(steady, n=20)
    return {
        "query_p50_ms": statistics.median(steady),
        "query_p95_ms": q[18],
        "warmup_p50_ms": statistics.median(warm) if warm else float("nan"),
        "first_query_ms": first_ms,
    }


def model_speed(name: str, n: int = 256) -> dict[str, float]:
    """The embedder's own cost: documents/s on LOCOMO-like sentences, query embedding ms."""
    from apexmem_neo.search.embedder import SentenceTransformerEmbedder

    model = SentenceTransformerEmbedder(name, models_dir=common.SETTINGS.models_dir)
    model.embed(["warm up"])
    texts = [
        f"Caroline: I went to the support group number {i} and it was so powerful."
        for i in range(n)
    ]
    t0 = time.perf_counter()
    model.embed(texts)
    docs_per_s = n / (time.perf_counter() - t0)
    lat = []
    for i in range(30):
        t1 = time.perf_counter()
        model.embed([f"When did Caroline go to group {i}?"])
        lat.append(1000 * (time.perf_counter() - t1))
    return {"embed_docs_per_s": docs_per_s, "query_embed_p50_ms": statistics.median(lat)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", nargs="+", type=int, default=[10000, 100000])
    parser.add_argument("--backends", nargs="+", default=list(common.BACKENDS))
    parser.add_argument("--preset", default="hybrid")
    parser.add_argument("--queries", type=int, default=200, help="timed queries (steady state)")
    parser.add_argument(
        "--warmup", type=int, default=50, help="queries after the first, reported apart"
    )
    parser.add_argument("--no-model", action="store_true", help="skip the model's own speed")
    parser.add_argument("--model", default=DEFAULT_MODEL, help="the embedding model to time")
    parser.add_argument("--es-url", default="http://127.0.0.1:9200")
    parser.add_argument("--neo4j-uri", default="bolt://127.0.0.1:7687")
    common.add_es_vector_index_argument(parser)
    parser.add_argument(
        "--embedded-exact",
        action="store_true",
        help="embedded: exact cosine at every size (no sign-bit first pass), for comparison",
    )
    parser.add_argument(
        "--optimize",
        action="store_true",
        help="Elasticsearch: after the first timing, force-merge to one segment and time again",
    )
    args = parser.parse_args(argv)
    if args.embedded_exact:
        embedded.EXACT_DENSE_LIMIT = sys.maxsize
    rows: list[dict[str, Any]] = []
    for size in args.sizes:
        for backend in args.backends:
            row = {"backend": backend, **measure(backend, size, args)}
            print(row)
            rows.append(row)
    model = {} if args.no_model else model_speed(args.model)
    out = Table(
        title=f"Search speed (preset {args.preset}, search(query, k=10): 4 groups; "
        f"Elasticsearch vectors {args.es_vector_index})"
    )
    columns = (
        "backend",
        "docs",
        "index docs/s",
        "query p50 ms",
        "query p95 ms",
        "warm-up p50 ms",
        "first query ms",
    )
    for col in columns:
        out.add_column(col, justify="left" if col == "backend" else "right")
    for r in rows:
        out.add_row(
            r["backend"],
            str(r["docs"]),
            f"{r['index_docs_per_s']:.0f}",
            f"{r['query_p50_ms']:.1f}",
            f"{r['query_p95_ms']:.1f}",
            f"{r['warmup_p50_ms']:.1f}",
            f"{r['first_query_ms']:.0f}",
        )
    Console().print(out)
    for r in rows:
        if "optimize_s" in r:
            print(
                f"{r['backend']} {r['docs']}: force-merge {r['segments_before_optimize']} segments "
                f"-> 1 took {r['optimize_s']:.0f} s; then query p50 "
                f"{r['optimized_query_p50_ms']:.1f} ms, p95 {r['optimized_query_p95_ms']:.1f} ms "
                f"(warm-up p50 {r['optimized_warmup_p50_ms']:.1f} ms)"
            )
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"load average (1, 5, 15 min) at the end: {load}")
    if model:
        print(
            f"model {args.model}: {model['embed_docs_per_s']:.0f} docs/s, "
            f"query embedding p50 {model['query_embed_p50_ms']:.1f} ms"
        )
    suffix = "" if args.es_vector_index == "auto" else f"_{args.es_vector_index}"
    print(
        "wrote",
        common.write_json(
            f"search_speed_{'_'.join(args.backends)}{suffix}.json",
            {
                "preset": args.preset,
                "es_vector_index": args.es_vector_index,
                "rows": rows,
                "model": {"name": args.model, **model},
                "load_avg": os.getloadavg(),
            },
        ),
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
