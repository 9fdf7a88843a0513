// events rows -> (:Event), -[:FROM_TURN]->(:Turn) and -[:SUPPORTED_BY]->(:Evidence) when set
UNWIND $rows AS row
MERGE (ev:Event {event_id: row.event_id})
ON CREATE SET ev += row, ev:$($label)
WITH ev, row
OPTIONAL MATCH (t:Turn {turn_id: row.turn_id}) WHERE t.scope = ev.scope
OPTIONAL MATCH (v:Evidence {evidence_id: row.evidence_id}) WHERE v.scope = ev.scope
FOREACH (turn IN CASE WHEN t IS NULL THEN [] ELSE [t] END |
  MERGE (ev)-[:FROM_TURN]->(turn))
FOREACH (evidence IN CASE WHEN v IS NULL THEN [] ELSE [v] END |
  MERGE (ev)-[:SUPPORTED_BY]->(evidence))
