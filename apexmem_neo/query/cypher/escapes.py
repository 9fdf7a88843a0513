"""Neo4j's Unicode escapes, read the way Neo4j reads them: before the query is lexed.

Neo4j decodes ``\\uXXXX`` anywhere in a query's text (inside names, strings and comments, and
between tokens) by Java's rule: a backslash starts an escape when an even number of
backslashes stands right before it, the ``u`` is followed by exactly four hex digits, and a
backslash that an escape produced starts no further escape. So ``\\u0060`` ends a backtick
name and ``\\u0055NION`` is UNION. The guards therefore check the decoded text, and the text
sent to Neo4j is that decoded text, which must read the same when Neo4j decodes it again.
"""

from __future__ import annotations

import re
from typing import Final

from apexmem_neo.errors import ToolError

_HEX4: Final = re.compile(r"[0-9a-fA-F]{4}")


def decode_unicode_escapes(text: str) -> str:
    """``text`` with every escape Neo4j would decode decoded; a malformed one is refused."""
    if "\\" not in text:
        return text
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        if text[i] != "\\":
            out.append(text[i])
            i += 1
            continue
        run_end = i
        while run_end < n and text[run_end] == "\\":
            run_end += 1
        run = run_end - i
        if run % 2 == 1 and text.startswith("u", run_end):
            out.append("\\" * (run - 1))
            out.append(_escaped_char(text, run_end + 1))
            i = run_end + 5
        else:
            out.append("\\" * run)
            i = run_end
    return "".join(out)


def _escaped_char(text: str, start: int) -> str:
    """The character of the four hex digits at ``start``, or a refusal as Neo4j gives one."""
    digits = _HEX4.match(text, start)
    if digits is None:
        raise ToolError(
            "Unreadable query",
            f"\\u at offset {start - 2} is not followed by four hex digits; Neo4j decodes "
            "\\uXXXX anywhere in a query, before reading it.",
            "Write the character itself, or \\\\ for a backslash inside a string.",
        )
    return chr(int(digits.group(), 16))


def readable_text(query: str) -> str:
    """The text Neo4j reads for ``query``: decoded once, and unchanged by a second decoding
    (an escape that spells another escape, ``\\u005cu0060``, is refused), so the text a guard
    checks and sends is exactly the text the server parses."""
    decoded = decode_unicode_escapes(query)
    require_plain_text(decoded)
    return decoded


def require_plain_text(text: str) -> None:
    """Refuse a text that Neo4j would still change by decoding escapes in it."""
    if "\\" in text and decode_unicode_escapes(text) != text:
        raise ToolError(
            "Unreadable query",
            "the query spells a \\uXXXX escape that Neo4j would decode again (an escape "
            "inside an escape, or a name holding \\u).",
            "Write the characters themselves.",
        )


__all__ = ["decode_unicode_escapes", "readable_text", "require_plain_text"]
