"""The LOCOMO harness gives each baseline its own context: full context the transcript,
plain RAG the search's top turns."""

from __future__ import annotations

from argparse import Namespace
from types import SimpleNamespace
from typing import Any, cast

from apexmem_neo.construction.loaders import TurnInput
from apexmem_neo.search import HybridSearch
from apexmem_neo.search.backends.embedded import EmbeddedIndex
from apexmem_neo.search.documents import turn_documents
from apexmem_neo.testing import HashingEmbedder
from benchmarks.locomo.baselines import BaselineAnswer
from benchmarks.locomo.data import LocomoQuestion
from benchmarks.locomo.run import Systems


class RecordingAnswerer:
    """Answers nothing; keeps how many turns each call was given."""

    def __init__(self) -> None:
        self.given: list[int] = []

    def answer(self, question: str, qdate: str, turns: list[TurnInput]) -> BaselineAnswer:
        self.given.append(len(turns))
        return BaselineAnswer(context_turns=len(turns))


def test_full_context_reads_the_transcript_and_rag_the_top_turns() -> None:
    convo = [
        TurnInput(source_key=f"c:D1:{i}", conversation_id="c", session_seq=1, seq=i,
                  speaker="A", text=f"turn {i} about hiking", anchor="2023-05-08T13:56:00")
        for i in range(20)
    ]  # fmt: skip
    search = HybridSearch(EmbeddedIndex(), HashingEmbedder())
    search.create()
    search.index_documents(turn_documents([t.turn() for t in convo], scope=convo[0].scope))
    memory = SimpleNamespace(search_index=search)
    answerer = RecordingAnswerer()
    args = Namespace(context_tokens=8192, rag_k=5)
    systems = Systems(cast(Any, None), cast(Any, answerer), cast(Any, memory), convo, args)
    question = LocomoQuestion(qid="c:q0", question="Where did A go hiking?", gold="hills",
                              category=4, evidence=["D1:3"])  # fmt: skip
    for system in ("full_context", "rag"):
        systems.answer(system, question, "2023-06-01")
    assert answerer.given == [20, 5]
