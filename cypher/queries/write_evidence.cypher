// evidence rows -> (:Evidence)-[:FROM_TURN]->(:Turn) (when turn_id is set)
UNWIND $rows AS row
MERGE (v:Evidence {evidence_id: row.evidence_id})
ON CREATE SET v += row, v:$($label)
WITH v, row
OPTIONAL MATCH (t:Turn {turn_id: row.turn_id}) WHERE t.scope = v.scope
FOREACH (turn IN CASE WHEN t IS NULL THEN [] ELSE [t] END |
  MERGE (v)-[:FROM_TURN]->(turn))
