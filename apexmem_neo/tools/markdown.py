"""Markdown for the agent: result tables with bounded cells and query results."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from apexmem_neo.query.backend import QueryResult

ELLIPSIS = "…"


def cell(value: Any, max_chars: int) -> str:
    """One table cell: NULL for None, JSON for lists / maps, pipes and newlines escaped."""
    if value is None:
        text = "NULL"
    elif isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, list | dict | tuple):
        text = json.dumps(value, ensure_ascii=False, default=str, sort_keys=True)
    elif isinstance(value, bytes):
        text = "0x" + value.hex()
    else:
        text = str(value)
    text = text.replace("\\", "\\\\").replace("|", "\\|").replace("\r", " ").replace("\n", " ")
    if len(text) > max_chars:
        text = text[: max_chars - 1] + ELLIPSIS
    return text


def table(columns: Sequence[str], rows: Sequence[Sequence[Any]], max_chars: int) -> str:
    if not columns:
        return "_(no columns)_"
    head = "| " + " | ".join(cell(c, max_chars) for c in columns) + " |"
    rule = "|" + "|".join("---" for _ in columns) + "|"
    body = ["| " + " | ".join(cell(v, max_chars) for v in row) + " |" for row in rows]
    return "\n".join([head, rule, *body])


def result(res: QueryResult, max_chars: int, max_rows: int) -> str:
    lines: list[str] = []
    if res.translated is not None:
        lines += [f"Ran as {res.translated_language}:", f"```{res.translated_language}",
                  res.translated, "```", ""]  # fmt: skip
    count = len(res.rows)
    if res.truncated:
        lines.append(
            f"**{count} rows shown; more exist (row limit {max_rows}).** Narrow the query "
            "(WHERE, LIMIT, aggregates) to see the rest."
        )
    else:
        lines.append(f"**{count} row{'s' if count != 1 else ''}.**")
    if count:
        lines += ["", table(res.columns, res.rows, max_chars)]
    elif res.columns:
        lines.append(f"Columns: {', '.join(res.columns)}. No row matched.")
    return "\n".join(lines)
