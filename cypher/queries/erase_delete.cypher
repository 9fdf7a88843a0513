// Erasure: DETACH DELETE the nodes whose ids $ids lists per kind, each only if it carries the
// scope (relationships, PARTICIPANT included, go with their nodes); the counts per table.
CALL () { UNWIND $ids.event AS id MATCH (:Event {event_id: id})-[r:PARTICIPANT]->()
  RETURN count(r) AS by_event }
CALL () { UNWIND $ids.entity AS id MATCH (ev:Event)-[r:PARTICIPANT]->(:Entity {entity_id: id})
  WHERE NOT ev.event_id IN $ids.event RETURN count(r) AS by_entity }
CALL () { UNWIND $ids.fact AS id MATCH (n:Fact {fact_id: id}) WHERE n.scope = $scope
  DETACH DELETE n RETURN count(*) AS facts }
CALL () { UNWIND $ids.event AS id MATCH (n:Event {event_id: id}) WHERE n.scope = $scope
  DETACH DELETE n RETURN count(*) AS events }
CALL () { UNWIND $ids.evidence AS id MATCH (n:Evidence {evidence_id: id}) WHERE n.scope = $scope
  DETACH DELETE n RETURN count(*) AS evidence }
CALL () { UNWIND $ids.turn AS id MATCH (n:Turn {turn_id: id}) WHERE n.scope = $scope
  DETACH DELETE n RETURN count(*) AS turns }
CALL () { UNWIND $ids.session AS id MATCH (n:Session {session_id: id}) WHERE n.scope = $scope
  DETACH DELETE n RETURN count(*) AS sessions }
CALL () { UNWIND $ids.entity AS id MATCH (n:Entity {entity_id: id}) WHERE n.scope = $scope
  DETACH DELETE n RETURN count(*) AS entities }
CALL () { UNWIND $ids.property AS id MATCH (n:Property {property_id: id}) WHERE n.scope = $scope
  DETACH DELETE n RETURN count(*) AS properties }
// the erased sessions' turn counters (numbers only): a session added again starts at 0
CALL () { UNWIND $ids.session AS id MATCH (n:TurnSeq {session_id: id}) DELETE n }
RETURN facts, by_event + by_entity AS event_participants, events, evidence, turns, sessions,
  entities, properties
