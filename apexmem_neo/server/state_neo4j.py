"""``Neo4jServerState``: the REST server's keys and jobs as nodes in the memory's own Neo4j
database (``:ApexServerKey``, ``:ApexIngestJob``), so every server on that database, on any
machine, shares them.

The nodes carry no scope label, so no scope's reads see them (GraphQuery, SchemaViewer and
export go through the scope label). Keys are the database's; jobs belong to a search
namespace (``APEXMEM_INDEX_NAME``), since a job's turns are indexed where the server that runs
it indexes, so a server takes up only its own namespace's jobs. Leases count on the database's
clock (``timestamp()``), so servers need not agree on the time. Queries are the
``cypher/queries/server_*.cypher`` files.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Final

from neo4j import Driver, Query, Record, RoutingControl
from neo4j import exceptions as neo4j_errors

from apexmem_neo.errors import ServiceUnavailableError, StoreError
from apexmem_neo.server.records import Claim, Job, JobWork, StoredKey, claim_from, job_from
from apexmem_neo.server.state import ServerStateStore
from apexmem_neo.settings import DEFAULT_INDEX_NAME
from apexmem_neo.store.neo4j import cypher_files
from apexmem_neo.store.neo4j.store import run_schema_statement

SCHEMA: Final = ("server_state",)
CLAIM_CANDIDATES: Final = 5
"""How many claimable jobs one poll tries, oldest first, when other servers take some."""


class Neo4jServerState(ServerStateStore):
    """Keys and jobs in the Neo4j database ``database`` (None: the server's default) through
    the caller's ``driver``; ``namespace`` is the search namespace whose jobs this server runs,
    ``uri`` names the server in errors."""

    def __init__(
        self,
        driver: Driver,
        database: str | None = None,
        *,
        namespace: str = DEFAULT_INDEX_NAME,
        uri: str = "neo4j",
    ) -> None:
        self.driver = driver
        self.database = database
        self.namespace = namespace
        self.uri = uri

    def create(self) -> Neo4jServerState:
        """The constraints and index of ``cypher/schema/server_state.cypher``."""
        with self._connection():
            for statement in cypher_files.schema_statements(SCHEMA):
                run_schema_statement(self.driver, self.database, statement)
        return self

    @contextmanager
    def _connection(self) -> Iterator[None]:
        """A lost or refused connection as ``ServiceUnavailableError``, another server error
        as ``StoreError``: one line each."""
        try:
            yield
        except (neo4j_errors.ServiceUnavailable, neo4j_errors.SessionExpired) as exc:
            raise ServiceUnavailableError("neo4j", self.uri, f"server state: {exc}") from exc
        except neo4j_errors.Neo4jError as exc:
            raise StoreError(f"Neo4j server state: {exc.message}") from exc

    def _run(self, name: str, read: bool = False, **params: Any) -> list[Record]:
        routing = RoutingControl.READ if read else RoutingControl.WRITE
        with self._connection():
            records, _, _ = self.driver.execute_query(
                Query(cypher_files.query(name)), params, database_=self.database,
                routing_=routing,
            )  # fmt: skip
        return records

    # ---- keys ----

    def add_key(self, key: StoredKey) -> None:
        self._run("server_key_add", key=key.model_dump(), made_ns=time.time_ns())

    def get_key(self, key_id: str) -> StoredKey | None:
        found = self._run("server_key_get", read=True, key_id=key_id)
        return StoredKey.model_validate(found[0]["key"]) if found else None

    def list_keys(self) -> list[StoredKey]:
        """Every key, revoked ones included, in the order they were made."""
        found = self._run("server_key_list", read=True)
        return [StoredKey.model_validate(record["key"]) for record in found]

    def revoke_key(self, key_id: str, at: str) -> StoredKey | None:
        found = self._run("server_key_revoke", key_id=key_id, at=at)
        return StoredKey.model_validate(found[0]["key"]) if found else None

    # ---- jobs ----

    def add_job(
        self, job: Job, work: JobWork, owner: str | None = None, lease_s: float = 0.0
    ) -> None:
        """Queue ``job`` with its work; with ``owner``, held for that server for ``lease_s``."""
        node = job.model_dump(exclude={"summary", "finished_at", "error"})
        node.update(namespace=self.namespace, owner=owner, work=work.model_dump_json())
        self._run("server_job_add", job=node, lease_ms=_ms(lease_s) if owner else None)

    def get_job(self, job_id: str) -> Job | None:
        found = self._run("server_job_get", read=True, job_id=job_id)
        return job_from(found[0]["job"]) if found else None

    def claim_job(
        self, owner: str, lease_s: float, job_id: str | None = None, extract: bool = True
    ) -> Claim | None:
        """Take up the oldest job of this namespace no live server holds (``job_id``: that
        one only; ``extract`` False: only one without extraction): a read for candidates,
        then a locked claim of each until one holds."""
        if job_id is not None:
            candidates = [job_id]
        else:
            found = self._run(
                "server_job_claimable", read=True, namespace=self.namespace, owner=owner,
                extract=extract, limit=CLAIM_CANDIDATES,
            )  # fmt: skip
            candidates = [record["job_id"] for record in found]
        for candidate in candidates:
            claimed = self._run("server_job_claim", job_id=candidate, owner=owner,
                                extract=extract, lease_ms=_ms(lease_s))  # fmt: skip
            if claimed:
                return claim_from(claimed[0]["job"])
        return None

    def _update_held(
        self, job_id: str, owner: str, values: dict[str, str | None], lease_s: float | None
    ) -> bool:
        lease = None if lease_s is None else _ms(lease_s)
        found = self._run(
            "server_job_update", job_id=job_id, owner=owner, values=values, lease_ms=lease
        )
        return bool(found and found[0]["held"] == 1)


def _ms(seconds: float) -> int:
    return int(seconds * 1000)
