"""GraphQuery and SchemaViewer on Neo4j: guarded Cypher, and SQL through the shim.

A query passes three locks: the static Cypher guard (``cypher.guard``; in a scope, also the
scope rewrite ``cypher.scope``, whose printed text the static guard checks again), an EXPLAIN
whose summary must report query type "r" (read-only), and a session in READ access mode; it runs
as ``neo4j.Query(text, timeout=..., metadata=tag)`` and rows are kept until ``max_rows`` or
``max_result_bytes`` is reached (the rest is discarded). The client keeps the deadline itself
(``neo4j_deadline``): past the time limit it terminates the tagged server transaction and
answers, whatever the server is doing. SQL is checked by the SQL guard, translated by
``sql_to_cypher`` and then takes the same path; the result carries the Cypher that ran.

The EXPLAIN also asks the server which labels, relationship types and property keys of the
query the database has never seen (beyond the schema's own, which may simply have no node
yet): such a query is refused as SQL refuses an unknown column, naming what the graph has and
showing the Fact-node query that reads an attribute. Cypher would run it and return NULL or
no row; the local model wrote ``e.favourite_food`` and ``-[:HAS_PROPERTY]->``, got NULL, and
answered "NULL". The driver's own log line for those warnings is dropped.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from typing import Any, Final

import neo4j
from neo4j import Driver, Query, Session
from neo4j import exceptions as neo4j_errors
from neo4j.graph import Node, Path, Relationship

from apexmem_neo.ontology.ids import scope_label
from apexmem_neo.query import examples, graph_mapping
from apexmem_neo.query.backend import (
    ColumnInfo,
    Example,
    IndexInfo,
    Language,
    QueryLimits,
    QueryResult,
    RelationInfo,
    SchemaInfo,
    TableInfo,
    ToolError,
    Truncation,
    check_query_size,
    collect_rows,
)
from apexmem_neo.query.cypher.escapes import require_plain_text
from apexmem_neo.query.cypher.guard import check_cypher
from apexmem_neo.query.cypher.scope import scope_cypher
from apexmem_neo.query.neo4j_deadline import (
    DeadlineExpired,
    call_with_deadline,
    new_tag,
    terminate_within,
)
from apexmem_neo.query.shim.translate import sql_to_cypher
from apexmem_neo.store.neo4j import cypher_files

READ_ONLY_TYPE: Final = "r"
GUARD_READING_REFUSALS: Final = frozenset(
    {"Not supported by the scope guard", "Ambiguous query", "Unreadable query"}
)
"""Scope-guard refusals that may hide a plain syntax error, which the server then names."""
MAX_SYNTAX_MESSAGE: Final = 400
POSITION: Final = re.compile(r"\(line (\d+), column (\d+) \(offset: (\d+)\)\)")
SCHEMA_TIMEOUT_S: Final = 10.0
GRACE_S: Final = 0.25
"""How long past ``timeout_s`` the client waits for the server's own timeout error (the
server looks for expired transactions only now and then, so it often comes late)."""
TERMINATE_WAIT_S: Final = 0.75
"""How long the answer waits for the server transaction's termination to be confirmed; the
termination goes on in the background after that."""
DEFAULT_FETCH_SIZE: Final = 1000
_TIMEOUT_CODES: Final = (
    "TransactionTimedOut",
    "Transaction.Terminated",
    "TransactionTimedOutClientConfiguration",
)
SHOW_INDEXES: Final = (
    "SHOW INDEXES YIELD name, type, labelsOrTypes, properties, owningConstraint "
    "WHERE type <> 'LOOKUP' RETURN name, type, labelsOrTypes, properties, owningConstraint "
    "ORDER BY name"
)
REL_COUNT: Final = "MATCH ()-[r:{rel}]->() RETURN count(r) AS n"
QUERY_MARK: Final = "\n/* apexmem GraphQuery */"
"""Ends every query GraphQuery sends, so the driver's log filter knows its warnings (at the
end, so the server's error positions still point into the agent's own text)."""
UNKNOWN_NAME: Final = re.compile(r"The (label|relationship type|property) `([^`]+)` does not exist")
"""The GQL status descriptions of 01N50 / 01N51 / 01N52 (unknown label, type, property)."""
UNKNOWN_NAME_STATUSES: Final = frozenset({"01N50", "01N51", "01N52"})
SILENCED_CLASSIFICATIONS: Final = (
    "HINT", "UNSUPPORTED", "PERFORMANCE", "DEPRECATION", "SECURITY", "TOPOLOGY", "SCHEMA",
    "GENERIC",
)  # fmt: skip
"""Every notification class but UNRECOGNIZED (unknown names) stays off."""


class _DropGraphQueryChecks(logging.Filter):
    """Drop the driver's log line for warnings GraphQuery turns into its own refusal."""

    def filter(self, record: logging.LogRecord) -> bool:
        return QUERY_MARK.strip() not in record.getMessage()


