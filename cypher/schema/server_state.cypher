// The REST server's own state (apexmem_neo/server/state_neo4j.py): API keys and ingest jobs.
// These nodes carry no scope label, so no scope's reads (GraphQuery, SchemaViewer, export)
// see them. Idempotent (IF NOT EXISTS).
CREATE CONSTRAINT apex_server_key_id IF NOT EXISTS
FOR (n:ApexServerKey) REQUIRE n.key_id IS UNIQUE;
CREATE CONSTRAINT apex_ingest_job_id IF NOT EXISTS
FOR (n:ApexIngestJob) REQUIRE n.job_id IS UNIQUE;
// The poll for jobs to take up: the unfinished jobs of one search namespace.
CREATE INDEX apex_ingest_job_state IF NOT EXISTS
FOR (n:ApexIngestJob) ON (n.namespace, n.state);
