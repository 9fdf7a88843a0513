# ruff: noqa: E501 - a table of queries reads best one per line
"""SQL queries over the paper's schema that must give the same rows on SQLite and, through the
SQL-compat shim, on Neo4j (the test graph of ``graph_data``; every query stays inside it).

Each case: (id, kind, sql, params, ordered). ``ordered`` says the query's ORDER BY fixes the
row order, so rows are compared as lists; otherwise as multisets.
"""

from __future__ import annotations

from typing import Any, Final, NamedTuple

from tests.unit.tools.graph_data import ALICE, BOB


class Case(NamedTuple):
    id: str
    kind: str
    sql: str
    params: dict[str, Any]
    ordered: bool


MINE: Final = "f.fact_id BETWEEN 'tqx_' AND 'tqx_~'"
"""Keeps a query inside the test graph, by an index range on the id (ids all start tqx_)."""

CASES: Final[list[Case]] = [
    # ---- SELECT ----
    Case("select-star-entity", "SELECT", "SELECT * FROM entities WHERE entity_id = :e", {"e": ALICE}, True),
    Case("select-columns-order", "SELECT",
         "SELECT name, entity_type FROM entities WHERE entity_id BETWEEN 'tqx_' AND 'tqx_~' ORDER BY name", {}, True),
    Case("select-distinct", "SELECT",
         "SELECT DISTINCT entity_type FROM entities WHERE name LIKE '%tqx' ORDER BY 1", {}, True),
    Case("select-in-list", "SELECT",
         "SELECT fact_id, value_json FROM facts WHERE entity_id IN (:a, :b) AND property = 'tqx_city' ORDER BY fact_id",
         {"a": ALICE, "b": BOB}, True),
    Case("select-null-order", "SELECT",
         "SELECT fact_id, t_to FROM facts f WHERE " + MINE + " ORDER BY t_to, fact_id", {}, True),
    Case("select-null-order-desc", "SELECT",
         "SELECT fact_id, t_to FROM facts f WHERE " + MINE + " ORDER BY t_to DESC, fact_id", {}, True),
    Case("select-limit-offset", "SELECT",
         "SELECT fact_id FROM facts f WHERE " + MINE + " ORDER BY fact_id LIMIT 4 OFFSET 3", {}, True),
    Case("select-is-null", "SELECT",
         "SELECT turn_id, speaker FROM turns WHERE listener IS NULL AND turn_id BETWEEN 'tqx_' AND 'tqx_~' ORDER BY turn_id", {}, True),
    Case("select-case-expr", "SELECT",
         "SELECT fact_id, CASE WHEN confidence >= 0.9 THEN 'high' WHEN confidence >= 0.7 THEN 'mid' "
         "ELSE 'low' END AS band FROM facts f WHERE " + MINE + " ORDER BY fact_id", {}, True),
    Case("select-string-functions", "SELECT",
         "SELECT upper(name) AS u, lower(name) AS l, length(name) AS n, substr(name, 1, 3) AS s, "
         "replace(name, ' ', '_') AS r, name || '!' AS x FROM entities WHERE entity_id BETWEEN 'tqx_' AND 'tqx_~' ORDER BY name",
         {}, True),
    Case("select-like-case-insensitive", "SELECT",
         "SELECT name FROM entities WHERE (name LIKE 'ALICE%' OR name LIKE '_ob %') "
         "AND entity_id BETWEEN 'tqx_' AND 'tqx_~'", {}, False),
    Case("select-glob", "SELECT",
         "SELECT text FROM turns WHERE text GLOB '*[0-9]*' AND turn_id BETWEEN 'tqx_' AND 'tqx_~' ORDER BY text", {}, True),
    Case("select-between-coalesce", "SELECT",
         "SELECT fact_id, coalesce(event_id, 'none') AS ev FROM facts f WHERE " + MINE +
         " AND confidence BETWEEN 0.6 AND 0.9 ORDER BY fact_id", {}, True),
    Case("select-arith-cast", "SELECT",
         "SELECT fact_id, CAST(confidence * 100 AS INTEGER) AS pct, round(confidence / 3, 3) AS third "
         "FROM facts f WHERE " + MINE + " ORDER BY fact_id", {}, True),
    Case("select-text-with-pipe-newline", "SELECT",
         "SELECT text FROM turns WHERE speaker = 'World' AND turn_id BETWEEN 'tqx_' AND 'tqx_~'", {}, False),
    # ---- JOIN ----
    Case("join-facts-entities", "JOIN",
         "SELECT e.name, f.property, f.value_json FROM facts f JOIN entities e ON e.entity_id = f.entity_id "
         "WHERE " + MINE + " ORDER BY e.name, f.t_from, f.fact_id", {}, True),
    Case("join-comma", "JOIN",
         "SELECT e.name, f.value_json FROM facts f, entities e WHERE e.entity_id = f.entity_id "
         "AND f.property = 'tqx_city' ORDER BY f.fact_id", {}, True),
    Case("join-using", "JOIN",
         "SELECT fact_id, name FROM facts JOIN entities USING (entity_id) WHERE fact_id BETWEEN 'tqx_' AND 'tqx_~' "
         "ORDER BY fact_id", {}, True),
    Case("join-events-participants", "JOIN",
         "SELECT ev.event_type, en.name, ep.role FROM events ev "
         "JOIN event_participants ep ON ep.event_id = ev.event_id "
         "JOIN entities en ON en.entity_id = ep.entity_id WHERE ev.event_id BETWEEN 'tqx_' AND 'tqx_~' "
         "ORDER BY ev.anchor_datetime, en.name", {}, True),
    Case("join-left-no-facts", "JOIN",
         "SELECT e.name FROM entities e LEFT JOIN facts f ON f.entity_id = e.entity_id "
         "WHERE e.entity_id BETWEEN 'tqx_' AND 'tqx_~' AND f.fact_id IS NULL", {}, False),
    Case("join-left-evidence", "JOIN",
         "SELECT f.fact_id, v.text FROM facts f LEFT JOIN evidence v ON v.evidence_id = f.evidence_id "
         "WHERE " + MINE + " ORDER BY f.fact_id", {}, True),
    Case("join-evidence-turn-session", "JOIN",
         "SELECT f.fact_id, t.speaker, s.seq FROM facts f JOIN evidence v ON v.evidence_id = f.evidence_id "
         "JOIN turns t ON t.turn_id = v.turn_id JOIN sessions s ON s.session_id = t.session_id "
         "WHERE " + MINE + " ORDER BY f.fact_id", {}, True),
    Case("join-self-pairs", "JOIN",
         "SELECT a.fact_id, b.fact_id FROM facts a JOIN facts b ON a.entity_id = b.entity_id "
         "AND a.property = b.property AND a.t_from < b.t_from WHERE a.entity_id = :e ORDER BY 1, 2",
         {"e": ALICE}, True),
    Case("join-properties", "JOIN",
         "SELECT p.name, p.dtype, count(*) AS n FROM facts f JOIN properties p ON p.property_id = f.property_id "
         "WHERE p.name LIKE 'tqx%' AND " + MINE + " GROUP BY p.name, p.dtype ORDER BY p.name", {}, True),
    Case("join-exists", "JOIN",
         "SELECT name FROM entities e WHERE e.entity_id BETWEEN 'tqx_' AND 'tqx_~' AND EXISTS "
         "(SELECT 1 FROM event_participants ep WHERE ep.entity_id = e.entity_id AND ep.role = 'Agent') "
         "ORDER BY name", {}, True),
    Case("join-not-in", "JOIN",
         "SELECT name FROM entities WHERE entity_id BETWEEN 'tqx_' AND 'tqx_~' AND entity_id NOT IN "
         "(SELECT entity_id FROM facts f WHERE " + MINE + ") ORDER BY name", {}, True),
    # ---- AGGREGATE ----
    Case("agg-count-all", "AGGREGATE", "SELECT count(*) FROM facts f WHERE " + MINE, {}, True),
    Case("agg-count-empty", "AGGREGATE",
         "SELECT count(*), sum(confidence), max(t_from) FROM facts WHERE entity_id = 'tqx_nobody'", {}, True),
    Case("agg-group-count", "AGGREGATE",
         "SELECT entity_id, count(*) AS n FROM facts f WHERE " + MINE + " GROUP BY entity_id ORDER BY n DESC, entity_id",
         {}, True),
    Case("agg-group-hidden-key", "AGGREGATE",
         "SELECT count(*) AS n FROM facts f WHERE " + MINE + " GROUP BY property ORDER BY n", {}, True),
    Case("agg-having", "AGGREGATE",
         "SELECT property, count(DISTINCT value_json) AS values_seen FROM facts f WHERE " + MINE +
         " GROUP BY property HAVING count(DISTINCT value_json) > 1 ORDER BY property", {}, True),
    Case("agg-avg-min-max", "AGGREGATE",
         "SELECT entity_id, avg(confidence) AS a, min(confidence) AS lo, max(confidence) AS hi, "
         "sum(confidence) AS s, total(confidence) AS t FROM facts f WHERE " + MINE +
         " GROUP BY entity_id ORDER BY entity_id", {}, True),
    Case("agg-count-nulls", "AGGREGATE",
         "SELECT count(t_to) AS closed, count(*) - count(t_to) AS open FROM facts f WHERE " + MINE, {}, True),
    Case("agg-group-by-ordinal", "AGGREGATE",
         "SELECT dtype, count(*) FROM facts f WHERE " + MINE + " GROUP BY 1 ORDER BY 1", {}, True),
    Case("agg-participants-per-event", "AGGREGATE",
         "SELECT ev.event_type, count(ep.entity_id) AS n FROM events ev LEFT JOIN event_participants ep "
         "ON ep.event_id = ev.event_id WHERE ev.event_id BETWEEN 'tqx_' AND 'tqx_~' GROUP BY ev.event_type ORDER BY ev.event_type",
         {}, True),
    Case("agg-derived-table", "AGGREGATE",
         "SELECT c.n, count(*) AS entities FROM (SELECT entity_id, count(*) AS n FROM facts "
         "WHERE fact_id BETWEEN 'tqx_' AND 'tqx_~' GROUP BY entity_id) AS c GROUP BY c.n ORDER BY c.n", {}, True),
    Case("agg-union", "AGGREGATE",
         "SELECT name AS label FROM entities WHERE entity_id BETWEEN 'tqx_' AND 'tqx_~' UNION "
         "SELECT event_type FROM events WHERE event_id BETWEEN 'tqx_' AND 'tqx_~' ORDER BY label", {}, True),
    # ---- TEMPORAL ----
    Case("temporal-current", "TEMPORAL",
         "SELECT value_json, t_from FROM facts WHERE entity_id = :e AND property = :p "
         "ORDER BY t_from DESC, recorded_at DESC, fact_id DESC LIMIT 1",
         {"e": ALICE, "p": "tqx_city"}, True),
    Case("temporal-as-of", "TEMPORAL",
         "SELECT value_json FROM facts WHERE entity_id = :e AND property = :p AND t_from <= :t "
         "AND (t_to IS NULL OR t_to >= :t) ORDER BY t_from DESC, recorded_at DESC, fact_id DESC LIMIT 1",
         {"e": ALICE, "p": "tqx_city", "t": "2021-03-01T00:00:00"}, True),
    Case("temporal-latest-per-property", "TEMPORAL",
         "SELECT f.entity_id, f.property, f.value_json FROM facts f WHERE " + MINE + " AND f.t_from = "
         "(SELECT max(g.t_from) FROM facts g WHERE g.entity_id = f.entity_id AND g.property = f.property) "
         "ORDER BY f.entity_id, f.property, f.fact_id", {}, True),
    Case("temporal-latest-cte", "TEMPORAL",
         "WITH latest AS (SELECT entity_id, property, max(t_from) AS t FROM facts "
         "WHERE fact_id BETWEEN 'tqx_' AND 'tqx_~' GROUP BY entity_id, property) "
         "SELECT f.entity_id, f.property, f.value_json FROM facts f JOIN latest l "
         "ON l.entity_id = f.entity_id AND l.property = f.property AND l.t = f.t_from "
         "ORDER BY f.entity_id, f.property", {}, True),
    Case("temporal-between", "TEMPORAL",
         "SELECT property, value_json, t_from FROM facts WHERE entity_id = :e "
         "AND t_from BETWEEN '2021-01-01' AND '2022-12-31T23:59:59' ORDER BY t_from, property", {"e": ALICE}, True),
    Case("temporal-change-count", "TEMPORAL",
         "SELECT property, count(*) - 1 AS changes FROM facts WHERE entity_id = :e GROUP BY property "
         "ORDER BY changes DESC, property", {"e": ALICE}, True),
    Case("temporal-when-changed", "TEMPORAL",
         "SELECT f.t_from AS changed_at, f.value_json AS new_value, (SELECT p.value_json FROM facts p "
         "WHERE p.entity_id = f.entity_id AND p.property = f.property AND p.t_from < f.t_from "
         "ORDER BY p.t_from DESC LIMIT 1) AS old_value FROM facts f WHERE f.entity_id = :e "
         "AND f.property = :p ORDER BY f.t_from", {"e": ALICE, "p": "tqx_city"}, True),
    Case("temporal-before-event", "TEMPORAL",
         "SELECT f.value_json FROM facts f, events ev WHERE ev.event_id = 'tqx_ev_job' AND f.entity_id = :e "
         "AND f.property = 'tqx_city' AND f.t_from < ev.anchor_datetime ORDER BY f.t_from DESC LIMIT 1",
         {"e": ALICE}, True),
    Case("temporal-julianday-duration", "TEMPORAL",
         "SELECT fact_id, julianday(t_to) - julianday(t_from) AS days FROM facts f WHERE " + MINE +
         " AND t_to IS NOT NULL ORDER BY fact_id", {}, True),
    Case("temporal-julianday-open", "TEMPORAL",
         "SELECT fact_id, CAST(julianday(coalesce(t_to, :now)) - julianday(t_from) AS INTEGER) AS days "
         "FROM facts f WHERE " + MINE + " ORDER BY days DESC, fact_id", {"now": "2024-01-01T00:00:00"}, True),
    Case("temporal-julianday-values", "TEMPORAL",
         "SELECT event_id, julianday(anchor_datetime) AS jd FROM events WHERE event_id BETWEEN 'tqx_' AND 'tqx_~' ORDER BY jd",
         {}, True),
    Case("temporal-strftime-year", "TEMPORAL",
         "SELECT strftime('%Y', t_from) AS year, count(*) AS n FROM facts f WHERE " + MINE +
         " GROUP BY year ORDER BY year", {}, True),
    Case("temporal-strftime-format", "TEMPORAL",
         "SELECT event_id, strftime('%Y-%m-%d %H:%M:%S|%j|%w|%s', anchor_datetime) AS s FROM events "
         "WHERE event_id BETWEEN 'tqx_' AND 'tqx_~' ORDER BY event_id", {}, True),
    Case("temporal-date-functions", "TEMPORAL",
         "SELECT event_id, date(anchor_datetime) AS d, datetime(anchor_datetime) AS dt, time(anchor_datetime) AS tm, "
         "date(anchor_datetime, '+1 day') AS next_day, date(anchor_datetime, 'start of month') AS month_start, "
         "datetime(anchor_datetime, '-90 minutes') AS earlier, unixepoch(anchor_datetime) AS epoch "
         "FROM events WHERE event_id BETWEEN 'tqx_' AND 'tqx_~' ORDER BY event_id", {}, True),
    Case("temporal-month-filter", "TEMPORAL",
         "SELECT event_id FROM events WHERE strftime('%m', anchor_datetime) = '01' AND event_id BETWEEN 'tqx_' AND 'tqx_~' "
         "ORDER BY event_id", {}, True),
    Case("temporal-days-between-events", "TEMPORAL",
         "SELECT a.event_type, b.event_type, julianday(b.anchor_datetime) - julianday(a.anchor_datetime) AS gap "
         "FROM events a JOIN events b ON b.anchor_datetime > a.anchor_datetime "
         "WHERE a.event_id BETWEEN 'tqx_' AND 'tqx_~' AND b.event_id BETWEEN 'tqx_' AND 'tqx_~' ORDER BY gap, a.event_type, b.event_type",
         {}, True),
    Case("temporal-events-with-participants-in-year", "TEMPORAL",
         "SELECT ev.event_type, date(ev.anchor_datetime) AS day, en.name FROM events ev "
         "JOIN event_participants ep ON ep.event_id = ev.event_id JOIN entities en ON en.entity_id = ep.entity_id "
         "WHERE ev.event_id BETWEEN 'tqx_' AND 'tqx_~' AND strftime('%Y', ev.anchor_datetime) = '2023' ORDER BY day, en.name",
         {}, True),
    Case("temporal-open-facts-at-now", "TEMPORAL",
         "SELECT e.name, f.property, f.value_json FROM facts f JOIN entities e ON e.entity_id = f.entity_id "
         "WHERE " + MINE + " AND f.t_to IS NULL ORDER BY e.name, f.property, f.t_from", {}, True),
    Case("temporal-age-at-event", "TEMPORAL",
         "SELECT ev.event_type, (SELECT f.value_json FROM facts f WHERE f.entity_id = :e AND f.property = 'tqx_age' "
         "AND f.t_from <= ev.anchor_datetime ORDER BY f.t_from DESC LIMIT 1) AS age FROM events ev "
         "WHERE ev.event_id BETWEEN 'tqx_' AND 'tqx_~' ORDER BY ev.anchor_datetime", {"e": ALICE}, True),
    # ---- the kinds again, written with CTEs ----
    Case("cte-reads-a-later-cte", "JOIN",
         "WITH city AS (SELECT entity_id, value_json FROM mine WHERE property = 'tqx_city'), "
         "mine AS (SELECT entity_id, property, value_json FROM facts f WHERE " + MINE + ") "
         "SELECT e.name, c.value_json FROM city c JOIN entities e ON e.entity_id = c.entity_id "
         "ORDER BY e.name, c.value_json", {}, True),
    Case("cte-named-like-a-table", "SELECT",
         "WITH facts AS (SELECT name FROM entities WHERE entity_id BETWEEN 'tqx_' AND 'tqx_~') "
         "SELECT name FROM facts ORDER BY name", {}, True),
    Case("cte-column-list", "AGGREGATE",
         "WITH c(who, n) AS (SELECT entity_id, count(*) FROM facts f WHERE " + MINE + " GROUP BY entity_id) "
         "SELECT who, n FROM c ORDER BY who", {}, True),
    Case("cte-nested-in-from", "AGGREGATE",
         "SELECT n FROM (WITH c AS (SELECT count(*) AS n FROM facts f WHERE " + MINE + ") SELECT n FROM c)", {}, True),
    Case("cte-in-an-in-subquery", "SELECT",
         "SELECT name FROM entities WHERE entity_id IN "
         "(WITH c AS (SELECT entity_id FROM facts f WHERE " + MINE + ") SELECT entity_id FROM c) ORDER BY name", {}, True),
    Case("cte-union-renamed", "TEMPORAL",
         "WITH t(label, at) AS (SELECT event_type, anchor_datetime FROM events WHERE event_id BETWEEN 'tqx_' AND 'tqx_~' "
         "UNION ALL SELECT property, t_from FROM facts f WHERE " + MINE + ") SELECT label, at FROM t ORDER BY at, label", {}, True),
]  # fmt: skip