logging.getLogger("neo4j.notifications").addFilter(_DropGraphQueryChecks())


class Neo4jQueryBackend:
    """Read-only queries over the Neo4j memory graph through the caller's driver (no I/O here)."""

    def __init__(self, driver: Driver, database: str | None = None) -> None:
        self.driver = driver
        self.database = database

    @property
    def name(self) -> str:
        return "Neo4j"

    @property
    def native_language(self) -> Language:
        return "cypher"

    def run(
        self,
        query: str,
        language: Language,
        params: Mapping[str, Any],
        limits: QueryLimits,
        scope: str | None = None,
    ) -> QueryResult:
        """Run ``query`` read-only; with ``scope`` every node pattern carries the scope's
        label (the SQL shim writes it in, ``scope_cypher`` rewrites agent Cypher)."""
        check_query_size(query, limits)
        started = time.monotonic()
        label = None if scope is None else scope_label(scope)
        translated = None
        if language == "sql":
            translated = sql_to_cypher(query, label).cypher
            require_plain_text(translated)
        cypher = check_cypher(translated or query)
        if label is not None and translated is None:
            cypher = check_cypher(self._scoped(cypher, label))  # the printed text, again
        cypher += QUERY_MARK
        shown = translated or query
        tag = new_tag()

        def work(cancelled: threading.Event) -> QueryResult:
            with _neo4j_errors(limits):
                columns, rows, cut = self._read(cypher, params, limits, tag, cancelled, shown)
            return QueryResult(columns, rows, cut is not None, translated, _lang(translated), cut)

        def expire() -> None:
            terminate_within(self.driver, self.database, tag, TERMINATE_WAIT_S)

        wait = max(0.0, limits.timeout_s + GRACE_S - (time.monotonic() - started))
        try:
            return call_with_deadline(work, wait, expire)
        except DeadlineExpired:
            raise time_limit_error(limits) from None

    def _scoped(self, cypher: str, label: str) -> str:
        """``scope_cypher``; when the guard cannot read the query, the server's own syntax
        error, if it has one, is the clearer answer (asked with EXPLAIN, which runs nothing)."""
        try:
            return scope_cypher(cypher, label)
        except ToolError as refusal:
            if refusal.title not in GUARD_READING_REFUSALS:
                raise
            syntax = self._server_syntax_error(cypher)
            raise (syntax or refusal) from None

    def _server_syntax_error(self, cypher: str) -> ToolError | None:
        """Neo4j's syntax error for ``cypher`` as a ``ToolError`` (None if it parses)."""
        try:
            with self._session(quiet=True) as session:
                session.run(Query("EXPLAIN " + cypher, timeout=SCHEMA_TIMEOUT_S)).consume()
        except neo4j_errors.CypherSyntaxError as exc:
            first = (exc.message or str(exc)).strip().splitlines()[0]
            return ToolError("Cypher syntax error", _unprefixed(first)[:MAX_SYNTAX_MESSAGE])
        except (neo4j_errors.Neo4jError, neo4j_errors.DriverError):
            return None
        return None

    def _read(
        self,
        cypher: str,
        params: Mapping[str, Any],
        limits: QueryLimits,
        tag: dict[str, str],
        cancelled: threading.Event,
        shown: str,
    ) -> tuple[tuple[str, ...], tuple[tuple[Any, ...], ...], Truncation | None]:
        """The EXPLAIN checks, then the query under the server's timeout (what is left of
        ``timeout_s``) in a session without notifications (the EXPLAIN had them), fetching
        ``max_rows + 1`` records at a time; the rest is discarded once a limit is reached."""
        deadline = time.monotonic() + limits.timeout_s
        with self._session() as session:
            unknown = self._require_read_only(session, cypher, params, limits.timeout_s, tag)
        if unknown:
            raise unknown_names_error(unknown, shown)
        left = deadline - time.monotonic()
        if cancelled.is_set() or left <= 0:
            raise time_limit_error(limits)
        with self._session(quiet=True, fetch_size=limits.max_rows + 1) as session:
            result = session.run(Query(cypher, timeout=left, metadata=tag), dict(params))
            columns = tuple(result.keys())
            records = (tuple(plain(v) for v in record.values()) for record in result)
            rows, cut = collect_rows(records, limits)
            if cut is not None:
                with suppress(neo4j_errors.Neo4jError, neo4j_errors.DriverError):
                    result.consume()
        return columns, tuple(rows), cut

    def _require_read_only(
        self,
        session: Session,
        cypher: str,
        params: Mapping[str, Any],
        timeout_s: float = 10.0,
        tag: dict[str, str] | None = None,
    ) -> list[tuple[str, str]]:
        """The second lock: EXPLAIN (plans, never runs) must report query type "r".
        Returns the query's names the database does not have, as ``unknown_names``."""
        explain = Query("EXPLAIN " + cypher, timeout=timeout_s, metadata=tag)
        summary = session.run(explain, dict(params)).consume()
        if summary.query_type != READ_ONLY_TYPE:
            raise ToolError(
                "Write refused",
                f"the query plan is not read-only (query type {summary.query_type!r}); "
                "GraphQuery runs only reading queries.",
            )
        descriptions = [
            status.status_description
            for status in summary.gql_status_objects
            if status.gql_status in UNKNOWN_NAME_STATUSES
        ]
        return unknown_names(descriptions)

    def _session(self, quiet: bool = False, fetch_size: int = DEFAULT_FETCH_SIZE) -> Session:
        """A READ-mode session (the third lock); the caller closes it (``with``). ``quiet``:
        no notifications at all (else only the unknown-name warnings the EXPLAIN reads), so
        the driver logs nothing for the query itself."""
        return self.driver.session(
            database=self.database,
            default_access_mode=neo4j.READ_ACCESS,
            fetch_size=fetch_size,
            notifications_min_severity="OFF" if quiet else "WARNING",
            notifications_disabled_classifications=None if quiet else SILENCED_CLASSIFICATIONS,
        )

    # ---- schema ----

    def schema(self, scope: str | None = None) -> SchemaInfo:
        """Labels, relationships and indexes with counts: ``scope``'s nodes only if given
        (relationships are then listed without counts, which would cost a scan)."""
        limits = QueryLimits(timeout_s=SCHEMA_TIMEOUT_S)
        name = "counts" if scope is None else "counts_scoped"
        params = {} if scope is None else {"label": scope_label(scope)}
        with self._session() as session, _neo4j_errors(limits):
            counts = session.run(
                Query(cypher_files.query(name), timeout=SCHEMA_TIMEOUT_S), params
            ).single()
            rel_counts = _relationship_counts(session) if scope is None else None
            index_rows = [
                r.data() for r in session.run(Query(SHOW_INDEXES, timeout=SCHEMA_TIMEOUT_S))
            ]
        table_counts = counts.data() if counts is not None else {}
        tables = tuple(_label_info(t, table_counts.get(t)) for t in graph_mapping.QUERYABLE_TABLES)
        relations = tuple(
            RelationInfo(f"(:{a})-[:{rel}]->(:{b})", _with_count(meaning, rel, rel_counts))
            for a, rel, b, meaning in graph_mapping.GRAPH_RELATIONSHIPS
        )
        return SchemaInfo("Neo4j", "cypher", tables, relations, _index_infos(index_rows), NOTES)

    def examples(self) -> Sequence[Example]:
        return examples.CYPHER_EXAMPLES


