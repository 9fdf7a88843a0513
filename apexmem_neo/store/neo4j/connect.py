"""Open a Neo4j driver for a memory: fail fast and quietly when the server is not there.

The driver's defaults suit a long-lived service: a write that cannot reach the server is
retried for 30 s with a warning per attempt, and every query on a database that lacks a
label or property the query names (any new database, a new scope, a new search namespace)
logs the server's "does not exist" warning. A driver opened here connects with a short
timeout, so the one ``verify_connectivity`` a memory makes at open fails at once when
nothing answers (``unreachable_reason`` gives the line it reports), and it asks the server
not to send unknown-name notifications (GraphQuery asks for them again in its own sessions,
where they become its refusals).
"""

from __future__ import annotations

import logging
import re
from typing import Any, Final

from apexmem_neo.errors import ApexMemError

CONNECTION_TIMEOUT_S: Final = 5.0
"""How long opening one connection may take (the driver's default is 30 s)."""
MAX_TRANSACTION_RETRY_S: Final = 15.0
"""How long a transaction that failed on a transient error (a deadlock between concurrent
writers, a lost connection) is retried (the driver's default is 30 s)."""
CONNECTION_ACQUISITION_TIMEOUT_S: Final = 30.0
"""How long a session waits for a connection from the pool, connecting included."""
QUIET_CLASSIFICATIONS: Final = ("UNRECOGNIZED",)
"""Notification classes the server does not send: unknown labels, types and properties."""
MIN_SEVERITY: Final = "WARNING"
"""Nor informational notes ("IF NOT EXISTS ... has no effect" on every schema statement)."""
_REASON: Final = re.compile(r"\(reason (.+?)\)+$")
ROUTING_FAILED: Final = "Unable to retrieve routing information"


class _DropRoutingFailure(logging.Filter):
    """Drop the pool's error line for a routing table it could not fetch: the exception
    that follows says the same, and the memory reports it as one line."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.getMessage() != ROUTING_FAILED


_ROUTING_FILTER: Final = _DropRoutingFailure()


def open_driver(uri: str, auth: Any) -> Any:
    """A ``neo4j.Driver`` for ``uri`` with the timeouts and notification filter above;
    ``ApexMemError`` for a malformed URI or an unknown scheme."""
    from neo4j import GraphDatabase

    logging.getLogger("neo4j.pool").addFilter(_ROUTING_FILTER)  # the same filter only once
    try:
        return GraphDatabase.driver(
            uri,
            auth=auth,
            connection_timeout=CONNECTION_TIMEOUT_S,
            connection_acquisition_timeout=CONNECTION_ACQUISITION_TIMEOUT_S,
            max_transaction_retry_time=MAX_TRANSACTION_RETRY_S,
            notifications_min_severity=MIN_SEVERITY,
            notifications_disabled_classifications=list(QUIET_CLASSIFICATIONS),
        )
    except ValueError as exc:  # a malformed URI or an unknown scheme
        raise ApexMemError(f"Neo4j URI {uri!r}: {exc}") from None


def unreachable_reason(exc: BaseException) -> str:
    """The reason the driver gives anywhere in ``exc`` (``[Errno 111] Connection refused``),
    else the last line of its message (the driver's text spans lines; the last is the most
    specific)."""
    for error in _chain(exc):
        for line in str(error).splitlines():
            found = _REASON.search(line.strip())
            if found is not None:
                return found.group(1)
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return lines[-1][:200] if lines else type(exc).__name__


def _chain(exc: BaseException) -> list[BaseException]:
    """``exc``, its causes, and the members of any exception group among them."""
    seen: list[BaseException] = []
    todo: list[BaseException] = [exc]
    while todo and len(seen) < 50:
        error = todo.pop(0)
        if any(error is known for known in seen):
            continue
        seen.append(error)
        todo.extend(getattr(error, "exceptions", ()) or ())
        if error.__cause__ is not None:
            todo.append(error.__cause__)
    return seen
