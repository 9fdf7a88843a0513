"""Contexts the fast path builds for varied questions over the unit tests' graphs.

``context_cases`` builds every case's context in each style; the expected outputs were
recorded from the code before the question rules left ``agent/context.py`` (issue 49), so a
refactor that changes one character of what the model reads fails ``test_context_unchanged``.
A change made on purpose re-records them (issue 48: computed lines only for the persons a
question names, no "changed" line unless it asks about changes, and "became" lines for a
when-question that names a value), with the diff read case by case.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

from apexmem_neo.agent.context import prefetch
from apexmem_neo.agent.models import AgentConfig
from apexmem_neo.agent.timewords import question_times
from apexmem_neo.memory.views import ScopedSearcher
from apexmem_neo.ontology import GraphBatch
from apexmem_neo.search import HybridSearch, documents_from_batch
from apexmem_neo.search.backends.embedded import EmbeddedIndex
from apexmem_neo.store.protocol import GraphStore
from apexmem_neo.store.scoped import ScopedStore
from apexmem_neo.store.sqlite import SQLiteGraphStore
from apexmem_neo.testing import HashingEmbedder
from tests.unit.agent.alice import ALICE, alice_batch, quotes, visit_batch
from tests.unit.server.timeline_case import demo_batch, extra_batch
from tests.unit.tools.graph_data import build_batch

QUESTION_DATE: Final = "2024-07-01"
QUESTIONS: Final = {
    "alice": (
        "Which restaurant does Alice like?",
        "What was Alice's favourite restaurant before Sakura Sushi?",
        "When did Sakura Sushi become Alice's favourite restaurant?",
        "How often did Alice's favourite restaurant change?",
        "What is Alice's favourite restaurant now?",
        "Where did Alice eat last Saturday?",
        "What was Alice's favourite restaurant on 2024-02-01?",
        "Which restaurant did Alice like in February 2024?",
        "When did Alice go hiking?",
        "What did Alice say about her hiking trip, so much fun?",
        "What challenge did Alice meet during her training?",
        "the and of",
        "What is the weather?",
    ),
    "tools": (
        "Where does Alice live now?",
        "Where did Alice live before London?",
        "When did Alice move to Paris?",
        "Which company did Alice work at in 2022?",
        "How old was Alice on 2021-06-01?",
        "What did Bob adopt?",
        "Has Bob's employer changed since 2020?",
        "How many people does Acme employ currently?",
        "What did Bob say about Acme?",
    ),
    "demo": (
        "Where does Alice live?",
        "Where did Alice live before Seattle?",
        "When did Alice start working at Google?",
        "What was Alice's employer in March 2024?",
        "Does Alice still have her dog Rex?",
        "What is Alice's nickname?",
        "What did Alice change previously?",
    ),
}
CONFIGS: Final = {
    "transcript": AgentConfig(),
    "entities": AgentConfig(context_style="entities"),
    "turns_first": AgentConfig(context_style="entities", context_order="turns", max_facts=4),
    "short": AgentConfig(context_style="entities", max_context_chars=700, prefetch_turns=3),
}


def _quotes() -> GraphBatch:
    """Long free-text values of Alice (notes rather than states), one of them about hiking."""
    facts = quotes(alice_batch().facts[0], 8)
    return GraphBatch(facts=facts, recorded_at="2024-03-22T00:00:00")


def _graphs() -> dict[str, tuple[str, list[GraphBatch]]]:
    """Each graph's scope and batches."""
    assert alice_batch().entities[0].entity_id == ALICE
    return {
        "alice": ("default", [alice_batch(), visit_batch(), _quotes()]),
        "tools": ("default", [build_batch()]),
        "demo": ("alice", [demo_batch(), extra_batch()]),
    }


def _open(path: Path, scope: str, batches: list[GraphBatch]) -> tuple[GraphStore, Any]:
    sqlite = SQLiteGraphStore(path)
    sqlite.init_schema()
    search = HybridSearch(EmbeddedIndex(), HashingEmbedder())
    search.create()
    for batch in batches:
        sqlite.write(batch)
        search.index_documents(documents_from_batch(batch))
    store = ScopedStore(sqlite, scope) if scope != "default" else sqlite
    return store, ScopedSearcher(search, scope)


def context_cases(tmp: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    """(case name, what the context holds) for every graph, question and config."""
    for graph, (scope, batches) in _graphs().items():
        store, searcher = _open(tmp / f"{graph}.sqlite", scope, batches)
        for i, question in enumerate(QUESTIONS[graph]):
            times = question_times(question, QUESTION_DATE)
            for style, config in CONFIGS.items():
                found = prefetch(store, question, searcher, config, times)
                dates = {
                    found.labels.label(t): [d.said_on, [(x.expression, x.start) for x in d.times]]
                    for t, d in found.dates.items()
                }
                case = {"text": found.text, "labels": found.labels.by_label, "dates": dates}
                yield f"{graph}-{i}-{style}", case