LABELS: Final = tuple(graph_mapping.TABLE_LABELS.values())
RELATIONSHIP_TYPES: Final = tuple(sorted({r for _, r, _, _ in graph_mapping.GRAPH_RELATIONSHIPS}))
SCHEMA_NAMES: Final = frozenset(
    [*LABELS, *RELATIONSHIP_TYPES]
    + [c for t in graph_mapping.QUERYABLE_TABLES for c in graph_mapping.table_columns(t)]
)
"""Names of the schema itself: absent from a young graph (no Evidence yet, no fact with a
t_to yet) without being mistakes."""
ENTITY_BY_NAME: Final = re.compile(r"\{\s*name\s*:\s*'([^']*)'\s*\}")


def unknown_names(descriptions: Sequence[str]) -> list[tuple[str, str]]:
    """(kind, name) of each label / relationship type / property the server's statuses say
    the database has never seen, leaving out the schema's own names."""
    found: list[tuple[str, str]] = []
    for description in descriptions:
        match = UNKNOWN_NAME.search(description)
        if match is None or match.group(2) in SCHEMA_NAMES or _is_scope_label(match.group(2)):
            continue
        kind, name = match.group(1), match.group(2)
        if (kind, name) not in found:
            found.append((kind, name))
    return found


def _is_scope_label(name: str) -> bool:
    """A scope label the graph has not seen yet is a new, empty scope, not a typo."""
    return name.startswith("Scope_")


