"""ToolResult: callers read ``error`` and ``rows``; the agent reads the rendered text."""

from __future__ import annotations

import pytest

from apexmem_neo.errors import ToolError
from apexmem_neo.tools.result import ERROR_HEADING, ToolResult, unexpected


def test_an_error_renders_as_the_block_the_agent_reads() -> None:
    err = ToolError("Unsupported SQL", "RIGHT JOIN has no translation.", "MATCH (a) RETURN a")
    result = ToolResult.failure(err)
    assert not result.ok and result.error is err and result.text == ""
    assert (
        str(result)
        == result.render()
        == (
            f"{ERROR_HEADING} Unsupported SQL\n\nRIGHT JOIN has no translation.\n\n"
            "Instead, try:\n```\nMATCH (a) RETURN a\n```"
        )
    )


def test_a_success_renders_its_markdown_and_keeps_its_row_count() -> None:
    result = ToolResult("**0 rows.**", rows=0)
    assert result.ok and str(result) == "**0 rows.**" and result.rows == 0
    assert result.text_or_raise() == "**0 rows.**"


def test_text_or_raise_raises_the_error() -> None:
    result = unexpected("Query failed", RuntimeError("boom"))
    assert str(result) == f"{ERROR_HEADING} Query failed\n\nRuntimeError: boom"
    with pytest.raises(ToolError, match="Query failed: RuntimeError: boom"):
        result.text_or_raise()
