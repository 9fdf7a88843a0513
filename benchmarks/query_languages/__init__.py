"""SQL vs Cypher: the agent's GraphQuery in SQL (SQLite, Neo4j shim) and Cypher, and
neo4j-graphrag's Text2CypherRetriever, on one gold graph and one question set (issue 7)."""
