"""Turn metadata: a flat JSON object of caller-chosen keys and scalar values.

A turn's ``metadata`` is a dict of non-empty string keys to JSON scalars (str, int, float,
bool, None), stored as canonical JSON (the column ``metadata_json``). Scalars only, so that a
filter is plain equality on each key: ``matches`` is the reference, and every backend's
filter agrees with it (SQLite reads the JSON with ``json_each``; Cypher, which reads no
JSON, looks for ``metadata_needles`` in its text). Equality is on the JSON value, so ``1``,
``1.0`` and ``true`` are three different values.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import Any, Final, TypeAlias, cast

from apexmem_neo.ontology.ids import canonical_json

MetadataValue: TypeAlias = str | int | float | bool | None
Metadata: TypeAlias = dict[str, MetadataValue]
SCALARS: Final = "str, int, float, bool or None"
INT64: Final = (-(2**63), 2**63 - 1)


def _text_problem(text: str) -> str | None:
    """Why ``text`` cannot be stored (a NUL character, or no UTF-8 form), or None."""
    if "\x00" in text:
        return "contains a NUL character"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "contains a lone surrogate, which is not Unicode"
    return None


def _value_problem(key: str, value: object) -> str | None:
    """Why ``value`` cannot be the value of ``key``, or None."""
    if isinstance(value, float) and not math.isfinite(value):
        return f"value of {key!r} is {value!r}, not a finite number"
    if isinstance(value, str):
        problem = _text_problem(value)
        return None if problem is None else f"value of {key!r} {problem}"
    if isinstance(value, int) and not isinstance(value, bool) and not INT64[0] <= value <= INT64[1]:
        return f"value of {key!r} is {value}, outside the 64-bit integers a store compares"
    if value is None or isinstance(value, bool | int | float):
        return None
    return f"value of {key!r} is of type {type(value).__name__}, not a JSON scalar ({SCALARS})"


def metadata_problem(value: object) -> str | None:
    """Why ``value`` is not usable metadata, or None: the first problem found, in words."""
    if not isinstance(value, Mapping):
        return f"must be a dict of string keys to {SCALARS}, not of type {type(value).__name__}"
    for key, item in value.items():
        if not isinstance(key, str) or not key:
            return f"key {key!r} is not a non-empty string"
        problem = _text_problem(key)
        if problem is not None:
            return f"key {key!r} {problem}"
        problem = _value_problem(key, item)
        if problem is not None:
            return problem
    return None


def check_metadata(value: object) -> Metadata:
    """``value`` as a metadata dict (None means none: ``{}``); ValueError naming the problem."""
    if value is None:
        return {}
    problem = metadata_problem(value)
    if problem is not None:
        raise ValueError(f"metadata {problem}")
    return dict(cast(Mapping[str, MetadataValue], value))


def metadata_json(metadata: Mapping[str, MetadataValue]) -> str:
    """The canonical JSON stored for ``metadata`` (sorted keys, compact)."""
    return canonical_json(dict(metadata))


def read_metadata(stored: str | None) -> Metadata:
    """The metadata a stored ``metadata_json`` holds (none stored: ``{}``)."""
    if not stored:
        return {}
    found: Any = json.loads(stored)
    return dict(found)


def metadata_pairs(metadata: Mapping[str, MetadataValue]) -> list[str]:
    """One canonical ``[key, value]`` JSON string per entry, sorted: the form a filter
    compares (equal strings mean equal key and equal JSON value)."""
    return sorted(canonical_json([key, value]) for key, value in metadata.items())


def metadata_needles(wanted: Mapping[str, MetadataValue]) -> list[list[str]]:
    """Per wanted entry, the texts of which a turn's ``metadata_json`` holds one exactly when
    the turn has that entry: ``"key":value`` after ``{`` or ``,`` and before ``,`` or ``}``.
    Canonical JSON escapes every quote inside a string, so ``{"`` and ``,"`` only begin a key
    and the next ``,`` or ``}`` ends the value: a store that reads no JSON (Cypher) filters
    with CONTAINS and keeps exactly what ``matches`` keeps."""
    entries = (canonical_json(key) + ":" + canonical_json(value) for key, value in wanted.items())
    return [[f"{start}{entry}{end}" for start in "{," for end in ",}"] for entry in sorted(entries)]


def matches(metadata: Mapping[str, MetadataValue], wanted: Mapping[str, MetadataValue]) -> bool:
    """Whether ``metadata`` holds every key of ``wanted`` with the same JSON value."""
    return set(metadata_pairs(wanted)) <= set(metadata_pairs(metadata))


def metadata_from_pairs(pairs: Sequence[str]) -> Metadata:
    """``key=value`` texts (a CLI option, a URL query) as a metadata filter: a value that
    reads as a JSON scalar (``3``, ``1.5``, ``true``, ``null``, ``"3"``) is that value, any
    other text the text itself; ValueError for a pair without ``=`` or a key given twice."""
    wanted: Metadata = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key:
            raise ValueError(f"metadata filter {pair!r}: write key=value")
        if key in wanted:
            raise ValueError(f"metadata filter key {key!r} given twice")
        wanted[key] = _scalar(raw)
    return wanted


def _scalar(raw: str) -> MetadataValue:
    """``raw`` as the JSON scalar it spells, else as plain text."""
    try:
        value = json.loads(raw)
    except ValueError:
        return raw
    return raw if isinstance(value, list | dict) else cast(MetadataValue, value)
