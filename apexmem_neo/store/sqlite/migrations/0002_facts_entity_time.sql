-- 0002: facts_between scans one entity's facts by start time.
CREATE INDEX facts_entity_time ON facts (entity_id, t_from);
