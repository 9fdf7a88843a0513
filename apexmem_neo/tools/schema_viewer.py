"""SchemaViewer: the memory's tables / labels, relationships, indexes, counts, examples, guide."""

from __future__ import annotations

from collections.abc import Callable

from apexmem_neo.query import examples
from apexmem_neo.query.backend import QueryBackend, SchemaInfo, TableInfo, ToolError
from apexmem_neo.tools import markdown
from apexmem_neo.tools.result import ToolResult, unexpected

SCHEMA_VIEWER_DOC = """Show the schema of the memory graph as markdown.

Args:
    include_examples: also show the canonical temporal queries (current value, value as of a
        time, when it changed, value before an event, facts in a window, durations) written
        for this backend, with their parameters.
    include_guide: also explain when to use SchemaViewer, EntityLookup, GraphQuery or Search.

Always shows: tables / labels with their columns and types, relationships, indexes and row
counts. This memory runs on {backend}; GraphQuery's native language here is {language}.
"""


def view_schema(
    backend: QueryBackend, include_examples: bool = False, include_guide: bool = False
) -> ToolResult:
    """SchemaViewer's body: never raises; a schema that cannot be read comes back in
    ``error``."""
    try:
        info = backend.schema()
    except ToolError as exc:
        return ToolResult.failure(exc)
    except Exception as exc:  # the agent must always get text back
        return unexpected("Schema unavailable", exc)
    parts = [render_schema(info)]
    if include_examples:
        parts.append(_examples(backend))
    if include_guide:
        parts += ["## Which tool when", "", examples.guide(info.language, info.backend)]
    return ToolResult("\n\n".join(parts))


def schema_viewer_tool(backend: QueryBackend) -> Callable[..., ToolResult]:
    """The agent's ``SchemaViewer(include_examples, include_guide)`` bound to ``backend``."""

    def schema_viewer(include_examples: bool = False, include_guide: bool = False) -> ToolResult:
        return view_schema(backend, include_examples, include_guide)

    schema_viewer.__name__ = schema_viewer.__qualname__ = "SchemaViewer"
    schema_viewer.__doc__ = SCHEMA_VIEWER_DOC.format(
        backend=backend.name, language=backend.native_language
    )
    return schema_viewer


def render_schema(info: SchemaInfo) -> str:
    word = "Labels and tables" if info.language == "cypher" else "Tables"
    lines = [f"# Memory schema ({info.backend}; query language: {info.language})", "", f"## {word}"]
    for t in info.tables:
        lines += ["", _table_heading(t), "", _columns(t)]
    lines += [
        "",
        "## Relationships" if info.language == "cypher" else "## Joins (foreign keys)",
        "",
    ]
    lines += [f"- `{r.pattern}`: {r.meaning}" for r in info.relations] or ["- (none)"]
    lines += ["", "## Indexes", ""]
    lines += [f"- {i.name}: {i.target} [{i.kind}]" for i in info.indexes] or ["- (none)"]
    if info.notes:
        lines += ["", "## Notes", "", *[f"- {n}" for n in info.notes]]
    return "\n".join(lines)


def _table_heading(t: TableInfo) -> str:
    count = "?" if t.count is None else str(t.count)
    sql = f" (SQL table `{t.sql_table}`)" if t.name != t.sql_table else ""
    return f"### `{t.name}`{sql}: {t.kind}, {count} rows, key ({', '.join(t.primary_key)})"


def _columns(t: TableInfo) -> str:
    rows = [(c.name, c.type, "yes" if c.nullable else "no") for c in t.columns]
    return markdown.table(("column", "type", "nullable"), rows, 80)


def _examples(backend: QueryBackend) -> str:
    lines = [f"## Temporal query examples ({backend.native_language})"]
    for ex in backend.examples():
        params = ", ".join(f"{k}: {v}" for k, v in ex.params.items())
        lines += ["", f"### {ex.title}", "", f"```{backend.native_language}", ex.query, "```"]
        if params:
            lines.append(f"Parameters: {params}.")
    return "\n".join(lines)
