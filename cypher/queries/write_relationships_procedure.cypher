// event_participants rows -> (:Event)-[:PARTICIPANT {event_id, entity_id, role, recorded_at}]->
// (:Entity) through the launcher's procedure (services/neo4j WriteProcedures): a row whose
// key columns the event already has to that entity adds nothing. $type, $start, $end and
// $key_columns come from apexmem_neo/store/neo4j/procedures.py, never from data.
CALL apexmem.createRelationships($type, $start, $end, $rows, $key_columns) YIELD created
RETURN created
