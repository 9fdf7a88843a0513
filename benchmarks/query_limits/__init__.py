"""GraphQuery's runtime limits under hostile queries: time to the answer and until the server
is idle again, on Neo4j and SQLite, with no static guard in front."""
