// event_participants rows of events this transaction just created (write_events): such an
// event has no PARTICIPANT yet, so CREATE replaces MERGE. One
// relationship per (event_id, entity_id, role) row, carrying the row's four columns; the
// store dedupes $rows. A literal map (not SET r = row) keeps the plan free of Eager.
UNWIND $rows AS row
MATCH (ev:Event {event_id: row.event_id}) WHERE ev.scope = row.scope
MATCH (en:Entity {entity_id: row.entity_id}) WHERE en.scope = row.scope
CREATE (ev)-[:PARTICIPANT {
  event_id: row.event_id, entity_id: row.entity_id, role: row.role,
  recorded_at: row.recorded_at, scope: row.scope
}]->(en)
