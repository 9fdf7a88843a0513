"""Write the study's data files: the gold graph and the questions with computed gold answers.

    python -m benchmarks.query_languages.generate [--seed 7] [--per-kind 20]

``data/gold_graph.json`` is the GraphBatch (generated timelines);
``data/questions.jsonl`` holds one question per line, its gold answer computed on the
plain-Python reference store. Deterministic for a seed: re-running rewrites identical files.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Final

from apexmem_neo.ontology import GraphBatch
from apexmem_neo.store.reference import InMemoryGraphStore
from benchmarks.query_languages.gold import DATA_DIR, DEFAULT_SEED, gold_batch, merged_gold
from benchmarks.query_languages.questions import PER_KIND, Question, as_record, build_questions

GOLD_GRAPH: Final = DATA_DIR / "gold_graph.json"
QUESTIONS: Final = DATA_DIR / "questions.jsonl"


def reference_store(batch: GraphBatch) -> InMemoryGraphStore:
    store = InMemoryGraphStore()
    store.init_schema()
    store.write(batch)
    return store


def generate(seed: int = 7, per_kind: int = PER_KIND) -> tuple[GraphBatch, list[Question]]:
    batch = gold_batch(seed)
    return batch, build_questions(batch, reference_store(batch), seed, per_kind)


def generate_seeds(
    seeds: Sequence[int], per_kind: int = PER_KIND
) -> tuple[GraphBatch, list[Question]]:
    """The gold graph of several seeds and ``per_kind`` questions per seed and kind over all
    of it. Gold answers come from the merged graph (a count spans every seed's people); the
    default seed alone gives exactly the data files, any other seed set tags its qids with
    the seeds so they never meet another set's in one results file."""
    batch = merged_gold(seeds)
    questions = build_questions(batch, reference_store(batch), seeds[0], per_kind * len(seeds))
    if list(seeds) == [DEFAULT_SEED]:
        return batch, questions
    tag = "s" + "-".join(str(s) for s in seeds) + "_"
    return batch, [q.model_copy(update={"qid": tag + q.qid}) for q in questions]


def load_gold(path: Path = GOLD_GRAPH) -> GraphBatch:
    return GraphBatch.model_validate_json(path.read_text(encoding="utf-8"))


def load_questions(path: Path = QUESTIONS) -> list[Question]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [Question.model_validate_json(line) for line in lines if line.strip()]


def write(batch: GraphBatch, questions: list[Question], out_dir: Path = DATA_DIR) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    graph = batch.model_dump(mode="json", exclude_none=True)
    (out_dir / GOLD_GRAPH.name).write_text(json.dumps(graph, indent=1) + "\n", encoding="utf-8")
    rows = [json.dumps(as_record(q), ensure_ascii=False) for q in questions]
    (out_dir / QUESTIONS.name).write_text("\n".join(rows) + "\n", encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--per-kind", type=int, default=PER_KIND)
    parser.add_argument("--out-dir", type=Path, default=DATA_DIR)
    args = parser.parse_args()
    batch, questions = generate(args.seed, args.per_kind)
    write(batch, questions, args.out_dir)
    kinds = Counter(q.kind for q in questions)
    print(f"{len(batch.facts)} facts, {len(questions)} questions: {dict(kinds)} -> {args.out_dir}")


if __name__ == "__main__":
    main()
