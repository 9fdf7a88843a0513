// Relationships of events write_events just created: -[:FROM_TURN]->(:Turn) and
// -[:SUPPORTED_BY]->(:Evidence) when set. The store passes only rows that set one of them.
UNWIND $rows AS row
MATCH (ev:Event {event_id: row.event_id})
OPTIONAL MATCH (t:Turn {turn_id: row.turn_id}) WHERE t.scope = ev.scope
OPTIONAL MATCH (v:Evidence {evidence_id: row.evidence_id}) WHERE v.scope = ev.scope
FOREACH (turn IN CASE WHEN t IS NULL THEN [] ELSE [t] END |
  CREATE (ev)-[:FROM_TURN]->(turn))
FOREACH (evidence IN CASE WHEN v IS NULL THEN [] ELSE [v] END |
  CREATE (ev)-[:SUPPORTED_BY]->(evidence))
