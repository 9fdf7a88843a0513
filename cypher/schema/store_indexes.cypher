// Range indexes mirroring the SQLite indexes. Idempotent (IF NOT EXISTS).
// SQLite's facts_event and event_participants_entity have no twin here: the relationships
// (Event)-[:ASSERTS]->(Fact) and (Event)-[:PARTICIPANT]->(Entity) serve those lookups, and
// every index on Fact costs ingest time.
// facts_timeline: current / as_of / history / changes / before / known_as_of seek on
// (entity_id, property) and range on t_from.
CREATE INDEX fact_timeline IF NOT EXISTS
FOR (n:Fact) ON (n.entity_id, n.property, n.t_from);
// facts_between: every property of one entity, range on t_from.
CREATE INDEX fact_entity_time IF NOT EXISTS
FOR (n:Fact) ON (n.entity_id, n.t_from);
CREATE INDEX entity_norm_name IF NOT EXISTS
FOR (n:Entity) ON (n.norm_name);
CREATE INDEX property_name IF NOT EXISTS
FOR (n:Property) ON (n.name);
CREATE INDEX turn_session_seq IF NOT EXISTS
FOR (n:Turn) ON (n.session_id, n.seq);
CREATE INDEX evidence_turn IF NOT EXISTS
FOR (n:Evidence) ON (n.turn_id);
CREATE INDEX event_anchor IF NOT EXISTS
FOR (n:Event) ON (n.anchor_datetime);
CREATE INDEX event_turn IF NOT EXISTS
FOR (n:Event) ON (n.turn_id);
// Erasure records by scope: written only by erase, so free to keep; it makes `scope` a
// property key the database knows from the start (a query naming an unknown key draws a
// warning). Not on a label the write path finds by id with a scope check (Session, Turn,
// ...): given a scope index there, the planner may seek every node of the scope and filter
// by id instead of seeking the id's unique index (schema/store_retired.cypher).
CREATE INDEX erasure_scope IF NOT EXISTS
FOR (n:Erasure) ON (n.scope);
