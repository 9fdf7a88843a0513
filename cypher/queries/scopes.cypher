// GraphStore.scopes: every scope holding a node, sorted. Sessions, entities, properties,
// evidence and events suffice: a turn needs its session, a fact its entity and a
// participant its event, each in the same scope.
CALL () {
  MATCH (n:Session) RETURN n.scope AS scope
  UNION
  MATCH (n:Entity) RETURN n.scope AS scope
  UNION
  MATCH (n:Property) RETURN n.scope AS scope
  UNION
  MATCH (n:Evidence) RETURN n.scope AS scope
  UNION
  MATCH (n:Event) RETURN n.scope AS scope
}
RETURN scope
ORDER BY scope
