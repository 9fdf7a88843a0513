"""Agent benchmarks: fast path vs ReAct on a toy temporal memory."""
