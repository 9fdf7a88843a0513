// facts rows not yet stored -> (:Fact)-[:ABOUT]->(:Entity), -[:OF_PROPERTY]->(:Property),
// (:Event)-[:ASSERTS]->(:Fact) and (:Fact)-[:SUPPORTED_BY]->(:Evidence) when set.
// The store passes only rows whose fact_id write_facts_existing did not find, each once, so
// CREATE replaces MERGE (no relationship check against dense Entity / Property nodes); a
// concurrent writer creating the same fact trips the fact_id constraint and the store re-runs
// the batch with write_facts_merge. Append-only: an existing fact node is never touched.
// The properties are spelled out (the facts columns; a null one is not stored): with a
// literal map the planner sees no read/write conflict and needs no Eager buffering.
UNWIND $rows AS row
MATCH (e:Entity {entity_id: row.entity_id})
MATCH (p:Property {property_id: row.property_id})
CREATE (f:Fact {
  fact_id: row.fact_id, entity_id: row.entity_id, property_id: row.property_id,
  property: row.property, value_json: row.value_json, dtype: row.dtype,
  t_from: row.t_from, t_to: row.t_to, confidence: row.confidence,
  event_id: row.event_id, evidence_id: row.evidence_id, recorded_at: row.recorded_at
})
CREATE (f)-[:ABOUT]->(e)
CREATE (f)-[:OF_PROPERTY]->(p)
WITH f, row
OPTIONAL MATCH (ev:Event {event_id: row.event_id})
OPTIONAL MATCH (v:Evidence {evidence_id: row.evidence_id})
FOREACH (event IN CASE WHEN ev IS NULL THEN [] ELSE [ev] END |
  CREATE (event)-[:ASSERTS]->(f))
FOREACH (evidence IN CASE WHEN v IS NULL THEN [] ELSE [v] END |
  CREATE (f)-[:SUPPORTED_BY]->(evidence))
