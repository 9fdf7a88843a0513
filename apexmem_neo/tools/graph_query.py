"""GraphQuery: read-only, bounded queries over the memory graph, answered in markdown."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any, Final

from apexmem_neo.query.backend import (
    LANGUAGES,
    QueryBackend,
    QueryLimits,
    QueryResult,
    ToolError,
    check_query_size,
)
from apexmem_neo.tools import markdown
from apexmem_neo.tools.result import ERROR_HEADING, ToolResult, unexpected

GRAPH_QUERY_DOC = """Run one read-only query over the memory graph; rows come back as markdown.

Args:
    query: {query_kind}
    language: {language_line}
    params: values for the query's parameters ({param_style}), e.g.
        {{"entity_id": "ent_...", "t": "2023-05-01T00:00:00"}}.

Results are limited to {max_rows} rows, {max_kb} kB and {timeout:g} seconds; long values
are cut. On a problem the answer starts with "{error_heading}" and says how to fix the query.
"""
SQL_QUERY_KIND: Final = (
    "one SQL SELECT over the paper's tables (sessions, turns, entities, properties, evidence, "
    "events, event_participants, facts). Writes and several statements are refused."
)
CYPHER_QUERY_KIND: Final = (
    "one read-only Cypher statement (MATCH ... RETURN ...). Writes, procedures outside a "
    "small read-only list and several statements are refused."
)


def graph_query_doc(backend: QueryBackend, default: str, limits: QueryLimits) -> str:
    """GraphQuery's description in the language it is used in: a SQL-only memory (SQLite)
    never mentions Cypher: with a description that began "one Cypher statement
    (MATCH ... RETURN ...)", the local model wrote Cypher on SQLite at every step."""
    if backend.native_language == "sql":  # SQLite: SQL only
        query_kind, language_line = SQL_QUERY_KIND, f'"sql". This memory runs on {backend.name}.'
        param_style = ":name in SQL"
    else:
        first, other = (
            (SQL_QUERY_KIND, "Cypher") if default == "sql" else (CYPHER_QUERY_KIND, "SQL")
        )
        query_kind = f"{first} ({other} is also accepted with language='{other.lower()}'.)"
        language_line = (
            f'"{default}" (default) or "{"cypher" if default == "sql" else "sql"}". '
            f"This memory runs on {backend.name}."
        )
        param_style = "$name in Cypher, :name in SQL"
    return GRAPH_QUERY_DOC.format(
        query_kind=query_kind,
        language_line=language_line,
        param_style=param_style,
        max_rows=limits.max_rows,
        max_kb=limits.max_result_bytes // 1000,
        timeout=limits.timeout_s,
        error_heading=ERROR_HEADING,
    )


def run_graph_query(
    backend: QueryBackend,
    query: str,
    language: str = "cypher",
    params: Mapping[str, Any] | None = None,
    limits: QueryLimits | None = None,
) -> ToolResult:
    """GraphQuery's body: never raises; a refused or failed query comes back in ``error``."""
    limits = limits or QueryLimits()
    try:
        check_query_size(query or "", limits)
        lang = _language(language)
        _check_language_matches(query, lang, backend)
        values = _params(params)
        res = backend.run(query, lang, values, limits)
    except ToolError as exc:
        return ToolResult.failure(exc)
    except Exception as exc:  # the agent must always get text back, never a traceback
        return unexpected("Query failed", exc)
    text = markdown.result(res, limits.max_cell_chars, limits.max_rows)
    return ToolResult(_size_limit_note(text, res, limits), rows=len(res.rows))


def _size_limit_note(text: str, res: QueryResult, limits: QueryLimits) -> str:
    """Name the byte cap, not the row limit, when it is what cut the rows."""
    if res.truncated_by != "bytes":
        return text
    return text.replace(
        f"(row limit {limits.max_rows})", f"(size limit {limits.max_result_bytes // 1000} kB)", 1
    )


def graph_query_tool(
    backend: QueryBackend, limits: QueryLimits | None = None, language: str | None = None
) -> Callable[..., ToolResult]:
    """The agent's ``GraphQuery(query, language, params)`` bound to ``backend``; ``language``
    is its default (the backend's native one unless given)."""
    bound = limits or QueryLimits()
    default = language or backend.native_language

    def graph_query(
        query: str, language: str = default, params: dict[str, Any] | None = None
    ) -> ToolResult:
        return run_graph_query(backend, query, language, params, bound)

    graph_query.__name__ = graph_query.__qualname__ = "GraphQuery"
    graph_query.__doc__ = graph_query_doc(backend, default, bound)
    return graph_query


_CYPHER_START: Final = re.compile(
    r"^\s*(OPTIONAL\s+MATCH|MATCH|MERGE|UNWIND|CALL|RETURN)\b", re.IGNORECASE
)
_SQL_START: Final = re.compile(r"^\s*(SELECT)\b", re.IGNORECASE)
SQL_BY_NAME: Final = (
    "SELECT f.property, f.value_json, f.t_from, f.t_to FROM facts f\n"
    "JOIN entities e ON e.entity_id = f.entity_id\n"
    "WHERE e.name = 'Some Name' AND f.property = 'some_property'\n"
    "ORDER BY f.t_from DESC LIMIT 5"
)


def _check_language_matches(query: str, language: str, backend: QueryBackend) -> None:
    """Refuse a query written in the other language, saying so: told only "SQL syntax
    error", the small model sent the same Cypher again and again as language='sql'."""
    cypher = _CYPHER_START.match(query or "")
    if language == "sql" and cypher:
        keyword = cypher.group(1).split()[-1].upper()
        if backend.native_language == "cypher":
            raise ToolError(
                "Cypher sent as SQL",
                f"the query starts with {keyword}, which is Cypher, but language is 'sql'. "
                "Send it again with language='cypher', or write a SQL SELECT.",
            )
        raise ToolError(
            "Cypher sent as SQL",
            f"the query starts with {keyword}, which is Cypher; this memory runs on "
            f"{backend.name} and takes SQL only: one SELECT over the tables (entities, "
            "facts, events, turns, ...).",
            SQL_BY_NAME,
        )
    if language == "cypher" and _SQL_START.match(query or ""):
        raise ToolError(
            "SQL sent as Cypher",
            "the query starts with SELECT, which is SQL, but language is 'cypher'. "
            "Send it again with language='sql'.",
        )


def _language(language: str) -> Any:
    lowered = (language or "").strip().lower()
    if lowered not in LANGUAGES:
        raise ToolError(
            "Unknown language", f"language must be 'cypher' or 'sql', not {language!r}."
        )
    return lowered


def _params(params: Mapping[str, Any] | None) -> dict[str, Any]:
    if params is None:
        return {}
    if not isinstance(params, Mapping):
        raise ToolError("Bad params", "params must be an object of name -> value.")
    out: dict[str, Any] = {}
    for key, value in params.items():
        if not isinstance(key, str) or not key.isidentifier():
            raise ToolError("Bad params", f"parameter name {key!r} is not a plain identifier.")
        out[key.lstrip("$:")] = value
    return out
