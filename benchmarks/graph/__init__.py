"""Graph store benchmarks: ingest rate, temporal query latency, append-only vs eager accuracy."""
