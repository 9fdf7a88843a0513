"""A deadline the client keeps on a Neo4j query, whatever the server does.

The server's transaction timeout stops most queries in time, but the driver waits for the
server's answer however late it comes (a busy server, a result still streaming, an expression
the server cannot interrupt). ``call_with_deadline`` runs the query in a daemon thread and
waits at most ``seconds``; past that it calls ``on_expiry`` and raises ``DeadlineExpired``.
The Neo4j backend's ``on_expiry`` is ``terminate_tagged``: every query carries transaction
metadata with a unique tag, and another session finds its transactions with ``SHOW
TRANSACTIONS`` and ends them with ``TERMINATE TRANSACTIONS`` (both run on Community).

The server checks for termination between rows. A single expression that runs long on its own
(a regular expression that backtracks, ``reduce`` over a huge list) keeps its core until it
ends, though the client has its answer: only a static guard can refuse those beforehand.
"""

from __future__ import annotations

import logging
import queue
import threading
import uuid
from collections.abc import Callable
from typing import Any, Final, TypeVar

from neo4j import Driver, Query

T = TypeVar("T")
log = logging.getLogger(__name__)

TAG_KEY: Final = "apexmem_query"
SHOW_TAGGED: Final = (
    "SHOW TRANSACTIONS YIELD transactionId, metaData "
    f"WHERE metaData.{TAG_KEY} = $tag RETURN transactionId"
)
TERMINATE: Final = "TERMINATE TRANSACTIONS $ids"
ADMIN_TIMEOUT_S: Final = 2.0
"""Server timeout of the SHOW / TERMINATE commands themselves."""
WORKER_THREAD: Final = "apexmem-bounded-call"


class DeadlineExpired(Exception):
    """The work did not finish within its deadline (``on_expiry`` has been called)."""


def new_tag() -> dict[str, str]:
    """Transaction metadata naming one query uniquely, for ``terminate_tagged``."""
    return {TAG_KEY: uuid.uuid4().hex}


def call_with_deadline(
    work: Callable[[threading.Event], T], seconds: float, on_expiry: Callable[[], None]
) -> T:
    """``work(cancelled)``'s result, or its exception, if it ends within ``seconds``; else set
    ``cancelled`` (so work not yet started can skip), call ``on_expiry`` and raise
    ``DeadlineExpired``. The thread is a daemon: a stuck call never holds up the caller or
    the interpreter's exit."""
    outcome: queue.SimpleQueue[tuple[bool, Any]] = queue.SimpleQueue()
    cancelled = threading.Event()

    def target() -> None:
        try:
            outcome.put((True, work(cancelled)))
        except BaseException as exc:  # handed to the caller, who raises it
            outcome.put((False, exc))

    threading.Thread(target=target, name=WORKER_THREAD, daemon=True).start()
    try:
        ok, value = outcome.get(timeout=seconds)
    except queue.Empty:
        cancelled.set()
        on_expiry()
        raise DeadlineExpired from None
    if not ok:
        raise value
    result: T = value
    return result


def terminate_tagged(driver: Driver, database: str | None, tag: dict[str, str]) -> int:
    """Terminate the running transactions that carry ``tag``; how many there were."""
    with driver.session(database=database, notifications_min_severity="OFF") as session:
        found = session.run(Query(SHOW_TAGGED, timeout=ADMIN_TIMEOUT_S), tag=tag[TAG_KEY])
        ids = [record["transactionId"] for record in found]
        if ids:
            session.run(Query(TERMINATE, timeout=ADMIN_TIMEOUT_S), ids=ids).consume()
    return len(ids)


def terminate_within(
    driver: Driver, database: str | None, tag: dict[str, str], seconds: float
) -> None:
    """``terminate_tagged`` without waiting more than ``seconds`` for it (an overloaded
    server must not delay the agent's answer); it goes on in the background if need be."""
    try:
        call_with_deadline(lambda _: terminate_tagged(driver, database, tag), seconds, _nothing)
    except Exception as exc:  # the answer is a time-limit error either way
        log.debug("terminating the transaction tagged %s: %r", tag, exc)


def _nothing() -> None:
    return None


__all__ = [
    "TAG_KEY",
    "WORKER_THREAD",
    "DeadlineExpired",
    "call_with_deadline",
    "new_tag",
    "terminate_tagged",
    "terminate_within",
]
