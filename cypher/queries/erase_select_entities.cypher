// Erasure of entities ($entities) of one scope: the entities, their facts and participant
// relationships, and the properties no remaining fact uses.
CALL () {
  UNWIND $entities AS id
  MATCH (en:Entity {entity_id: id}) WHERE en.scope = $scope
  RETURN collect(en.entity_id) AS entity
}
CALL (entity) {
  UNWIND entity AS id
  MATCH (f:Fact)-[:ABOUT]->(:Entity {entity_id: id})
  RETURN collect(f.fact_id) AS fact
}
CALL (fact) {
  MATCH (p:Property:$($label))
  WHERE NOT EXISTS {
    MATCH (f:Fact:$($label)) WHERE f.property_id = p.property_id AND NOT f.fact_id IN fact
  }
  RETURN collect(p.property_id) AS property
}
RETURN [] AS session, [] AS turn, [] AS evidence, [] AS event, fact, entity, property, [] AS touched
