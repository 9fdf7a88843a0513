"""The construction pipeline: turns -> one LLM extraction each -> resolution -> the graph.

``ConstructionPipeline.ingest(turns)``:

1. replays turns left ``pending`` by a killed run (their finished batches are written
   again; writes are idempotent), then skips turns already ``done`` (and ``failed``, unless
   ``retry_failed``);
2. runs ExtractCompact for the remaining turns on a pool of ``concurrency`` threads (one LLM
   call per turn, bounded retries), consuming results in input order
   (``extraction="full"`` runs the earlier ExtractEvent, whose output also carries dtypes,
   model dates and confidences: about twice the generated tokens);
3. for each turn, in order: resolves entities and properties (LLM only when ambiguous),
   grounds times, builds the GraphBatch, stages it in the checkpoint, writes it to the store
   and marks the turn done. A turn whose extraction still fails is written as a bare turn
   (its text is kept), recorded ``failed`` with the error and raw output, and skipped.

Per-stage LLM calls, tokens and seconds are accounted in a ``UsageLedger`` and returned in
``RunStats`` (also saved in the checkpoint's run table).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from apexmem_neo.construction.calls import CallResult, LLMRunner, UsageLedger
from apexmem_neo.construction.checkpoint import Checkpoint
from apexmem_neo.construction.compact import as_extracted
from apexmem_neo.construction.dense import CatalogDenseSource
from apexmem_neo.construction.loaders import TurnInput
from apexmem_neo.construction.merge import TurnMerge
from apexmem_neo.construction.resolver import MERGE_THRESHOLD, Resolver
from apexmem_neo.llm.extract_compact import ExtractCompact
from apexmem_neo.llm.extract_event import ExtractedEvent, ExtractEvent
from apexmem_neo.llm.programs import load_compiled
from apexmem_neo.ontology import GraphBatch
from apexmem_neo.ontology.lexicon import offered_properties
from apexmem_neo.search.protocol import Embedder
from apexmem_neo.store.protocol import FactRecord, GraphStore

EARLIEST, LATEST = "0001-01-01T00:00:00", "9999-12-31T23:59:59"


class PipelineConfig(BaseModel):
    concurrency: int = Field(default=1, ge=1, le=64)
    max_attempts: int = Field(default=3, ge=1, le=10)
    merge_threshold: float = Field(default=MERGE_THRESHOLD, ge=0.0, le=1.0)
    context_turns: int = Field(default=2, ge=0, le=10)
    retry_failed: bool = False
    demos: bool = True
    extraction: Literal["compact", "full"] = "compact"
    extraction_program: Path | None = None
    """A compiled extraction program (DSPy JSON of the chosen extractor, its demos chosen for
    a model and its data) loaded in place of the built-in demos; refused when it was
    compiled for another prompt."""


class TurnReport(BaseModel):
    source_key: str
    turn_id: str
    status: str
    llm_calls: int = 0
    facts: int = 0
    error: str | None = None


class RunStats(BaseModel):
    run_id: str
    source: str = ""
    started_at: str
    finished_at: str | None = None
    turns_total: int = 0
    turns_done: int = 0
    turns_skipped: int = 0
    turns_replayed: int = 0
    turns_failed: int = 0
    facts: int = 0
    facts_dropped: int = 0
    entities_new: int = 0
    llm: dict[str, dict[str, float | int]] = {}
    llm_calls: int = 0
    tokens: int = 0
    wall_seconds: float = 0.0
    store_seconds: float = 0.0
    llm_seconds: float = 0.0

    @property
    def processed(self) -> int:
        return self.turns_done + self.turns_failed

    def calls_per_turn(self) -> float:
        return self.llm_calls / self.processed if self.processed else 0.0

    @classmethod
    def combined(cls, runs: Sequence[RunStats]) -> RunStats:
        """One figure for several runs over the same store (a resumed ingest): counts, calls,
        tokens and seconds add up; ``turns_total`` is the last run's."""
        if not runs:
            raise ValueError("RunStats.combined needs at least one run")
        total = runs[-1].model_copy(update={"run_id": "+".join(r.run_id for r in runs)})
        summed = (
            *("turns_done", "turns_failed", "turns_replayed", "facts", "facts_dropped"),
            *("entities_new", "llm_calls", "tokens", "wall_seconds", "store_seconds"),
            "llm_seconds",
        )
        for name in summed:
            setattr(total, name, sum(getattr(r, name) for r in runs))
        total.turns_skipped = runs[0].turns_skipped
        total.started_at = runs[0].started_at
        total.llm = {}
        for run in runs:
            for stage, usage in run.llm.items():
                into = total.llm.setdefault(stage, {})
                for key, value in usage.items():
                    into[key] = into.get(key, 0) + value
        return total


