"""The study's arms: the project's agent with GraphQuery in SQL or Cypher, on SQLite or Neo4j.

Every agent arm is the same ``MemoryAgent`` in its query mode (write a query, run it, rewrite
it after an error or zero rows, answer from the rows) with GraphQuery as its only tool, the
compact schema in the arm's language as context and no prefetch, so the answer has to come
from the model's own queries; only the store and the query language differ. (The ReAct loop,
where the model also picks the tool at each step, answered one or two questions in six.)
The tools are wrapped to record what each call returned, which the trace itself does not
keep.
The one-shot arms live in their own modules: neo4j-graphrag's Text2CypherRetriever in
``text2cypher`` and its SQL counterpart, a DSPy text-to-SQL program, in ``text2sql``.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Literal

from neo4j import Driver

from apexmem_neo.agent import AgentConfig, MemoryAgent, build_tools
from apexmem_neo.ontology import GraphBatch
from apexmem_neo.query.backend import Language, QueryBackend
from apexmem_neo.store.neo4j import Neo4jGraphStore
from apexmem_neo.store.sqlite import SQLiteGraphStore
from apexmem_neo.tools import Neo4jQueryBackend, SQLiteQueryBackend
from apexmem_neo.tools.compact_schema import compact_schema
from apexmem_neo.tools.result import Tool, ToolResult
from benchmarks.query_languages.gold import PREFIX
from benchmarks.query_languages.judge import is_correct
from benchmarks.query_languages.metrics import QuestionRecord, record_from_result
from benchmarks.query_languages.questions import Question

ArmName = Literal["sqlite-sql", "neo4j-sql", "neo4j-cypher", "text2cypher", "text2sql"]
ARMS: Final[tuple[ArmName, ...]] = (
    "sqlite-sql", "neo4j-sql", "neo4j-cypher", "text2cypher", "text2sql",
)  # fmt: skip
SQLITE_ARMS: Final = ("sqlite-sql", "text2sql")
"""The arms that read the gold graph from SQLite; every other arm reads it from Neo4j."""
AGENT_ARMS: Final[dict[str, tuple[str, Language]]] = {
    "sqlite-sql": ("sqlite", "sql"),
    "neo4j-sql": ("neo4j", "sql"),
    "neo4j-cypher": ("neo4j", "cypher"),
}
"""Agent arm -> (store, GraphQuery language)."""
TOOLS: Final = ("GraphQuery",)
AGENT_CONFIG: Final = AgentConfig(
    mode="query", tools=TOOLS, max_tool_calls=3, prefetch_entities=0, prefetch_turns=0,
    max_observation_chars=1500,
)  # fmt: skip
"""Sized for the local 1.5B model on a shared 2-core CPU: GraphQuery only (the compact schema
is in the context), three queries, short observations, and no prefetch, so only the model's
own queries find facts."""

# ---- the gold graph in each store ----


def sqlite_gold(path: Path, batch: GraphBatch) -> SQLiteGraphStore:
    """A SQLite store at ``path`` holding ``batch`` (idempotent; schema ready, open). A file
    holding other entities (another seed set's gold) is refused: counts would include them."""
    path.parent.mkdir(parents=True, exist_ok=True)
    store = SQLiteGraphStore(path)
    store.init_schema()
    wanted = {e.entity_id for e in batch.entities}
    held = {row[0] for row in store.connection.execute("SELECT entity_id FROM entities")}
    if held - wanted:
        store.close()
        raise ValueError(
            f"{path} holds {len(held - wanted)} entities that are not in this gold graph "
            "(built for other seeds?); delete it or pass another --sqlite"
        )
    store.write(batch)
    return store


STALE_GOLD: Final = (
    "MATCH (e:Entity) WHERE e.entity_id STARTS WITH $prefix AND NOT e.entity_id IN $ids "
    "RETURN count(e) AS n"
)


def neo4j_gold(driver: Driver, batch: GraphBatch) -> Neo4jGraphStore:
    """The Neo4j store on ``driver`` with ``batch`` written (MERGE: re-loading adds nothing).
    Study nodes of another gold graph (other seeds) are deleted first, since counting
    questions would see them."""
    ids = [e.entity_id for e in batch.entities]
    records, _, _ = driver.execute_query(STALE_GOLD, prefix=PREFIX, ids=ids)
    if int(records[0]["n"]):
        delete_gold(driver, batch)
    store = Neo4jGraphStore(driver)
    store.init_schema()
    store.write(batch)
    return store


PREFIXED: Final = (
    ("Fact", "entity_id"), ("Event", "event_id"), ("Evidence", "evidence_id"),
    ("Turn", "turn_id"), ("Session", "session_id"), ("Entity", "entity_id"),
)  # fmt: skip


def delete_gold(driver: Driver, batch: GraphBatch | None = None, chunk: int = 2000) -> int:
    """Delete the study's nodes (ids starting with ``ql_``) in chunks, then the Property nodes
    of ``batch``'s property names that no fact uses any more (another user's facts keep
    theirs). Returns the number of nodes deleted."""
    total = 0
    for label, key in PREFIXED:
        query = (
            f"MATCH (n:{label}) WHERE n.{key} STARTS WITH $prefix "
            "WITH n LIMIT $chunk DETACH DELETE n RETURN count(*) AS deleted"
        )
        while True:
            records, _, _ = driver.execute_query(query, prefix=PREFIX, chunk=chunk)
            deleted = int(records[0]["deleted"])
            total += deleted
            if deleted < chunk:
                break
    if batch is not None:
        records, _, _ = driver.execute_query(
            "MATCH (p:Property) WHERE p.name IN $names "
            "AND NOT EXISTS { MATCH (f:Fact) WHERE f.property_id = p.property_id } "
            "DETACH DELETE p RETURN count(*) AS deleted",
            names=[p.name for p in batch.properties],
        )
        total += int(records[0]["deleted"])
    return total


# ---- the agent arms ----


@dataclass
class Recorder:
    """(tool, output) of every call that reached a tool, in order; reset per question."""

    outputs: list[tuple[str, str]] = field(default_factory=list)

    def wrap(self, tools: dict[str, Tool]) -> dict[str, Tool]:
        return {name: self._wrap(name, fn) for name, fn in tools.items()}

    def _wrap(self, name: str, fn: Tool) -> Tool:
        @functools.wraps(fn)
        def recorded(*args: Any, **kwargs: Any) -> ToolResult:
            try:
                out = fn(*args, **kwargs)
            except Exception as exc:  # recorded as the loop reports it, then re-raised
                self.outputs.append((name, f"Execution error in {name}: {exc}"))
                raise
            self.outputs.append((name, out.render()))
            return out

        return recorded


@dataclass
class AgentArm:
    """One agent arm, ready to ask: the agent and the recorder of its tools."""

    name: str
    agent: MemoryAgent
    recorder: Recorder

    def ask(self, question: Question) -> QuestionRecord:
        self.recorder.outputs.clear()
        result = self.agent.ask(question.text, question.question_date)
        correct = is_correct(result.answer, question.gold, question.answer_type)
        return record_from_result(self.name, question, result, self.recorder.outputs, correct)


def agent_arm(
    name: str,
    lm: Any,
    store: Any,
    backend: QueryBackend,
    language: Language,
    config: AgentConfig = AGENT_CONFIG,
    program: Path | None = None,
) -> AgentArm:
    """The agent arm ``name``: zero-shot, or with the query-writing demos compiled at
    ``program``."""
    recorder = Recorder()
    tools = recorder.wrap(build_tools(store, backend, None, config.tools, language=language))
    preamble = compact_schema(backend.schema(), language)
    compiled = None if program is None else str(program)
    config = config.model_copy(update={"context_preamble": preamble, "query_program": compiled,
                                       "query_language": language})  # fmt: skip
    return AgentArm(name, MemoryAgent(lm, store, tools, backend, None, config), recorder)


@dataclass
class Stores:
    """The gold graph opened in both stores, with their query backends."""

    sqlite: SQLiteGraphStore | None = None
    sqlite_backend: SQLiteQueryBackend | None = None
    neo4j: Neo4jGraphStore | None = None
    neo4j_backend: Neo4jQueryBackend | None = None


@contextmanager
def open_stores(
    batch: GraphBatch, sqlite_path: Path | None, driver: Driver | None
) -> Iterator[Stores]:
    """Load ``batch`` into the stores asked for (SQLite file, Neo4j driver); close on exit."""
    stores = Stores()
    if sqlite_path is not None:
        stores.sqlite = sqlite_gold(sqlite_path, batch)
        stores.sqlite_backend = SQLiteQueryBackend(sqlite_path)
    if driver is not None:
        stores.neo4j = neo4j_gold(driver, batch)
        stores.neo4j_backend = Neo4jQueryBackend(driver)
    try:
        yield stores
    finally:
        if stores.sqlite is not None:
            stores.sqlite.close()
        if stores.neo4j is not None:
            stores.neo4j.close()


def build_agent_arm(name: str, lm: Any, stores: Stores, program: Path | None = None) -> AgentArm:
    """The agent arm ``name`` over the opened stores (with the compiled ``program``)."""
    kind, language = AGENT_ARMS[name]
    if kind == "sqlite" and stores.sqlite is not None and stores.sqlite_backend is not None:
        return agent_arm(name, lm, stores.sqlite, stores.sqlite_backend, language,
                         program=program)  # fmt: skip
    if kind == "neo4j" and stores.neo4j is not None and stores.neo4j_backend is not None:
        return agent_arm(name, lm, stores.neo4j, stores.neo4j_backend, language,
                         program=program)  # fmt: skip
    raise ValueError(f"arm {name!r} needs the {kind} store, which was not opened")
