// facts rows not yet stored -> (:Fact)-[:ABOUT]->(:Entity), (:Event)-[:ASSERTS]->(:Fact) and
// (:Fact)-[:SUPPORTED_BY]->(:Evidence) when set. No relationship to the Property node: the
// fact carries property_id and property (its batch writes the Property first), and an edge
// per fact into ~100 shared Property nodes cost 5-11% of ingest
// (benchmarks.graph.write_ab --variant property_edge, 2026-12-03).
// $rows holds groups {entity_id, event_id, evidence_id, rows: [facts rows]}: the facts one
// event asserts about one entity, so the Entity, Event and Evidence are looked up once per
// group. The store passes each fact once and does not look for stored ids first (a fact id
// hashes its turn and content), so CREATE replaces MERGE (no relationship check against a
// dense Entity node); a stored fact_id, or a concurrent writer creating the same fact,
// trips the fact_id constraint and the store re-runs the batch with write_facts_merge. Append-only: an existing fact node is
// never touched. The properties are spelled out (the facts columns; a null one is not
// stored): with a literal map the planner sees no read/write conflict and needs no Eager.
UNWIND $rows AS g
MATCH (e:Entity {entity_id: g.entity_id}) WHERE e.scope = $scope
OPTIONAL MATCH (ev:Event {event_id: g.event_id}) WHERE ev.scope = $scope
OPTIONAL MATCH (v:Evidence {evidence_id: g.evidence_id}) WHERE v.scope = $scope
WITH e, g,
  CASE WHEN ev IS NULL THEN [] ELSE [ev] END AS asserting_events,
  CASE WHEN v IS NULL THEN [] ELSE [v] END AS supporting_evidence
UNWIND g.rows AS row
CREATE (f:Fact:$($label) {
  fact_id: row.fact_id, entity_id: row.entity_id, property_id: row.property_id,
  property: row.property, value_json: row.value_json, dtype: row.dtype,
  t_from: row.t_from, t_to: row.t_to, confidence: row.confidence,
  event_id: row.event_id, evidence_id: row.evidence_id, recorded_at: row.recorded_at,
  scope: row.scope
})
CREATE (f)-[:ABOUT]->(e)
FOREACH (event IN asserting_events | CREATE (event)-[:ASSERTS]->(f))
FOREACH (evidence IN supporting_evidence | CREATE (f)-[:SUPPORTED_BY]->(evidence))
