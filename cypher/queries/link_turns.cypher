// (:Turn)-[:NEXT]->(:Turn): a chain per session in (seq, turn_id) order, derived from the
// columns. Run after write_turns over the same rows: each written turn links from its
// predecessor and to its successor, and an edge that now skips over it is replaced.
UNWIND $rows AS row
MATCH (t:Turn {turn_id: row.turn_id})
CALL (t) {
  MATCH (p:Turn {session_id: t.session_id})
  WHERE p.scope = t.scope AND p.seq <= t.seq AND (p.seq < t.seq OR p.turn_id < t.turn_id)
  WITH p ORDER BY p.seq DESC, p.turn_id DESC LIMIT 1
  OPTIONAL MATCH (p)-[skip:NEXT]->(other) WHERE other <> t
  DELETE skip
  MERGE (p)-[:NEXT]->(t)
}
CALL (t) {
  MATCH (s:Turn {session_id: t.session_id})
  WHERE s.scope = t.scope AND s.seq >= t.seq AND (s.seq > t.seq OR s.turn_id > t.turn_id)
  WITH s ORDER BY s.seq, s.turn_id LIMIT 1
  OPTIONAL MATCH (t)-[skip:NEXT]->(other) WHERE other <> s
  DELETE skip
  MERGE (t)-[:NEXT]->(s)
}
