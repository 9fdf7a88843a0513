// Replace search documents by doc_id (idempotent) and link each to its graph node, if present.
UNWIND $rows AS row
MERGE (d:{{label}} {doc_id: row.doc_id})
// props carries the vectors under the document's kind: <kind>_text_vector, <kind>_context_vector.
SET d = row.props, d.doc_id = row.doc_id
WITH d, row
CALL (d, row) {
  OPTIONAL MATCH (t:Turn {turn_id: row.graph_id}) WHERE row.kind = 'turn'
  OPTIONAL MATCH (e:Entity {entity_id: row.graph_id}) WHERE row.kind = 'entity'
  OPTIONAL MATCH (p:Property {property_id: row.graph_id}) WHERE row.kind = 'property'
  OPTIONAL MATCH (v:Event {event_id: row.graph_id}) WHERE row.kind = 'event'
  OPTIONAL MATCH (x:Evidence {evidence_id: row.graph_id}) WHERE row.kind = 'event'
  WITH d, coalesce(t, e, p, v, x) AS g WHERE g IS NOT NULL
  MERGE (d)-[:INDEXES]->(g)
}
RETURN count(d) AS written