def unknown_names_error(names: Sequence[tuple[str, str]], query: str) -> ToolError:
    """The refusal of a query naming what the graph lacks, with the Fact-node form to use."""
    parts = []
    for kind, name in names:
        if kind == "label":
            parts.append(f"no node has the label `{name}` (labels: {', '.join(LABELS)})")
        elif kind == "relationship type":
            types = ", ".join(RELATIONSHIP_TYPES)
            parts.append(f"no relationship has the type `{name}` (types: {types})")
        else:
            parts.append(f"no node has a property `{name}`")
    properties = [name for kind, name in names if kind == "property"]
    entity = ENTITY_BY_NAME.search(query)
    suggestion = (
        f"MATCH (e:Entity {{name: '{entity.group(1) if entity else 'Some Name'}'}})"
        f"<-[:ABOUT]-(f:Fact {{property: '{properties[0] if properties else 'some_property'}'}})\n"
        "RETURN f.value_json, f.t_from, f.t_to ORDER BY f.t_from DESC"
    )
    detail = (
        "; ".join(parts) + ". An entity's attributes are Fact nodes, one per value over "
        "time, with the attribute's name in f.property and its value in f.value_json."
    )
    return ToolError("Not in the graph", detail, suggestion)


NOTES: Final = (
    "Node properties carry exactly the SQL columns of their table (same names, same values); "
    "a NULL column is an absent property (reads as null).",
    "Times are strings 'YYYY-MM-DDTHH:MM:SS' (UTC): compare them as strings; for date "
    "arithmetic use localdatetime(x), duration.between(a, b), duration.inDays(a, b).days.",
    "Fact.value_json is the value as canonical JSON text (a string keeps its quotes: "
    "'\"Paris\"').",
    "SQL (language='sql') is translated to Cypher: tables become labels, joins become "
    "equalities on the id properties.",
)


