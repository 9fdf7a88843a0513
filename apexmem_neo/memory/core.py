"""``Memory``: the one way into apexmem-neo for applications, the CLI, the MCP server and the
benchmarks.

A Memory owns a graph store, its read-only query backend, the construction checkpoint, an
optional search index with its embedder, and an optional LM. Build one with
``Memory.sqlite(...)``, ``Memory.neo4j(...)`` or ``Memory.from_settings(...)`` (see
``apexmem_neo.memory.build``); use it as a context manager or call ``close()``.

Every call names the ``scope`` (the user or agent) it is about, and a scope is a wall:
``add`` stores everything under its scope (entities resolve within it, so two users' "Mom"
are two entities), and every read goes through one scope's view of the store, the search
index and the query backend (``_view``), GraphQuery included. The listings (``scopes``,
``sessions``, ``turns``, ``entities``, ``facts``) live in ``apexmem_neo.memory.listing``.

Every entry that stores (``add``, ``ingest_file``, ``ingest_turns``, ``import_file``) checks
all its input first (scope names, text, turns of at most ``max_turn_chars`` characters) and
refuses a bad call with ``InvalidInputError`` before anything is written.

Threads: reads may run on several threads at once; writes (``add``, ``ingest_file``,
``index``) take one lock, so there is one writer at a time. Turn numbers come from the store
(``reserve_turn_seqs``), so writers in other Memory objects or processes never share one.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, Self, Unpack

from apexmem_neo.agent import AgentConfig, AgentResult, MemoryAgent, Mode, build_tools
from apexmem_neo.agent.programs import (
    Optimizer,
    TrainingQuestion,
    answer_example,
    compile_answer_program,
)
from apexmem_neo.construction.checkpoint import Checkpoint
from apexmem_neo.construction.loaders import InputFormat, TurnInput, load_turns
from apexmem_neo.construction.pipeline import (
    ConstructionPipeline,
    PipelineConfig,
    RunStats,
    TurnReport,
)
from apexmem_neo.errors import NoLanguageModelError as NoLanguageModelError
from apexmem_neo.errors import NoSearchIndexError as NoSearchIndexError
from apexmem_neo.memory.config import (
    MemoryConfig,
    MemoryOptions,
    SettingsChoices,
    memory_config,
)
from apexmem_neo.memory.forget import ForgetResult, erasure_target, forget
from apexmem_neo.memory.listing import Listings, checked_filter, empty_scope_hint
from apexmem_neo.memory.messages import (
    DEFAULT_SESSION,
    Message,
    Said,
    check_max_turn_chars,
    check_scope,
    new_turns,
    number_turns,
    read_messages,
    scope_turns,
)
from apexmem_neo.memory.metadata_search import search_with_metadata
from apexmem_neo.memory.results import (
    AddedTurn,
    AddResult,
    EntityHistory,
    MemoryStats,
    StoredFact,
    TurnStatus,
)
from apexmem_neo.memory.transfer import (
    ExportResult,
    ImportResult,
    Target,
    export_scope,
    import_scope,
)
from apexmem_neo.memory.views import ScopedSearcher, scoped_backend
from apexmem_neo.ontology import Entity, GraphBatch, ids
from apexmem_neo.ontology.metadata import MetadataValue
from apexmem_neo.ontology.types import TimeLike, normalize_time
from apexmem_neo.query.backend import Language, QueryBackend, QueryLimits, QueryResult
from apexmem_neo.search import DocKind, HybridSearch, SearchFilters, SearchResults
from apexmem_neo.search.indexer import Progress, index_batches, index_graph
from apexmem_neo.search.protocol import SearchError
from apexmem_neo.settings import MAX_TURN_CHARS, Settings
from apexmem_neo.store.protocol import ChangeRecord, FactRecord, GraphStore
from apexmem_neo.store.scoped import ScopedStore
from apexmem_neo.tools.names import resolve_entity, resolve_property
from apexmem_neo.tools.result import Tool

TurnCallback = Callable[[TurnReport, RunStats], None]


class Memory(Listings):
    """Append-only temporal memory; see the module docstring. The constructor does no I/O."""

    def __init__(
        self,
        store: GraphStore,
        backend: QueryBackend,
        checkpoint: Checkpoint,
        *,
        search: HybridSearch | None = None,
        lm: Any = None,
        agent_config: AgentConfig | None = None,
        location: str = "",
        search_location: str | None = None,
        lm_check: Callable[[], None] | None = None,
        on_close: Iterable[Callable[[], None]] = (),
        max_turn_chars: int = MAX_TURN_CHARS,
    ) -> None:
        self.store = store
        self.backend = backend
        self.checkpoint = checkpoint
        self.search_index = search
        self.lm = lm
        self.agent_config = agent_config or AgentConfig()
        self.location = location
        self.search_location = search_location
        self._lm_check = lm_check
        self._on_close = list(on_close)
        self.max_turn_chars = check_max_turn_chars(max_turn_chars)
        """The longest turn text stored; a longer one is refused (``InvalidInputError``)."""
        self._write_lock = threading.RLock()
        self._search_ready = False
        self._closed = False

    # ---- construction and lifecycle (factories live in memory.build) ----

    @classmethod
    def sqlite(
        cls,
        path: str | Path | None = None,
        config: MemoryConfig | None = None,
        *,
        create: bool = True,
        **options: Unpack[MemoryOptions],
    ) -> Memory:
        """A memory in one SQLite file (default ``~/.apexmem/data/apexmem.sqlite``), opened as
        ``config`` says with the keyword ``options`` (``MemoryConfig``'s fields) over it; an
        unknown option is an ``InvalidInputError``. ``create`` False makes a missing file an
        error instead of a new memory."""
        from apexmem_neo.memory.build import open_sqlite

        return open_sqlite(cls, path, memory_config(config, options), create=create)

    @classmethod
    def neo4j(
        cls,
        uri_or_driver: Any = "bolt://127.0.0.1:7687",
        config: MemoryConfig | None = None,
        *,
        auth: tuple[str, str] | None = None,
        database: str | None = None,
        checkpoint: str | Path | None = None,
        **options: Unpack[MemoryOptions],
    ) -> Memory:
        """A memory in a Neo4j database: a URI with ``auth`` (user, password) or a
        ``neo4j.Driver``, ``database`` (the server's default if None), the construction
        checkpoint file, and ``config`` and ``options`` as for ``Memory.sqlite``."""
        from apexmem_neo.memory.build import open_neo4j

        chosen = memory_config(config, options)
        return open_neo4j(
            cls, uri_or_driver, chosen, auth=auth, database=database, checkpoint=checkpoint
        )

    @classmethod
    def from_settings(
        cls, settings: Settings | None = None, **choices: Unpack[SettingsChoices]
    ) -> Memory:
        """The memory ``settings`` (the environment's by default: APEXMEM_STORE, NEO4J_URI,
        APEXMEM_LM...) describe, through ``MemoryConfig.from_settings``; the keywords override
        the store, its file, the search namespace, whether a missing file is made, and the
        agent's config. ``with_lm`` False opens it without a language model, quickly, for
        reads that never ask one (listings, queries, search, export)."""
        from apexmem_neo.memory.build import open_from_settings

        return open_from_settings(cls, settings, **choices)

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        errors: list[BaseException] = []
        for closer in [self.checkpoint.close, self.store.close, *self._on_close]:
            try:
                closer()
            except Exception as exc:  # close everything, then report the first failure
                errors.append(exc)
        if errors:
            raise errors[0]

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # ---- writing ----

    def add(
        self,
        messages: Sequence[Message] | Message,
        *,
        scope: str,
        session: str | None = None,
        at: TimeLike | None = None,
        extract: bool = True,
    ) -> AddResult:
        """Remember chat messages as turns of ``session`` (default "default") in ``scope``.

        ``at`` dates messages without a ``timestamp`` (default: now). With ``extract`` the LM
        extracts events and typed facts from each turn; without it the turns are stored and
        searchable with no LLM call. Returns what was stored, turn by turn.

        Every message is checked first (a bad one raises ``InvalidInputError`` naming it, and
        nothing is stored); then the store reserves the session's next turn numbers.
        """
        check_scope(scope)
        name = session or DEFAULT_SESSION
        read = read_messages(messages, at, self.max_turn_chars, name)
        with self._write_lock:
            turns = self._number(read, scope, name)
            return self._store_turns(turns, scope, extract, source=f"add:{scope}:{name}")

    def reserve_turns(
        self,
        messages: Sequence[Message] | Message,
        *,
        scope: str,
        session: str | None = None,
        at: TimeLike | None = None,
    ) -> list[TurnInput]:
        """The messages checked and numbered as ``add`` numbers them, their turn numbers
        reserved in the store, but nothing stored: ``add`` stores these turns later, and
        adding them again stores no second copy (a turn's id hashes its session, number and
        text). For work that may run twice, such as a server's ingest job."""
        check_scope(scope)
        name = session or DEFAULT_SESSION
        read = read_messages(messages, at, self.max_turn_chars, name)
        with self._write_lock:
            return self._number(read, scope, name)

    def _number(self, read: Sequence[Said | TurnInput], scope: str, name: str) -> list[TurnInput]:
        """``read`` as turns of session ``name``, numbered from the session's next free
        numbers (reserved in the store, so two writers never share one)."""
        seq = ids.session_number(name)
        count = new_turns(read)
        first = self.store.reserve_turn_seqs(ids.session_id(scope, seq), count) if count else 0
        return number_turns(read, scope, name, seq, first)

    def ingest_file(
        self,
        path: str | Path,
        *,
        scope: str | None = None,
        fmt: InputFormat = "auto",
        conversations: Iterable[str] | None = None,
        sessions: int | None = None,
        limit: int | None = None,
        extract: bool = True,
        config: PipelineConfig | None = None,
        on_turn: TurnCallback | None = None,
        on_index: Progress | None = None,
        index: bool = True,
    ) -> AddResult:
        """Ingest a conversation JSON or JSONL turn file (``construction.loaders`` reads both;
        resumable: turns already done are skipped).

        Without ``scope`` each conversation of the file is its own scope (the JSON's
        ``sample_id``, the JSONL ``conversation``, else the file name); a name that is not a
        valid scope is made one ("my file (1)" -> "my-file-1", listed in the result's
        ``renamed``) or refused.
        With ``scope``, the file must hold one conversation. With ``index`` False the search
        index is left as it was (a bulk load indexes once, after). Every turn is checked
        before the first is stored.
        """
        loaded = load_turns(path, fmt, conversations, sessions)[:limit]
        turns, renamed = scope_turns(loaded, scope, path, self.max_turn_chars)
        result = self._store_turns(
            turns, scope, extract, str(path), config, on_turn, on_index, follow=index
        )
        result.renamed = renamed
        return result

    def ingest_turns(
        self,
        turns: Sequence[TurnInput],
        *,
        extract: bool = True,
        source: str = "",
        config: PipelineConfig | None = None,
        on_turn: TurnCallback | None = None,
        on_index: Progress | None = None,
    ) -> AddResult:
        """Ingest ``TurnInput``s as they are, each in its own conversation (resumable, like
        ``ingest_file``, and checked and scoped like it): for loaders and benchmarks that
        build turns themselves."""
        checked, renamed = scope_turns(turns, None, source or "turns", self.max_turn_chars)
        result = self._store_turns(checked, None, extract, source, config, on_turn, on_index)
        result.renamed = renamed
        return result

    def _store_turns(
        self,
        turns: list[TurnInput],
        scope: str | None,
        extract: bool,
        source: str,
        config: PipelineConfig | None = None,
        on_turn: TurnCallback | None = None,
        on_index: Progress | None = None,
        follow: bool = True,
    ) -> AddResult:
        t0 = time.perf_counter()
        with self._write_lock:
            if extract:
                result, batches = self._extract(turns, scope, source, config, on_turn)
            else:
                result, batches = self._store_plain(turns, scope)
            result.indexed = self._follow(batches, on_index) if follow else 0
        result.seconds = round(time.perf_counter() - t0, 3)
        return result

    def _store_plain(
        self, turns: list[TurnInput], scope: str | None
    ) -> tuple[AddResult, list[GraphBatch]]:
        batches = []
        for each_scope in dict.fromkeys(t.scope for t in turns):
            mine = [t for t in turns if t.scope == each_scope]
            sessions = {t.session_id: t.session() for t in mine}
            batch = GraphBatch(
                sessions=list(sessions.values()), turns=[t.turn() for t in mine], scope=each_scope
            )
            self.store.write(batch)
            batches.append(batch)
        added = [_added(t, "stored") for t in turns]
        return AddResult(scope=scope, turns=added), batches

    def _extract(
        self,
        turns: list[TurnInput],
        scope: str | None,
        source: str,
        config: PipelineConfig | None,
        on_turn: TurnCallback | None,
    ) -> tuple[AddResult, list[GraphBatch]]:
        lm = self._require_lm("extracting facts (or pass extract=False)")
        batches: list[GraphBatch] = []
        reports: dict[str, TurnReport] = {}

        def seen(report: TurnReport, stats: RunStats) -> None:
            reports[report.turn_id] = report
            if on_turn is not None:
                on_turn(report, stats)

        pipeline = ConstructionPipeline(
            self.store, self.checkpoint, lm, config, on_turn=seen, on_batch=batches.append
        )
        stats = pipeline.ingest(turns, source=source)
        by_turn = {t.turn_id: b for b in batches for t in b.turns}
        added = [self._turn_result(t, reports, by_turn) for t in turns]
        result = AddResult(
            scope=scope, turns=added, llm_calls=stats.llm_calls, tokens=stats.tokens, run=stats
        )
        return result, batches

    def _turn_result(
        self, item: TurnInput, reports: dict[str, TurnReport], batches: dict[str, GraphBatch]
    ) -> AddedTurn:
        turn_id = item.turn().turn_id
        report = reports.get(turn_id)
        if report is None:
            return _added(item, "skipped")
        batch = batches.get(turn_id)
        status: TurnStatus = "failed" if report.status == "failed" else "done"
        added = _added(item, status, report.error)
        if batch is not None:
            added.facts = self._stored_facts(batch)
        added.decisions = self.checkpoint.decisions(turn_id)
        return added

    def _stored_facts(self, batch: GraphBatch) -> list[StoredFact]:
        names = {e.entity_id: e.name for e in batch.entities}
        evidence = {e.evidence_id: e.text for e in batch.evidence}
        facts = []
        for fact in batch.facts:
            if fact.entity_id not in names:
                found = self.store.get_entity(fact.entity_id)
                names[fact.entity_id] = found.name if found else fact.entity_id
            facts.append(
                StoredFact(
                    fact_id=fact.fact_id,
                    entity_id=fact.entity_id,
                    entity=names[fact.entity_id],
                    property=fact.property,
                    value=fact.value,
                    dtype=fact.dtype.value,
                    t_from=fact.t_from,
                    t_to=fact.t_to,
                    confidence=fact.confidence,
                    evidence=evidence.get(fact.evidence_id or ""),
                )
            )
        return facts

    def index(
        self, *, rebuild: bool = False, optimize: bool = True, progress: Progress | None = None
    ) -> int:
        """Index the whole graph for search (idempotent); returns the number of documents.

        ``rebuild`` drops the index first (it is derived from the graph: nothing is lost).
        After filling an empty index it is optimised for reading unless ``optimize`` is False.
        """
        search = self._require_search()
        with self._write_lock:
            if rebuild:
                search.index.drop()
                self._search_ready = False
            self._ensure_search()
            empty = search.index.count() == 0
            count = index_graph(search, self.store, progress)
            if optimize and empty and count:
                search.index.optimize()
        return count

    def _follow(self, batches: Sequence[GraphBatch], progress: Progress | None) -> int:
        """Index what ``batches`` added or changed (the search index follows every write)."""
        if self.search_index is None or not batches:
            return 0
        self._ensure_search()
        written = index_batches(self.search_index, self.store, batches)
        if progress is not None:
            progress(written, written)
        return written

    # ---- erasing ----

    def forget(
        self, *, scope: str, session: str | None = None, entity: str | None = None
    ) -> ForgetResult:
        """Erase ``scope`` (everything), one of its sessions (by name) or one entity (by name
        or id) from the store, the search index, the checkpoint and the embedding cache. The
        one exception to append-only; the store keeps a record of it without content."""
        check_scope(scope)
        with self._write_lock:
            target = erasure_target(self, scope, session, entity)
            return forget(self, target)

    # ---- reading ----

    def search(
        self,
        query: str,
        *,
        scope: str,
        k: int = 10,
        kinds: Iterable[DocKind | str] | None = None,
        metadata: Mapping[str, MetadataValue] | None = None,
    ) -> SearchResults:
        """Hybrid (dense + BM25) search: the top ``k`` entities, properties, events and turns
        (or only ``kinds``); nothing found in a scope that holds nothing sets ``hint`` to the
        scopes that do. With ``metadata`` only turns whose metadata holds every given key
        with an equal value: the index cannot filter on metadata, so the hits are filtered
        after retrieval, over-fetching to still return ``k`` where the index ranks that many
        (``apexmem_neo.memory.metadata_search``)."""
        check_scope(scope)
        search = ScopedSearcher(self._require_search(), scope, self._ensure_search)
        chosen = tuple(DocKind(k_) for k_ in kinds) if kinds is not None else None
        wanted = checked_filter(metadata)
        if wanted:
            store = ScopedStore(self.store, scope)
            found = search_with_metadata(search, store, query, k, chosen, wanted)
        else:
            found = search.search(query, k, SearchFilters(kinds=chosen))
        if found.empty:
            found.hint = empty_scope_hint(self.store, scope)
        return found

    def ask(
        self,
        question: str,
        *,
        scope: str,
        at: TimeLike | None = None,
        mode: Mode | None = None,
        config: AgentConfig | None = None,
        language: Language | None = None,
    ) -> AgentResult:
        """Answer ``question`` as of ``at`` (the question's own date; default now) with the
        agent; the result holds the answer, the quoted evidence turns and the trace."""
        agent = self.agent(scope=scope, config=config, language=language)
        return agent.ask(question, at if at is not None else _now(), mode)

    def agent(
        self,
        *,
        scope: str,
        lm: Any = None,
        config: AgentConfig | None = None,
        language: Language | None = None,
    ) -> MemoryAgent:
        """The answering agent over ``scope`` (``lm`` default: the memory's own), for callers
        that ask many questions with one configuration (the benchmarks)."""
        view = self._view(scope)
        model = lm if lm is not None else self._require_lm("answering questions")
        chosen = config or self.agent_config
        tools = build_tools(
            view.store, view.backend, view.searcher, chosen.tools, language=language
        )
        return MemoryAgent(model, view.store, tools, view.backend, view.searcher, chosen)

    def optimize(
        self,
        questions: Iterable[TrainingQuestion],
        *,
        scope: str,
        out: str | Path,
        optimizer: Optimizer = "labeled",
        demos: int = 3,
        config: AgentConfig | None = None,
    ) -> Path:
        """Compile the agent's answer program from ``questions`` with known answers over
        ``scope`` and save it to ``out`` (DSPy JSON); ``AgentConfig.answer_program`` loads it.
        Each example is the context the agent builds for the question and its known answer;
        ``bootstrap`` also runs the memory's model to keep only demonstrations it gets right."""
        view = self._view(scope)
        chosen = (config or self.agent_config).model_copy(update={"answer_program": None})
        agent = MemoryAgent(self.lm, view.store, {}, view.backend, view.searcher, chosen)
        examples = [
            answer_example(agent.answer_inputs(q.question, q.date), q.answer) for q in questions
        ]
        lm = self._require_lm("bootstrap compiling") if optimizer == "bootstrap" else None
        program = compile_answer_program(examples, optimizer, demos, lm=lm)
        path = Path(out)
        path.parent.mkdir(parents=True, exist_ok=True)
        program.save(str(path))
        return path

    def entity(self, name: str, *, scope: str) -> Entity:
        """The entity ``name`` names in ``scope``: its id, exact name, an alias, the name in
        another case, spacing or punctuation, a person's first name, or a close misspelling
        (the rules of ``apexmem_neo.tools.names``, the candidates writes use).

        Raises ``UnknownEntityError`` (its message lists the scope's nearest names) when no
        entity fits, and ``AmbiguousEntityError`` (a subclass) listing the candidates when
        several fit equally well, e.g. "Maya" for Maya Lee and Maya Chen.
        """
        return resolve_entity(self._view(scope).store, name, scope)

    def _resolve(self, entity: str, property: str, scope: str) -> tuple[ScopedStore, Entity, str]:
        """The scope's store, the entity and the name of its property that ``property``
        means (the name a write would store when it has none, so the read finds nothing)."""
        store = self._view(scope).store
        ent = resolve_entity(store, entity, scope)
        return store, ent, resolve_property(store, ent.entity_id, property)

    def history(self, entity: str, property: str, *, scope: str) -> EntityHistory:
        """Every fact of (entity, property), oldest first, and when its value changed.

        Names resolve as in ``entity``; ``property`` is matched among the entity's own
        properties by exact name, snake_case, the lexicon's canonical name ("favorite
        restaurant" -> favourite_restaurant, "works_at" -> employer) or one close spelling,
        and the result carries the stored name. A property the entity has no facts for gives
        an empty history (not an error).
        """
        store, ent, prop = self._resolve(entity, property, scope)
        facts = store.history(ent.entity_id, prop)
        changes = store.changes(ent.entity_id, prop)
        return EntityHistory(entity=ent, property=prop, facts=facts, changes=changes)

    def as_of(self, entity: str, property: str, at: TimeLike, *, scope: str) -> FactRecord | None:
        """The fact of (entity, property) that held at ``at`` (None if none did, or if the
        entity has no such property). Names resolve as in ``history``."""
        store, ent, prop = self._resolve(entity, property, scope)
        return store.as_of(ent.entity_id, prop, at)

    def current(self, entity: str, property: str, *, scope: str) -> FactRecord | None:
        """The latest known fact of (entity, property) (None if there is none). Names
        resolve as in ``history``."""
        store, ent, prop = self._resolve(entity, property, scope)
        return store.current(ent.entity_id, prop)

    def changes(self, entity: str, property: str, *, scope: str) -> list[ChangeRecord]:
        """When the value of (entity, property) changed, old -> new, oldest first (empty if
        it never did). Names resolve as in ``history``."""
        store, ent, prop = self._resolve(entity, property, scope)
        return store.changes(ent.entity_id, prop)

    def before(
        self, entity: str, property: str, reference: TimeLike, *, scope: str
    ) -> FactRecord | None:
        """The fact of (entity, property) that held just before ``reference`` (a time, or an
        event id of the scope: its anchor time); None if none did. Names resolve as in
        ``history``."""
        store, ent, prop = self._resolve(entity, property, scope)
        return store.before(ent.entity_id, prop, reference)

    def query(
        self,
        text: str,
        language: Language | None = None,
        *,
        scope: str,
        params: dict[str, Any] | None = None,
        limit: int = 200,
        timeout_s: float = 10.0,
    ) -> QueryResult:
        """One read-only query in ``language`` (default: the store's own, SQL on SQLite and
        Cypher on Neo4j); a refused or failed query raises ``ToolError``."""
        limits = QueryLimits(max_rows=limit, timeout_s=timeout_s)
        backend = self._view(scope).backend
        return backend.run(text, language or self.language, params or {}, limits)

    @property
    def language(self) -> Language:
        """The store's own query language."""
        return self.backend.native_language

    def schema(self, examples: bool = False, guide: bool = False, *, scope: str) -> str:
        """SchemaViewer as markdown: tables or labels, relationships, indexes and the scope's
        counts, with the temporal query examples and the which-tool guide if asked. A schema
        that cannot be read raises ``ToolError``."""
        from apexmem_neo.tools.schema_viewer import view_schema

        return view_schema(self._view(scope).backend, examples, guide).text_or_raise()

    def lookup(self, name: str, k: int = 3, *, scope: str) -> str:
        """EntityLookup as markdown: up to ``k`` entities ``name`` names (resolved as in
        ``entity``, then by its words) with their anchors and facts, each with the time it
        held; a name that fits none answers with the scope's nearest names. An empty name or a
        failed read raises ``ToolError``."""
        from apexmem_neo.tools.entity_lookup import lookup_entities

        return lookup_entities(self._view(scope).store, name, k).text_or_raise()

    def tools(self, *, scope: str, names: Iterable[str] | None = None) -> dict[str, Tool]:
        """The agent's tools over this memory (SchemaViewer, EntityLookup, GraphQuery, Search,
        Timeline), as callables returning a ``ToolResult``: its ``error`` says whether the
        call worked, and ``str(result)`` is the markdown the agent reads."""
        view = self._view(scope)
        from apexmem_neo.agent.models import ALL_TOOL_NAMES

        return build_tools(view.store, view.backend, view.searcher, names or ALL_TOOL_NAMES)

    def stats(self) -> MemoryStats:
        documents = None
        if self.search_index is not None:
            try:
                documents = self.search_index.index.count()
            except SearchError:  # an embedded index that was never created
                documents = 0
        embedder = self.search_index.embedder.name if self.search_index is not None else None
        return MemoryStats(
            store=self.backend.name,
            location=self.location,
            counts=self.store.counts(),
            search=self.search_location,
            search_documents=documents,
            embedder=embedder,
            lm=getattr(self.lm, "model", None) if self.lm is not None else None,
        )

    # ---- helpers ----

    def _require_lm(self, purpose: str) -> Any:
        if self.lm is None:
            raise NoLanguageModelError(f"no language model configured for {purpose}: pass lm=")
        if self._lm_check is not None:
            self._lm_check()
        return self.lm

    def _require_search(self) -> HybridSearch:
        if self.search_index is None:
            raise NoSearchIndexError("this memory has no search index (built with search=None)")
        return self.search_index

    def _ensure_search(self) -> None:
        """Create the index on first use (loads the embedder), so an empty memory searches."""
        if not self._search_ready and self.search_index is not None:
            self.search_index.create()
            self._search_ready = True

    def _view(self, scope: str) -> _ScopeView:
        """What tools and the agent may read in ``scope``: scoped store, backend, searcher."""
        check_scope(scope)
        index = self.search_index
        return _ScopeView(
            store=ScopedStore(self.store, scope),
            backend=scoped_backend(self.backend, scope),
            searcher=None if index is None else ScopedSearcher(index, scope, self._ensure_search),
        )

    # ---- export and import (apexmem_neo.memory.transfer) ----

    def export(self, out: Target, *, scope: str) -> ExportResult:
        """Write every row of ``scope`` to ``out`` (a path or an open text file) as JSON Lines
        of graph batches, a backup that ``import_file`` reads into any store."""
        return export_scope(self, out, scope)

    def import_file(
        self, source: Target, *, scope: str | None = None, index: bool = True
    ) -> ImportResult:
        """Read an ``export`` back into its scope (``scope``, if given, must be that one) and
        index it for search; importing it again adds nothing."""
        with self._write_lock:
            return import_scope(self, source, scope, index=index)


@dataclass(frozen=True)
class _ScopeView:
    store: ScopedStore
    backend: QueryBackend
    searcher: ScopedSearcher | None


def _now() -> str:
    return normalize_time(time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime()))


def _added(item: TurnInput, status: TurnStatus, error: str | None = None) -> AddedTurn:
    return AddedTurn(
        turn_id=item.turn().turn_id,
        speaker=item.speaker,
        text=item.text,
        anchor=item.anchor,
        status=status,
        error=error,
    )
