"""Turn-level evidence recall on LOCOMO (categories 1-4), per backend and search preset.

For every question, the conversation's turns are ranked by the search and recall@k is the
share of the question's evidence dia_ids in the top k, averaged over questions.

    .venv/bin/python -m benchmarks.search.locomo_recall [--data PATH] [--backends ...]
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from rich.console import Console
from rich.table import Table

from apexmem_neo.search.config import preset
from apexmem_neo.search.documents import DEFAULT_WINDOW, DocKind
from apexmem_neo.search.embedder import DEFAULT_MODEL
from apexmem_neo.search.engine import HybridSearch
from apexmem_neo.search.protocol import Embedder, SearchFilters, SearchIndex
from benchmarks.locomo.data import add_data_argument, locomo_data
from benchmarks.search import common, locomo

KS = (5, 10, 20)


def evaluate(search: HybridSearch, convs: list[locomo.Conversation]) -> dict[str, float]:
    """Mean recall@k over every question of every conversation, and queries per second."""
    totals = dict.fromkeys(KS, 0.0)
    count = 0
    started = time.perf_counter()
    for conv in convs:
        filters = SearchFilters(
            kinds=(DocKind.TURN,),
            conversation_ids=(conv.conversation_id,),
            scope=conv.conversation_id,  # a conversation is its own scope
        )
        for q in conv.questions:
            if not q.evidence:
                continue
            hits = search.rank(q.question, max(KS), filters)
            ranked = [conv.dia_of.get(h.graph_id, "") for h in hits]
            for k in KS:
                found = set(ranked[:k]) & set(q.evidence)
                totals[k] += len(found) / len(set(q.evidence))
            count += 1
    elapsed = time.perf_counter() - started
    out = {f"R@{k}": totals[k] / count for k in KS}
    out["questions"] = count
    out["ms_per_query"] = 1000 * elapsed / count
    return out


def run_backend(
    backend: str, args: argparse.Namespace, embedder: Embedder, convs: list[locomo.Conversation]
) -> dict[str, dict[str, float]]:
    index, close = common.make_index(
        backend, args.es_url, args.neo4j_uri, "locomo", args.es_vector_index
    )
    results: dict[str, dict[str, float]] = {}
    try:
        loader = HybridSearch(index, embedder)
        loader.create()
        started = time.perf_counter()
        for conv in convs:
            loader.index_documents(conv.documents)
        _refresh(index)
        print(f"{backend}: indexed {index.count()} docs in {time.perf_counter() - started:.1f}s")
        for name in args.presets:
            results[name] = evaluate(HybridSearch(index, embedder, preset(name)), convs)
            print(backend, name, {k: round(v, 3) for k, v in results[name].items()})
    finally:
        close()
    return results


def _refresh(index: SearchIndex) -> None:
    refresh = getattr(index, "refresh", None)
    if callable(refresh):
        refresh()


def table(results: dict[str, dict[str, dict[str, float]]]) -> Table:
    out = Table(title="LOCOMO turn evidence recall (categories 1-4)")
    for column in ("backend", "preset", *(f"R@{k}" for k in KS), "ms/query"):
        out.add_column(column, justify="left" if column in ("backend", "preset") else "right")
    for backend, by_preset in results.items():
        for name, row in by_preset.items():
            cells = [f"{row[f'R@{k}']:.3f}" for k in KS]
            out.add_row(backend, name, *cells, f"{row['ms_per_query']:.1f}")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    add_data_argument(parser)
    parser.add_argument("--backends", nargs="+", default=list(common.BACKENDS))
    parser.add_argument("--presets", nargs="+", default=["bm25_only", "dense_only", "hybrid"])
    parser.add_argument("--model", default=DEFAULT_MODEL)
    parser.add_argument("--window", type=int, default=DEFAULT_WINDOW)
    parser.add_argument("--es-url", default="http://127.0.0.1:9200")
    parser.add_argument("--neo4j-uri", default="bolt://127.0.0.1:7687")
    common.add_es_vector_index_argument(parser)
    args = parser.parse_args(argv)
    args.data = locomo_data(args.data)
    convs = locomo.load(args.data, window=args.window)
    embedder = common.embedder(args.model)
    results = {b: run_backend(b, args, embedder, convs) for b in args.backends}
    Console().print(table(results))
    payload: dict[str, Any] = {"data": str(args.data), "model": args.model, "results": results}
    print("wrote", common.write_json("search_locomo_recall.json", payload))
    return 0


if __name__ == "__main__":
    sys.exit(main())
