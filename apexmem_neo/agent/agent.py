"""MemoryAgent: a one-call fast path over prefetched memory, then a ReAct loop if needed.

``ask(question, question_date, mode)``:

1. resolves the question's own time words against the question date (deterministic
   grounding, as at ingest) into explicit dates handed to the model;
2. prefetches the context, no LLM: lines computed over the question's top entities, then the
   search-ranked turns with their time words dated (``context_style``);
3. fast path (modes ``fast`` and ``auto``): one call of the answer program (compiled
   demonstrations when ``answer_program`` names them) answering from that context, which also
   says whether the context was enough; a when-question's answer is then dated by the turn
   it cites (``dated_answers``);
4. ReAct (mode ``react``, or ``auto`` when the fast path said "not enough" or failed) over
   the configured tools, within ``max_tool_calls`` and ``max_iters`` (compiled
   demonstrations when ``react_program`` names them);
5. or, in mode ``query``, the query loop (``query_loop``): the model writes GraphQuery
   queries over the compact schema put before the context, rewriting a failed one within
   ``max_tool_calls``, and answers from the rows (demonstrations: ``query_program``).

The LM and adapter are passed with ``dspy.context`` (never a global); every step is traced
with its latency and token usage (``dspy.track_usage``).
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import dspy
from dspy.utils.callback import BaseCallback

from apexmem_neo.agent.context import (
    NOTHING,
    Prefetched,
    became_date,
    prefetch,
    quote_turns,
    schema_link,
)
from apexmem_neo.agent.dated_answers import evidence_date
from apexmem_neo.agent.models import AgentConfig, AgentResult, Mode, TraceStep, check_mode
from apexmem_neo.agent.programs import load_answer_program
from apexmem_neo.agent.query_loop import QueryLoop
from apexmem_neo.agent.react_loop import LoopOutcome, ReactLoop, timed, token_total
from apexmem_neo.agent.timewords import QuestionTime, hints_text, question_times
from apexmem_neo.llm.failures import raise_if_fatal
from apexmem_neo.llm.lm import SchemaJSONAdapter
from apexmem_neo.ontology.types import TimeLike, normalize_time
from apexmem_neo.query.backend import Language, QueryBackend
from apexmem_neo.store.protocol import GraphStore
from apexmem_neo.tools.compact_schema import compact_schema
from apexmem_neo.tools.entity_lookup import Searcher
from apexmem_neo.tools.result import Tool

_NON_ANSWER = re.compile(
    r"^\W*(|none|null|n/?a|unknown|no answer( provided| found)?|not (found|available|provided))"
    r"\W*$",
    re.IGNORECASE,
)


def is_non_answer(answer: str | None) -> bool:
    """True for an empty reply or a placeholder ("No answer provided", "unknown"). "Not
    mentioned" is an answer (the right one to a question about something never said)."""
    return _NON_ANSWER.match(answer or "") is not None


class _CallCounter(BaseCallback):  # type: ignore[misc]
    """Counts LM calls (retries and adapter fallbacks included)."""

    def __init__(self) -> None:
        self.calls = 0

    def on_lm_start(self, call_id: str, instance: Any, inputs: dict[str, Any]) -> None:
        self.calls += 1


