"""SQL as the agent writes it: the guard that admits exactly one read-only SELECT over the
paper's tables (``guard.check_sql``), shared by the SQLite backend and the shim."""
