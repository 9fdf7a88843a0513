// facts rows -> (:Fact)-[:ABOUT]->(:Entity), (:Event)-[:ASSERTS]->(:Fact) and
// (:Fact)-[:SUPPORTED_BY]->(:Evidence) when set (no Property edge: see write_facts.cypher).
// Append-only: ON CREATE SET only, a fact node is never changed once written.
UNWIND $rows AS row
MERGE (f:Fact {fact_id: row.fact_id})
ON CREATE SET f += row, f:$($label)
WITH f, row
MATCH (e:Entity {entity_id: row.entity_id}) WHERE e.scope = f.scope
MERGE (f)-[:ABOUT]->(e)
WITH f, row
OPTIONAL MATCH (ev:Event {event_id: row.event_id}) WHERE ev.scope = f.scope
OPTIONAL MATCH (v:Evidence {evidence_id: row.evidence_id}) WHERE v.scope = f.scope
FOREACH (event IN CASE WHEN ev IS NULL THEN [] ELSE [ev] END |
  MERGE (event)-[:ASSERTS]->(f))
FOREACH (evidence IN CASE WHEN v IS NULL THEN [] ELSE [v] END |
  MERGE (f)-[:SUPPORTED_BY]->(evidence))
