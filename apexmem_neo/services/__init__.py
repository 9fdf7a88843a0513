"""Local services (Neo4j, Elasticsearch, llama-server) started without Docker."""
