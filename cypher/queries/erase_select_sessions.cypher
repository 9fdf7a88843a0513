// Erasure of sessions ($sessions) of one scope: their turns, the evidence and events of those
// turns, the facts those assert, and the entities and properties nothing else uses after.
CALL () {
  UNWIND $sessions AS sid
  MATCH (s:Session {session_id: sid}) WHERE s.scope = $scope
  RETURN collect(s.session_id) AS session
}
CALL () {
  UNWIND $sessions AS sid
  MATCH (t:Turn {session_id: sid}) WHERE t.scope = $scope
  RETURN collect(t.turn_id) AS turn
}
CALL (turn) {
  UNWIND turn AS tid
  MATCH (v:Evidence {turn_id: tid}) WHERE v.scope = $scope
  RETURN collect(v.evidence_id) AS evidence
}
CALL (turn, evidence) {
  MATCH (e:Event:$($label))
  WHERE e.turn_id IN turn OR e.evidence_id IN evidence
  RETURN collect(e.event_id) AS event
}
CALL (event, evidence) {
  MATCH (f:Fact:$($label))
  WHERE f.event_id IN event OR f.evidence_id IN evidence
  RETURN collect(f.fact_id) AS fact, collect(DISTINCT f.entity_id) AS fact_entities
}
CALL (event) {
  UNWIND event AS eid
  MATCH (:Event {event_id: eid})-[:PARTICIPANT]->(en:Entity)
  RETURN collect(DISTINCT en.entity_id) AS part_entities
}
WITH session, turn, evidence, event, fact,
  fact_entities + [x IN part_entities WHERE NOT x IN fact_entities] AS touched
CALL (touched, fact, event) {
  UNWIND touched AS id
  MATCH (en:Entity {entity_id: id}) WHERE en.scope = $scope
    AND NOT EXISTS { MATCH (f:Fact)-[:ABOUT]->(en) WHERE NOT f.fact_id IN fact }
    AND NOT EXISTS { MATCH (ev:Event)-[:PARTICIPANT]->(en) WHERE NOT ev.event_id IN event }
  RETURN collect(en.entity_id) AS entity
}
CALL (fact) {
  MATCH (p:Property:$($label))
  WHERE NOT EXISTS {
    MATCH (f:Fact:$($label)) WHERE f.property_id = p.property_id AND NOT f.fact_id IN fact
  }
  RETURN collect(p.property_id) AS property
}
RETURN session, turn, evidence, event, fact, entity, property, touched
