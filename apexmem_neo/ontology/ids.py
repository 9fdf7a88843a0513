"""Deterministic ids: a kind prefix plus a content hash of the normalised content.

The same content always yields the same id, so writing the same turn twice adds nothing
(stores insert with INSERT OR IGNORE / MERGE on the id). Prefixes make ids self-describing
and keep them from ever parsing as ISO 8601 times.

Fact and property ids are at most 36 characters (``fct_`` / ``prp_`` + 32 hex) because Neo4j
stores a string of up to 36 such characters inline in the node's property record and a longer
one in a separate dynamic record: ``fact_`` / ``prop_`` ids (37 characters) cost every Fact
node two extra records (see the CHANGELOG). The prefix is not hashed (``content_id`` hashes
the kind name), so the shorter prefixes kept the hex of every id; the stores' migrations
rewrite old ids by swapping the prefix. Turn ids keep ``turn_``: event and evidence ids hash
the turn id, so changing it would change theirs.
"""

from __future__ import annotations

import hashlib
import json
import unicodedata
from functools import lru_cache
from typing import Final

DEFAULT_SCOPE: Final = "default"
"""The scope of stores written before scopes; its entity and property ids hash no scope, so
those stores keep their ids."""
OLD_PREFIXES: Final[dict[str, str]] = {"property": "prop", "fact": "fact"}
"""The prefixes of stores written before the short ids; migrations rewrite them."""
PREFIXES: Final[dict[str, str]] = {
    "session": "ses",
    "turn": "turn",
    "entity": "ent",
    "property": "prp",
    "event": "ev",
    "evidence": "evd",
    "fact": "fct",
}


def upgraded_id(kind: str, value: str) -> str:
    """``value`` with an old prefix (``fact_``/``prop_`` + 32 hex) given today's prefix.

    Ids written before the short prefixes still arrive from old checkpoints and data files;
    upgrading them where models are built keeps them from re-entering a store as duplicates.
    """
    old = OLD_PREFIXES.get(kind)
    if old is not None and len(value) == len(old) + 33 and value.startswith(f"{old}_"):
        return f"{PREFIXES[kind]}_{value[-32:]}"
    return value


def normalize_text(text: str) -> str:
    """NFKC, case-folded, whitespace collapsed: the form names and texts are hashed in."""
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def canonical_json(value: object) -> str:
    """Compact JSON with sorted keys; NaN and infinities are rejected."""
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )


def content_id(kind: str, *parts: object) -> str:
    """``<prefix>_<32 hex>``: the first 128 bits of SHA-256 over the canonical JSON of parts."""
    digest = hashlib.sha256(canonical_json([kind, *parts]).encode("utf-8")).hexdigest()
    return f"{PREFIXES[kind]}_{digest[:32]}"


def session_id(conversation_id: str, seq: int) -> str:
    return content_id("session", conversation_id, seq)


def session_number(name: str) -> int:
    """The ``seq`` a session named ``name`` is stored under (``add(session=...)``, a JSONL
    turn's ``session``): a stable number from the name, so the name finds it again."""
    return int(hashlib.sha256(name.encode("utf-8")).hexdigest()[:7], 16)


def turn_id(session: str, seq: int, speaker: str, text: str) -> str:
    return content_id("turn", session, seq, normalize_text(speaker), normalize_text(text))


def entity_id(entity_type: str, name: str, scope: str = DEFAULT_SCOPE) -> str:
    """Two scopes' "Mom" are two entities: the id hashes the scope (but not the default's)."""
    if scope == DEFAULT_SCOPE:
        return content_id("entity", entity_type, normalize_text(name))
    return content_id("entity", scope, entity_type, normalize_text(name))


@lru_cache(maxsize=4096)
def property_id(name: str, scope: str = DEFAULT_SCOPE) -> str:
    if scope == DEFAULT_SCOPE:
        return content_id("property", name)
    return content_id("property", scope, name)


@lru_cache(maxsize=1024)
def scope_label(scope: str) -> str:
    """The Neo4j label every node of ``scope`` carries: hex, so it never needs quoting."""
    return "Scope_" + hashlib.sha256(scope.encode("utf-8")).hexdigest()[:20]


def event_id(turn: str | None, event_type: str, anchor_datetime: str, location: str | None) -> str:
    return content_id(
        "event",
        turn or "",
        normalize_text(event_type),
        anchor_datetime,
        normalize_text(location or ""),
    )


def evidence_id(turn: str | None, span_start: int | None, span_end: int | None, text: str) -> str:
    return content_id("evidence", turn or "", span_start, span_end, normalize_text(text))


def fact_id(
    event: str | None,
    evidence: str | None,
    entity: str,
    prop: str,
    dtype: str,
    value_json: str,
    t_from: str,
    t_to: str | None,
) -> str:
    """A fact's id hashes its source (event, evidence) and its content, not its confidence."""
    return content_id(
        "fact", event or "", evidence or "", entity, prop, dtype, value_json, t_from, t_to
    )
