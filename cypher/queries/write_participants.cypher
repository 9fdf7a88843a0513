// event_participants rows -> (:Event)-[:PARTICIPANT {event_id, entity_id, role, recorded_at}]->(:Entity)
// One relationship per row; its properties are the row's columns (key: event_id, entity_id, role).
UNWIND $rows AS row
MATCH (ev:Event {event_id: row.event_id}) WHERE ev.scope = row.scope
MATCH (en:Entity {entity_id: row.entity_id}) WHERE en.scope = row.scope
MERGE (ev)-[r:PARTICIPANT {event_id: row.event_id, entity_id: row.entity_id, role: row.role}]->(en)
ON CREATE SET r.recorded_at = row.recorded_at, r.scope = row.scope
