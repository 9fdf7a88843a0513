"""The Neo4j store raises the server's own error behind the driver's generic result failure,
so transient ones are retried and constraint clashes reach the MERGE fallback."""

from __future__ import annotations

from neo4j import exceptions as neo4j_errors

from apexmem_neo.store.neo4j.store import server_error


def failed_result(cause: Exception | None) -> neo4j_errors.ResultFailedError:
    error = neo4j_errors.ResultFailedError(None, "The result has failed.")
    error.__cause__ = cause
    return error


def test_a_failed_result_gives_the_servers_error_which_the_driver_can_retry() -> None:
    deadlock = neo4j_errors.TransientError("deadlock detected")
    error = server_error(failed_result(deadlock))
    assert error is deadlock and isinstance(error, neo4j_errors.Neo4jError)
    assert error.is_retryable()


def test_a_failed_result_without_a_server_error_stays_as_it_is() -> None:
    plain = failed_result(None)
    assert server_error(plain) is plain
    other = failed_result(ValueError("client side"))
    assert server_error(other) is other
