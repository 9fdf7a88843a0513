"""The REST server (``apexmem serve``, the [server] extra): the Memory API over HTTP under
``/v1``, with API keys bound to scopes and ingest jobs that outlive the process.

``create_app`` (``apexmem_neo.server.app``) builds the FastAPI app from a ``Memory`` and a
``ServerStateStore`` (a SQLite file, or the memory's Neo4j database, which several servers
share); the CLI (``apexmem_neo.cli.serve``) reads the settings and runs it.
"""