def _now() -> str:
    return datetime.now(UTC).replace(tzinfo=None).isoformat(timespec="seconds")


class ConstructionPipeline:
    """Builds the append-only graph in ``store`` from turns; see the module docstring."""

    def __init__(
        self,
        store: GraphStore,
        checkpoint: Checkpoint,
        lm: Any,
        config: PipelineConfig | None = None,
        adapter: Any | None = None,
        on_turn: Callable[[TurnReport, RunStats], None] | None = None,
        embedder: Embedder | None = None,
        on_batch: Callable[[GraphBatch], None] | None = None,
    ) -> None:
        """An ``embedder`` adds dense candidates to resolution (a ``CatalogDenseSource`` over
        each scope's catalogs). ``on_batch`` sees every batch once the store has it (a search
        index follows them)."""
        self.store = store
        self.checkpoint = checkpoint
        self.config = config or PipelineConfig()
        self.ledger = UsageLedger()
        self.runner = LLMRunner(lm, adapter, self.config.max_attempts, ledger=self.ledger)
        self.compact_extractor = ExtractCompact(demos=self.config.demos)
        self.full_extractor = ExtractEvent(demos=self.config.demos)
        if self.config.extraction_program is not None:
            full = self.config.extraction == "full"
            extractor = self.full_extractor if full else self.compact_extractor
            load_compiled(extractor, self.config.extraction_program)
        self.embedder = embedder
        self._resolvers: dict[str, Resolver] = {}
        self._contexts: dict[str, list[tuple[str, str]]] = {}
        self.on_turn = on_turn
        self.on_batch = on_batch

    def ingest(self, turns: Sequence[TurnInput], source: str = "") -> RunStats:
        started = time.perf_counter()
        self.ledger = self.runner.ledger = UsageLedger()  # per-run accounting
        stats = RunStats(run_id=uuid.uuid4().hex[:12], source=source, started_at=_now())
        stats.turns_total = len(turns)
        self._resolvers = {}
        self._replay(stats)
        todo = self._todo(turns, stats)
        self.checkpoint.save_run(stats.run_id, source, stats.started_at, stats.model_dump(), False)
        with ThreadPoolExecutor(max_workers=self.config.concurrency) as pool:
            window: list[tuple[TurnInput, Future[CallResult[ExtractedEvent]] | None]] = []
            position = 0
            while position < len(todo) or window:
                while position < len(todo) and len(window) < 2 * self.config.concurrency:
                    index = todo[position]
                    window.append((turns[index], self._submit(pool, turns, index)))
                    position += 1
                item, future = window.pop(0)
                result = future.result() if future is not None else None
                self._finish(item, result, self._resolver(item.scope), stats, started)
        self._close_stats(stats, started)
        self.checkpoint.save_run(stats.run_id, source, stats.started_at, stats.model_dump(), True)
        return stats

    def _resolver(self, scope: str) -> Resolver:
        """The resolver of ``scope``: its own catalogs, so resolution never crosses scopes."""
        if scope not in self._resolvers:
            entities, properties = self.checkpoint.load_catalogs(scope)
            dense = None
            if self.embedder is not None:
                dense = CatalogDenseSource(self.embedder, entities, properties)
            self._resolvers[scope] = Resolver(
                entities, properties, self.runner, dense, self.config.merge_threshold, scope=scope
            )
        return self._resolvers[scope]

    # ---- stages ----

    def _replay(self, stats: RunStats) -> None:
        for turn_id, batch in self.checkpoint.pending():
            t0 = time.perf_counter()
            self.store.write(batch)
            self.checkpoint.mark_done(turn_id)
            stats.store_seconds += time.perf_counter() - t0
            stats.turns_replayed += 1
            self._written(batch)

    def _todo(self, turns: Sequence[TurnInput], stats: RunStats) -> list[int]:
        statuses = self.checkpoint.statuses([t.turn().turn_id for t in turns])
        todo = []
        for index, item in enumerate(turns):
            status = statuses.get(item.turn().turn_id)
            if status == "done" or (status == "failed" and not self.config.retry_failed):
                stats.turns_skipped += 1
            else:
                todo.append(index)
        return todo

    def _submit(
        self,
        pool: ThreadPoolExecutor,
        turns: Sequence[TurnInput],
        index: int,
    ) -> Future[CallResult[ExtractedEvent]] | None:
        item = turns[index]
        if not item.text.strip():
            return None
        context = [
            (t.speaker, t.text)
            for t in turns[max(0, index - self.config.context_turns) : index]
            if t.session_id == item.session_id
        ]
        self._contexts[item.turn().turn_id] = context
        return pool.submit(self._extract, item, context, self._known(item))

    def _context(self, item: TurnInput) -> list[tuple[str, str]]:
        return self._contexts.pop(item.turn().turn_id, [])

    def _known(self, item: TurnInput) -> list[str]:
        """The property names offered to the extractor (read on the merging thread)."""
        return offered_properties(self._resolver(item.scope).properties.names_in_order())

    def _extract(
        self, item: TurnInput, context: list[tuple[str, str]], known: list[str]
    ) -> CallResult[ExtractedEvent]:
        """One extraction call (with bounded retries) for ``item`` given the previous turns."""
        turn_input: dict[str, Any] = {
            "speaker": item.speaker,
            "listener": item.listener or "",
            "text": item.text,
            "anchor": item.turn().anchor_datetime,
            "context": context,
            "known_properties": known,
        }

        def extract(config: dict[str, object]) -> ExtractedEvent:
            if self.config.extraction == "full":
                event: ExtractedEvent = self.full_extractor(**turn_input, config=config)
                return event
            return as_extracted(self.compact_extractor(**turn_input, config=config), item.text)

        return self.runner.run("extract", extract)

    def _finish(
        self,
        item: TurnInput,
        result: CallResult[ExtractedEvent] | None,
        resolver: Resolver,
        stats: RunStats,
        started: float,
    ) -> None:
        turn_id = item.turn().turn_id
        resolver.start_turn()
        merge = TurnMerge(item, resolver, held=self._held)
        extraction = result.value if result is not None else None
        batch = merge.build(extraction)
        calls = (result.calls if result is not None else 0) + resolver.llm_calls
        context = self._context(item)  # popped for every turn, so none is kept past it
        if context and merge.worth_extracting_again(batch):
            # One more extraction without the previous turns, which it copied from.
            retry = self._extract(item, [], self._known(item))
            calls += retry.calls
            if retry.ok:
                resolver.start_turn()
                merge = TurnMerge(item, resolver, held=self._held)
                batch = merge.build(retry.value)
                calls += resolver.llm_calls
        t0 = time.perf_counter()
        self._commit(item, batch, resolver, result, calls)
        stats.store_seconds += time.perf_counter() - t0
        failed = result is not None and not result.ok
        stats.turns_failed += 1 if failed else 0
        stats.turns_done += 0 if failed else 1
        stats.facts += len(batch.facts)
        stats.facts_dropped += merge.dropped
        stats.entities_new += sum(
            1 for d in resolver.decisions if d.decision == "propose_new" and d.kind == "entity"
        )
        self._close_stats(stats, started)
        # Saved every turn, so a killed run still leaves its accounting behind.
        self.checkpoint.save_run(
            stats.run_id, stats.source, stats.started_at, stats.model_dump(), False
        )
        if self.on_turn is not None:
            error = result.error if result is not None else None
            status = "failed" if failed else "done"
            report = TurnReport(
                source_key=item.source_key,
                turn_id=turn_id,
                status=status,
                llm_calls=calls,
                facts=len(batch.facts),
                error=error,
            )
            self.on_turn(report, stats)

    def _commit(
        self,
        item: TurnInput,
        batch: GraphBatch,
        resolver: Resolver,
        result: CallResult[ExtractedEvent] | None,
        calls: int,
    ) -> None:
        turn_id = item.turn().turn_id
        attempts = result.calls if result is not None else 0
        self.checkpoint.stage(
            turn_id,
            item.source_key,
            batch,
            list(resolver.changed_entities.values()),
            list(resolver.changed_properties.values()),
            resolver.decisions,
            attempts,
            calls,
        )
        self.store.write(batch)
        self._written(batch)
        if result is not None and not result.ok:
            self.checkpoint.mark_failed(
                turn_id, item.source_key, result.error or "", result.raw_output, attempts, calls
            )
        else:
            self.checkpoint.mark_done(turn_id)

    def _held(self, entity_id: str) -> list[FactRecord]:
        """Every fact the store holds about ``entity_id`` (turns merge in order, so this is
        what the turns before the one merging said)."""
        return self.store.facts_between(entity_id, EARLIEST, LATEST)

    def _written(self, batch: GraphBatch) -> None:
        if self.on_batch is not None:
            self.on_batch(batch)

    def _close_stats(self, stats: RunStats, started: float) -> None:
        totals = self.ledger.totals()
        stats.llm = self.ledger.snapshot()
        stats.llm_calls = totals.calls
        stats.tokens = totals.prompt_tokens + totals.completion_tokens
        stats.llm_seconds = round(totals.seconds, 3)
        stats.wall_seconds = round(time.perf_counter() - started, 3)
        stats.finished_at = _now()
