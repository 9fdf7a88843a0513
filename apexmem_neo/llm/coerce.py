"""Lenient validators for LLM output models: the JSON schema still lists the allowed values
(so a grammar-constrained server can only produce them), while parsing maps near-misses from
free-text models onto the nearest allowed value instead of failing the whole output."""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import BeforeValidator, Field

from apexmem_neo.ontology import DType, EntityType, Role

_TYPE_BY_KEY = {t.value.casefold(): t for t in EntityType} | {
    t.name.casefold().replace("_", ""): t for t in EntityType
}
_ROLE_BY_KEY = {r.value.casefold(): r for r in Role}
_DTYPE_SYNONYMS = {
    "string": DType.STR, "text": DType.STR, "integer": DType.INT, "number": DType.FLOAT,
    "boolean": DType.BOOL, "double": DType.FLOAT, "timestamp": DType.DATETIME,
    "array": DType.LIST, "category": DType.ENUM, "uri": DType.URL,
}  # fmt: skip


def _key(value: Any) -> str:
    return re.sub(r"[^a-z]", "", str(value).casefold())


def entity_type_or_concept(value: Any) -> EntityType:
    """An EntityType by value or name, case and punctuation ignored; else ``Concept``."""
    if isinstance(value, EntityType):
        return value
    return _TYPE_BY_KEY.get(_key(value), EntityType.CONCEPT)


def role_or_mentioned(value: Any) -> Role:
    if isinstance(value, Role):
        return value
    return _ROLE_BY_KEY.get(_key(value), Role.MENTIONED)


def dtype_or_str(value: Any) -> DType:
    if isinstance(value, DType):
        return value
    key = _key(value)
    for dtype in DType:
        if dtype.value == key:
            return dtype
    return _DTYPE_SYNONYMS.get(key, DType.STR)


def empty_to_none(value: Any) -> Any:
    """Null-like strings ("", "null", "none", "n/a") become None."""
    if isinstance(value, str) and value.strip().casefold() in (
        "",
        "null",
        "none",
        "n/a",
        "unknown",
    ):
        return None
    return value


def clamp_unit(value: Any) -> Any:
    """Confidence: numbers are clamped to [0, 1]; 0-100 percentages are scaled."""
    if isinstance(value, str):
        try:
            value = float(value.strip().rstrip("%"))
        except ValueError:
            return 0.5
    if isinstance(value, int | float) and not isinstance(value, bool):
        number = float(value) / 100.0 if value > 1.0 else float(value)
        return min(1.0, max(0.0, number))
    return value


EntityTypeField = Annotated[EntityType, BeforeValidator(entity_type_or_concept)]
RoleField = Annotated[Role, BeforeValidator(role_or_mentioned)]
DTypeField = Annotated[DType, BeforeValidator(dtype_or_str)]


def cut_to(limit: int) -> BeforeValidator:
    """Truncate a string or list longer than ``limit`` instead of rejecting it (models without
    a grammar can overrun the schema's maxLength / maxItems; with one they cannot)."""

    def _cut(value: Any) -> Any:
        return value[:limit] if isinstance(value, str | list) else value

    return BeforeValidator(_cut)


# Length caps on generated text. llama-server turns a JSON schema into a grammar, and the
# grammar honours maxLength / maxItems, so a small model that starts repeating itself stops at
# the cap instead of running to max_tokens (then failing to parse and being retried).
NAME_CHARS = 80
QUOTE_CHARS = 240
VALUE_CHARS = 160
OptionalText = Annotated[str | None, BeforeValidator(empty_to_none)]
ShortText = Annotated[str, cut_to(NAME_CHARS), Field(max_length=NAME_CHARS)]
QuoteText = Annotated[str, cut_to(QUOTE_CHARS), Field(max_length=QUOTE_CHARS)]
ValueText = Annotated[str, cut_to(VALUE_CHARS), Field(max_length=VALUE_CHARS)]
OptionalShortText = Annotated[ShortText | None, BeforeValidator(empty_to_none)]
Confidence = Annotated[float, BeforeValidator(clamp_unit)]