def _label_info(table: str, count: int | None) -> TableInfo:
    columns = tuple(
        ColumnInfo(
            c,
            graph_mapping.SQL_TYPES[graph_mapping.column_type(c)],
            graph_mapping.is_nullable(table, c),
        )
        for c in graph_mapping.table_columns(table)
    )
    key = graph_mapping.primary_key(table)
    if table in graph_mapping.TABLE_LABELS:
        return TableInfo(
            graph_mapping.TABLE_LABELS[table], "node label", table, columns, key, count
        )
    start, rel, end = graph_mapping.RELATIONSHIP_TABLES[table]
    return TableInfo(f"(:{start})-[:{rel}]->(:{end})", "relationship", table, columns, key, count)


def _with_count(meaning: str, rel: str, counts: dict[str, int] | None) -> str:
    return meaning if counts is None else f"{meaning} ({counts.get(rel, 0)} in all)"


def _relationship_counts(session: Session) -> dict[str, int]:
    """Per schema relationship type the graph holds, its count (from the count store). Types
    the graph has never seen are skipped, not counted: naming one makes the server warn."""
    present = {
        r["relationshipType"]
        for r in session.run(Query("CALL db.relationshipTypes()", timeout=SCHEMA_TIMEOUT_S))
    }
    return {
        rel: _count(session, REL_COUNT.format(rel=rel))
        for rel in RELATIONSHIP_TYPES
        if rel in present
    }


def _count(session: Session, text: str) -> int:
    record = session.run(Query(text, timeout=SCHEMA_TIMEOUT_S)).single()
    return int(record["n"]) if record is not None else 0


def _index_infos(rows: list[dict[str, Any]]) -> tuple[IndexInfo, ...]:
    known = {*LABELS, *RELATIONSHIP_TYPES}
    out = []
    for row in rows:
        targets = row.get("labelsOrTypes") or []
        if not set(targets) & known:
            continue
        kind = str(row.get("type", "")).upper() + (
            " (unique constraint)" if row.get("owningConstraint") else ""
        )
        target = f"{'|'.join(targets)}({', '.join(row.get('properties') or [])})"
        out.append(IndexInfo(str(row["name"]), target, kind))
    return tuple(out)


@contextmanager
def _neo4j_errors(limits: QueryLimits) -> Iterator[None]:
    """Turn driver and server errors into ``ToolError`` the agent can act on."""
    try:
        yield
    except ToolError:
        raise
    except neo4j_errors.Neo4jError as exc:
        code = exc.code or ""
        if any(part in code for part in _TIMEOUT_CODES):
            raise time_limit_error(limits) from exc
        if "AccessMode" in code or "Forbidden" in code:
            raise ToolError(
                "Write refused", "the query tried to write; GraphQuery only reads."
            ) from exc
        raise ToolError("Cypher error", f"{exc.message or exc} ({code})") from exc
    except neo4j_errors.DriverError as exc:
        raise ToolError("Neo4j unavailable", f"{type(exc).__name__}: {exc}") from exc


def _unprefixed(message: str) -> str:
    """A server message's position moved back over the ``EXPLAIN `` prefix GraphQuery added."""
    shift = len("EXPLAIN ")

    def back(match: re.Match[str]) -> str:
        line, column, offset = (int(g) for g in match.groups())
        column -= shift if line == 1 else 0
        return f"(line {line}, column {column} (offset: {offset - shift}))"

    return POSITION.sub(back, message)


def time_limit_error(limits: QueryLimits) -> ToolError:
    return ToolError(
        "Time limit",
        f"the query ran longer than {limits.timeout_s:g} s and was stopped; filter "
        "earlier (index properties: Fact.entity_id, property, t_from) or add LIMIT.",
    )


def plain(value: Any) -> Any:
    """A driver value as plain Python: nodes and relationships as dicts, times as ISO text."""
    if isinstance(value, Node):
        return {"_labels": sorted(value.labels), **dict(value.items())}
    if isinstance(value, Relationship):
        return {"_type": value.type, **dict(value.items())}
    if isinstance(value, Path):
        return [plain(n) for n in value.nodes]
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if hasattr(value, "iso_format"):
        return value.iso_format()
    return value


def _lang(translated: str | None) -> Language | None:
    return "cypher" if translated is not None else None
