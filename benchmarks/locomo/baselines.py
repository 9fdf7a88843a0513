"""The two baselines the graph is measured against, on the same questions and model.

* full context: the conversation itself in the prompt. The local model has an 8,192-token
  window, so only the most recent turns that fit a token budget are kept (estimated at
  ``CHARS_PER_TOKEN`` characters per token); the result says how many were kept.
* plain RAG: the top-k turns the search layer returns for the question, one LLM call.

Both use one signature (``AnswerFromTranscript``) and return the same record as the agent:
answer, cited turn labels, tokens and latency.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import dspy
from pydantic import BaseModel

from apexmem_neo.agent.react_loop import token_total
from apexmem_neo.agent.signatures import EVIDENCE_DESC, MAX_ANSWER_CHARS, MAX_EVIDENCE_TURNS
from apexmem_neo.construction.loaders import TurnInput
from apexmem_neo.llm.lm import SchemaJSONAdapter
from apexmem_neo.search import HybridSearch, SearchFilters
from apexmem_neo.search.documents import DocKind
from benchmarks.locomo.data import dia_id_of

CHARS_PER_TOKEN = 3.5  # conservative for English chat under Qwen's tokenizer
PROMPT_RESERVE = 1200  # instructions, field scaffolding, question and the answer


class AnswerFromTranscript(dspy.Signature):  # type: ignore[misc]
    """Answer the question about the conversation using only the transcript lines given.
    Each line is [turn id] date speaker: text. Resolve relative times ("last week") against
    the line's date. If the lines do not say, answer "Not mentioned in the conversation".
    Give a short answer (a date as it is best known) and cite the turn ids it rests on."""

    # The transcript comes first: the full-context transcript is the same for every question,
    # so consecutive answers share a ~7k-token prompt prefix the LLM server keeps cached.
    transcript: str = dspy.InputField(desc="conversation lines, oldest first")
    question_date: str = dspy.InputField(desc="the date the question is asked on")
    question: str = dspy.InputField()
    answer: str = dspy.OutputField(desc="short answer", max_length=MAX_ANSWER_CHARS)
    evidence_turn_ids: list[str] = dspy.OutputField(
        desc=EVIDENCE_DESC, max_length=MAX_EVIDENCE_TURNS
    )


class BaselineAnswer(BaseModel):
    answer: str = ""
    cited: list[str] = []
    seconds: float = 0.0
    tokens: dict[str, int] = {}
    context_turns: int = 0
    error: str | None = None


def transcript_line(turn: TurnInput) -> str:
    return f"[{dia_id_of(turn)}] {turn.anchor[:10]} {turn.speaker}: {turn.text}"


def fit_recent(turns: Sequence[TurnInput], context_tokens: int) -> list[TurnInput]:
    """The most recent turns whose transcript fits ``context_tokens`` minus the reserve."""
    budget = (context_tokens - PROMPT_RESERVE) * CHARS_PER_TOKEN
    kept: list[TurnInput] = []
    used = 0.0
    for turn in reversed(turns):
        cost = len(transcript_line(turn)) + 1
        if used + cost > budget:
            break
        kept.append(turn)
        used += cost
    return kept[::-1]


class TranscriptAnswerer:
    """One LLM call answering from transcript lines."""

    def __init__(self, lm: Any, adapter: Any | None = None) -> None:
        self.lm = lm
        self.adapter = adapter if adapter is not None else SchemaJSONAdapter()
        self.predict = dspy.Predict(AnswerFromTranscript)

    def answer(
        self, question: str, question_date: str, turns: Sequence[TurnInput]
    ) -> BaselineAnswer:
        t0 = time.perf_counter()
        out = BaselineAnswer(context_turns=len(turns))
        text = "\n".join(transcript_line(t) for t in turns) or "(no lines)"
        with dspy.context(lm=self.lm, adapter=self.adapter), dspy.track_usage() as tracker:
            try:
                pred = self.predict(
                    question=question, question_date=question_date[:10], transcript=text
                )
                out.answer = str(pred.answer)
                out.cited = [str(t).strip("[] ") for t in (pred.evidence_turn_ids or [])]
            except Exception as exc:  # unparseable reply: recorded as an error, scored WRONG
                out.error = f"{type(exc).__name__}: {exc}"[:500]
            out.tokens = token_total(tracker)
        out.seconds = round(time.perf_counter() - t0, 3)
        return out


def rag_turns(
    search: HybridSearch, question: str, turns: Sequence[TurnInput], k: int
) -> list[TurnInput]:
    """The top-k turns for ``question`` from the search layer, in conversation order."""
    by_id = {t.turn().turn_id: t for t in turns}
    scope = turns[0].scope if turns else "default"  # a conversation is its own scope
    filters = SearchFilters(kinds=(DocKind.TURN,), scope=scope)
    hits = search.rank(question, k=k, filters=filters)
    found = {h.graph_id for h in hits if h.graph_id in by_id}
    return [t for t in turns if t.turn().turn_id in found]
