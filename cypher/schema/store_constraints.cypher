// Uniqueness constraints: one per primary key of the SQLite schema (0001_initial.sql).
// Each also backs the MERGE of the write queries with an index. Idempotent (IF NOT EXISTS).
CREATE CONSTRAINT session_id_unique IF NOT EXISTS
FOR (n:Session) REQUIRE n.session_id IS UNIQUE;
CREATE CONSTRAINT turn_id_unique IF NOT EXISTS
FOR (n:Turn) REQUIRE n.turn_id IS UNIQUE;
CREATE CONSTRAINT entity_id_unique IF NOT EXISTS
FOR (n:Entity) REQUIRE n.entity_id IS UNIQUE;
CREATE CONSTRAINT property_id_unique IF NOT EXISTS
FOR (n:Property) REQUIRE n.property_id IS UNIQUE;
CREATE CONSTRAINT evidence_id_unique IF NOT EXISTS
FOR (n:Evidence) REQUIRE n.evidence_id IS UNIQUE;
CREATE CONSTRAINT event_id_unique IF NOT EXISTS
FOR (n:Event) REQUIRE n.event_id IS UNIQUE;
CREATE CONSTRAINT fact_id_unique IF NOT EXISTS
FOR (n:Fact) REQUIRE n.fact_id IS UNIQUE;
// Turn counters (reserve_turn_seqs): one per session, which the MERGE relies on.
CREATE CONSTRAINT turn_seq_session_unique IF NOT EXISTS
FOR (n:TurnSeq) REQUIRE n.session_id IS UNIQUE;
// event_participants: PRIMARY KEY (event_id, entity_id, role) on the relationship.
CREATE CONSTRAINT participant_key_unique IF NOT EXISTS
FOR ()-[r:PARTICIPANT]-() REQUIRE (r.event_id, r.entity_id, r.role) IS UNIQUE;
