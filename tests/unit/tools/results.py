"""Reading a ``ToolResult`` in tests: the title of its error ("" when the call worked)."""

from __future__ import annotations

from apexmem_neo.tools.result import ToolResult


def error_title(result: ToolResult) -> str:
    return "" if result.error is None else result.error.title