class MemoryAgent:
    """Answers questions over a memory graph; see the module docstring."""

    def __init__(
        self,
        lm: Any,
        store: GraphStore,
        tools: Mapping[str, Tool],
        backend: QueryBackend | None = None,
        searcher: Searcher | None = None,
        config: AgentConfig | None = None,
        adapter: Any | None = None,
    ) -> None:
        self.lm = lm
        self.store = store
        self.tools = dict(tools)
        self.backend = backend
        self.searcher = searcher
        self.config = config or AgentConfig()
        self.adapter = adapter if adapter is not None else SchemaJSONAdapter()
        self.program = load_answer_program(self.config.answer_program)
        if self.config.react_program is not None:  # refuse a missing or stale file now
            ReactLoop(self.tools, self.config)
        self._loop: QueryLoop | None = None
        if self.config.mode == "query" or self.config.query_program is not None:
            self._query_loop()  # the same for the query mode's tool and program

    def ask(
        self, question: str, question_date: TimeLike | None = None, mode: Mode | None = None
    ) -> AgentResult:
        t0 = time.perf_counter()
        chosen = check_mode(mode or self.config.mode)
        qdate = normalize_time(question_date) if question_date is not None else None
        inputs, found, hints = self._inputs(question, qdate, chosen)
        labels = found.labels
        result = AgentResult(question=question, question_date=qdate, time_hints=hints)
        counter = _CallCounter()
        turn_ids: list[str] = []
        with (
            dspy.context(lm=self.lm, adapter=self.adapter, callbacks=[counter]),
            dspy.track_usage() as tracker,
        ):
            if chosen in ("fast", "auto"):
                turn_ids = self._fast(inputs, result, tracker, final=chosen == "fast")
                self._date_from_evidence(result, labels.resolve(turn_ids), found)
            if chosen == "query":
                turn_ids = self._query(inputs, result, tracker)
            elif chosen == "react" or (chosen == "auto" and not result.enough_context):
                fast_answer, fast_ids = result.answer, turn_ids
                turn_ids = self._react(inputs, result, tracker)
                if is_non_answer(result.answer) and not is_non_answer(fast_answer):
                    # the loop found nothing better: keep what the context gave
                    result.answer, turn_ids, result.mode = fast_answer, fast_ids, "fast"
            result.tokens = token_total(tracker)
        result.evidence = quote_turns(self.backend, labels.resolve(turn_ids))
        result.llm_calls = counter.calls
        result.seconds = round(time.perf_counter() - t0, 3)
        return result

    def answer_inputs(self, question: str, question_date: TimeLike | None = None) -> dict[str, Any]:
        """What the answer program reads for ``question`` (no LLM call): the examples that
        ``compile_answer_program`` learns from are made of these."""
        qdate = normalize_time(question_date) if question_date is not None else None
        return self._inputs(question, qdate, self.config.mode)[0]

    def _inputs(
        self, question: str, qdate: str | None, mode: Mode
    ) -> tuple[dict[str, Any], Prefetched, list[str]]:
        times = question_times(question, qdate)
        hints = list(dict.fromkeys(t.hint() for t in times))
        found = self._context(question, times, mode)
        inputs = {
            "question": question,
            "question_date": qdate[:10] if qdate else "unknown",
            "time_hints": hints_text(qdate, hints),
            "context": found.text,
        }
        return inputs, found, hints

    def _context(self, question: str, times: list[QuestionTime], mode: Mode) -> Prefetched:
        """The prefetched context, after the configured preamble (in the query mode the
        compact schema)."""
        found = prefetch(self.store, question, self.searcher, self.config, times)
        preamble = self.config.context_preamble
        if not preamble and mode == "query" and self.backend is not None:
            link = schema_link(self.store, question, self.searcher, self.config, times)
            preamble = compact_schema(self.backend.schema(), self._query_language(), link)
        if not preamble:
            return found
        text = preamble if found.text == NOTHING else f"{preamble}\n\n{found.text}"
        return replace(found, text=text)

    @staticmethod
    def _date_from_evidence(result: AgentResult, cited: list[str], found: Prefetched) -> None:
        """A when-question's answer dated by the turn it cites (see ``dated_answers``) or, when
        it named a value instead of a date, by the computed line of when that value began; the
        model's own answer stays in the fast step's trace."""
        if result.mode != "fast" or not result.trace:
            return
        dated = evidence_date(result.question, result.answer, cited, found.dates, found.text)
        source = "its cited turn"
        if dated is None:
            dated, source = became_date(result.question, result.answer, found.text), "memory"
        if dated is not None and dated != result.answer:
            result.trace[-1].thought = f"answered {result.answer!r}; {source} dates it"
            result.answer = dated

    def _fast(
        self, inputs: Mapping[str, Any], result: AgentResult, tracker: Any, final: bool
    ) -> list[str]:
        step = TraceStep(step=len(result.trace), phase="fast")
        result.trace.append(step)
        result.mode = "fast"
        with timed(step, tracker):
            try:
                pred = self.program(**inputs)
            except Exception as exc:  # unparseable reply: fall through to the loop (auto)
                raise_if_fatal(exc)  # a dead or unauthorised model stops the question
                step.error = f"{type(exc).__name__}: {exc}"[:800]
                result.enough_context = False
                if final:
                    result.error = f"fast path failed: {step.error}"
                return []
        result.answer = str(pred.answer)
        result.enough_context = bool(pred.enough_context)
        step.output_chars = len(result.answer)
        return [str(t) for t in (pred.evidence_turn_ids or [])]

    def _query_language(self) -> Language:
        native: Language = self.backend.native_language if self.backend is not None else "sql"
        return self.config.query_language or native

    def _query_loop(self) -> QueryLoop:
        """The query loop, built (and its compiled program read) once per agent."""
        if self._loop is None:
            self._loop = QueryLoop(self.tools, self.config, self._query_language())
        return self._loop

    def _query(self, inputs: Mapping[str, Any], result: AgentResult, tracker: Any) -> list[str]:
        result.mode = "query"
        outcome = self._query_loop().run(inputs, tracker, first_step=len(result.trace))
        return self._take(outcome, result)

    def _react(self, inputs: Mapping[str, Any], result: AgentResult, tracker: Any) -> list[str]:
        result.mode = "react"
        loop = ReactLoop(self.tools, self.config)
        outcome = loop.run(inputs, tracker, first_step=len(result.trace))
        return self._take(outcome, result)

    def _take(self, outcome: LoopOutcome, result: AgentResult) -> list[str]:
        """The loop's steps, calls, answer and error into ``result``; its cited turns."""
        result.trace += outcome.steps
        result.tool_calls = outcome.tool_calls
        result.error = outcome.error
        if outcome.error is None:
            result.answer = outcome.answer
        return outcome.turn_ids
