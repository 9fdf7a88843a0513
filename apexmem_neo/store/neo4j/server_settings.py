"""Server settings a memory's Neo4j should have, checked when a memory opens.

GraphQuery refuses LOAD CSV and unlisted procedures itself; these settings are the server's
own second wall behind that guard. A server that lacks one gets a warning line naming the
setting and the value to give it; a server that will not show its settings (a user without
the privilege, a managed service) is not warned about.
"""

from __future__ import annotations

import logging
from typing import Final

from neo4j import Driver, Query
from neo4j import exceptions as neo4j_errors

log = logging.getLogger("apexmem_neo")

RECOMMENDED: Final[dict[str, tuple[str, str]]] = {
    "dbms.security.allow_csv_import_from_file_urls": (
        "false",
        "LOAD CSV could read the server's files",
    ),
    "dbms.security.procedures.unrestricted": ("", "procedures could bypass security"),
}
"""Setting -> (the value it should have, what the other value allows)."""
SHOW_SETTINGS: Final = "SHOW SETTINGS YIELD name, value WHERE name IN $names RETURN name, value"


def settings_warnings(driver: Driver, database: str | None = None) -> list[str]:
    """One line per recommended setting the server has otherwise (none if it cannot say)."""
    try:
        with driver.session(database=database) as session:
            query = Query(SHOW_SETTINGS, timeout=5.0)
            found = {
                r["name"]: str(r["value"]) for r in session.run(query, names=list(RECOMMENDED))
            }
    except (neo4j_errors.Neo4jError, neo4j_errors.DriverError):
        return []
    lines = []
    for name, (wanted, risk) in RECOMMENDED.items():
        value = found.get(name)
        if value is not None and value.strip().lower() != wanted:
            lines.append(
                f"Neo4j setting {name}={value}: {risk}; set {name}={wanted or '(empty)'} "
                "in neo4j.conf (see README, 'Neo4j settings')"
            )
    return lines


def warn_about_settings(driver: Driver, database: str | None = None) -> None:
    """Log each of ``settings_warnings`` as one warning line."""
    for line in settings_warnings(driver, database):
        log.warning(line)


__all__ = ["RECOMMENDED", "settings_warnings", "warn_about_settings"]
