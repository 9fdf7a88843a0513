-- 0003: cheaper fact ingest. facts_event indexed a random content hash, so every batch
-- dirtied pages all over it (about a quarter of a fact insert's cost at 300k facts, growing
-- with the table) and no store query reads it: the temporal queries use facts_timeline and
-- facts_entity_time, get_event reads events. A SQL query asking for an event's facts now
-- scans facts; the Neo4j store has no such index either (it traverses (Event)-[:ASSERTS]).
DROP INDEX IF EXISTS facts_event;
