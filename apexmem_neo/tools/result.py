"""What a read tool answers: ``ToolResult``, markdown for the agent or the error that stopped it.

Callers (the CLI, the MCP server, the query loop) look at ``error`` and ``rows``; only the
agent's LLM reads text, which ``render`` (and ``str``) gives: the markdown on success, an
"## Error:" block naming the problem and how to fix it otherwise.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from apexmem_neo.errors import ToolError

ERROR_HEADING: Final = "## Error:"
"""How an error block starts in the text the agent reads."""


@dataclass(frozen=True)
class ToolResult:
    """One tool call's answer: ``text`` (markdown) when it worked, ``error`` when it did not.

    ``rows`` is the number of rows a GraphQuery returned (None for the other tools), so a
    caller can tell an empty result without reading the table.
    """

    text: str = ""
    error: ToolError | None = None
    rows: int | None = None

    @classmethod
    def failure(cls, error: ToolError) -> ToolResult:
        return cls(error=error)

    @property
    def ok(self) -> bool:
        return self.error is None

    def text_or_raise(self) -> str:
        """The markdown, or ``error`` raised: for callers that report failures as
        exceptions (``Memory.schema``, ``Memory.lookup``)."""
        if self.error is not None:
            raise self.error
        return self.text

    def render(self) -> str:
        """The text the agent reads: the markdown, or the error block."""
        return self.text if self.error is None else error_block(self.error)

    def __str__(self) -> str:
        return self.render()


def error_block(err: ToolError) -> str:
    """``err`` as the agent reads it: a heading with the title, the detail, the suggestion."""
    lines = [f"{ERROR_HEADING} {err.title}", "", err.detail]
    if err.suggestion:
        lines += ["", "Instead, try:", "```", err.suggestion, "```"]
    return "\n".join(lines)


def unexpected(title: str, exc: Exception) -> ToolResult:
    """A failure the tool did not foresee, as a result: the agent gets text, never a trace."""
    return ToolResult.failure(ToolError(title, f"{type(exc).__name__}: {exc}"))


Tool = Callable[..., ToolResult]
"""A read tool as the agent calls it (``GraphQuery(query=...)``, ``Search(query=...)``)."""

__all__ = ["ERROR_HEADING", "Tool", "ToolResult", "error_block", "unexpected"]
