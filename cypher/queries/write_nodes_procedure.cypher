// Rows of one node table -> nodes with their relationships, through the launcher's procedure
// (services/neo4j WriteProcedures): only rows whose $key is not stored yet, append-only.
// $label, $key and $links come from apexmem_neo/store/neo4j/procedures.py, never from data.
CALL apexmem.createNodes($label, $key, $rows, $links) YIELD created
RETURN created
