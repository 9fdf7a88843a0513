"""Benchmarks (never part of the test suite)."""
