"""Materialise the eager-overwrite memory (Mem0/MIRIX style) from an append-only SQLite store.

Write-time consolidation keeps one fact per (entity, property): the newest by its own time,
(t_from, recorded_at, fact_id), as ``apexmem_neo.store.eager.EagerOverwriteStore`` reads it
(recorded_at alone ties within a second of one ingest). Here the loss is made physical so
that the same agent and tools run on both memories: the copy holds the surviving facts only,
and forgets the words that asserted only overwritten facts (their evidence, events and
turns), since an overwriting memory keeps no transcript of what it replaced. Turns that
asserted no fact at all are kept in both memories.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from apexmem_neo.store.sqlite import SQLiteGraphStore

SURVIVORS = """
CREATE TEMP TABLE survivors AS
SELECT fact_id FROM (
  SELECT fact_id, ROW_NUMBER() OVER (
    PARTITION BY entity_id, property
    ORDER BY t_from DESC, recorded_at DESC, fact_id DESC) AS rank
  FROM src.facts) WHERE rank = 1
"""
DROPPED_EVIDENCE = """
CREATE TEMP TABLE dropped_evidence AS
SELECT DISTINCT evidence_id FROM src.facts
WHERE fact_id NOT IN (SELECT fact_id FROM survivors) AND evidence_id IS NOT NULL
  AND evidence_id NOT IN (SELECT f.evidence_id FROM src.facts f
                          JOIN survivors s ON s.fact_id = f.fact_id
                          WHERE f.evidence_id IS NOT NULL)
"""
DROPPED_TURNS = """
CREATE TEMP TABLE dropped_turns AS
SELECT DISTINCT turn_id FROM src.evidence
WHERE evidence_id IN (SELECT evidence_id FROM dropped_evidence) AND turn_id IS NOT NULL
  AND turn_id NOT IN (SELECT turn_id FROM src.evidence
                      WHERE evidence_id NOT IN (SELECT evidence_id FROM dropped_evidence)
                        AND turn_id IS NOT NULL)
"""
COPIES = (
    ("sessions", "1"),
    ("turns", "turn_id NOT IN (SELECT turn_id FROM dropped_turns)"),
    ("entities", "1"),
    ("properties", "1"),
    ("evidence", "evidence_id NOT IN (SELECT evidence_id FROM dropped_evidence)"),
    (
        "events",
        "(evidence_id IS NULL OR evidence_id NOT IN (SELECT evidence_id FROM dropped_evidence))"
        " AND (turn_id IS NULL OR turn_id NOT IN (SELECT turn_id FROM dropped_turns))",
    ),
    ("event_participants", "event_id IN (SELECT event_id FROM main.events)"),
    (
        "facts",
        "fact_id IN (SELECT fact_id FROM survivors)"
        " AND (event_id IS NULL OR event_id IN (SELECT event_id FROM main.events))",
    ),
)


def materialise_overwrite(source: Path, target: Path) -> dict[str, int]:
    """Write the overwrite memory of ``source`` into a fresh ``target``; returns row counts
    (facts kept and dropped, turns dropped)."""
    if target.exists():
        target.unlink()
    store = SQLiteGraphStore(target)
    store.init_schema()
    store.close()
    conn = sqlite3.connect(target)
    try:
        conn.execute("ATTACH DATABASE ? AS src", (str(source),))
        for sql in (SURVIVORS, DROPPED_EVIDENCE, DROPPED_TURNS):
            conn.execute(sql)
        for table, where in COPIES:
            conn.execute(f"INSERT INTO main.{table} SELECT * FROM src.{table} WHERE {where}")
        conn.commit()
        counts = {
            "facts_total": conn.execute("SELECT COUNT(*) FROM src.facts").fetchone()[0],
            "facts_kept": conn.execute("SELECT COUNT(*) FROM main.facts").fetchone()[0],
            "turns_dropped": conn.execute("SELECT COUNT(*) FROM dropped_turns").fetchone()[0],
        }
    finally:
        conn.close()
    counts["facts_overwritten"] = counts["facts_total"] - counts["facts_kept"]
    return counts
