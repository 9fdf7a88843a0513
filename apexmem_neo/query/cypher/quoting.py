"""Small helpers that write Cypher text safely: identifiers, string literals, parameters."""

from __future__ import annotations

import re
from typing import Final

from apexmem_neo.errors import ToolError
from apexmem_neo.query.cypher.guard import FORBIDDEN_WORDS

_PLAIN: Final = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
RESERVED: Final = frozenset(
    {
        "ALL", "AND", "AS", "ASC", "ASCENDING", "BY", "CALL", "CASE", "CONTAINS", "CREATE",
        "DELETE", "DESC", "DESCENDING", "DETACH", "DISTINCT", "ELSE", "END", "ENDS", "EXISTS",
        "FALSE", "IN", "IS", "LIMIT", "MATCH", "MERGE", "NOT", "NULL", "OPTIONAL", "OR",
        "ORDER", "REMOVE", "RETURN", "SET", "SKIP", "STARTS", "THEN", "TRUE", "UNION",
        "UNWIND", "WHEN", "WHERE", "WITH", "XOR", "COLLECT", "COUNT", "OFFSET",
    }
    | set(FORBIDDEN_WORDS)
)  # fmt: skip
"""Words quoted when used as names, including every word the Cypher guard refuses as a clause."""


def ident(name: str) -> str:
    """``name`` as a Cypher identifier, backtick-quoted unless it is plain and not reserved.

    A name holding a backslash is refused: Neo4j decodes ``\\uXXXX`` inside backtick names
    before reading them, so such a name could end itself early."""
    if _PLAIN.match(name) and name.upper() not in RESERVED:
        return name
    if "\\" in name:
        raise ToolError(
            "Backslash refused",
            f"the name {name!r} holds a backslash; column aliases and names cannot.",
            "Rename the alias without the backslash.",
        )
    return "`" + name.replace("`", "``") + "`"


def prop(var: str, key: str) -> str:
    """``var.key`` with the key quoted when needed."""
    return f"{var}.{ident(key)}"


def string(value: str) -> str:
    """A Cypher string literal (backslashes and quotes escaped)."""
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def param(name: str) -> str:
    if not _PLAIN.match(name):
        raise ValueError(f"parameter name {name!r} is not a plain identifier")
    return "$" + name


def is_plain(name: str) -> bool:
    return bool(_PLAIN.match(name))
