// evidence rows -> (:Evidence)-[:FROM_TURN]->(:Turn) (when turn_id is set)
UNWIND $rows AS row
MERGE (v:Evidence {evidence_id: row.evidence_id})
ON CREATE SET v += row
WITH v, row
OPTIONAL MATCH (t:Turn {turn_id: row.turn_id})
FOREACH (turn IN CASE WHEN t IS NULL THEN [] ELSE [t] END |
  MERGE (v)-[:FROM_TURN]->(turn))
