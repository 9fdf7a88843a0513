// How many of $names (the launcher's write procedures, services/neo4j WriteProcedures) the
// server has: the store writes through them when it has all, else through the write_* files.
SHOW PROCEDURES YIELD name
WHERE name IN $names
RETURN count(*) AS present
