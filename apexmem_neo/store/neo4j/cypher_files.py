"""Named, parameterised Cypher files: the only Cypher the Neo4j backend runs.

Files live in ``cypher/schema/<name>.cypher`` (statements separated by ``;``; the store
applies ``STORE_SCHEMA``, then ``STORE_RETIRED``) and ``cypher/queries/<name>.cypher`` (one
statement each). An installed wheel carries them as ``apexmem_neo/cypher`` (hatch
force-include); a source checkout has them at the repository root. The package copy wins.

Query text is never built from data: values travel as ``$parameters``, and every label and
relationship type a file names must be in ``LABELS`` / ``RELATIONSHIP_TYPES``, checked when
the file is loaded.
"""

from __future__ import annotations

import re
from functools import cache
from importlib import resources
from importlib.abc import Traversable
from pathlib import Path
from typing import Final

from apexmem_neo.errors import CypherFileError as CypherFileError

LABELS: Final[frozenset[str]] = frozenset(
    {"Session", "Turn", "Entity", "Property", "Evidence", "Event", "Fact", "Erasure", "TurnSeq"}
    | {"ApexServerKey", "ApexIngestJob"}  # the REST server's keys and jobs (no scope label)
)
RELATIONSHIP_TYPES: Final[frozenset[str]] = frozenset(
    {
        "IN_SESSION",
        "NEXT",
        "FROM_TURN",
        "SUPPORTED_BY",
        "PARTICIPANT",
        "ABOUT",
        "ASSERTS",
        "OF_PROPERTY",  # only in migrate_drop_of_property: older stores had it
    }
)

_NAME: Final = re.compile(r"^[a-z][a-z0-9_]*$")
# "(var:Label" / "(:Label" and "[var:TYPE" / "[:TYPE" (also "()-[r:TYPE]-()" in schema files)
_LABEL_USE: Final = re.compile(r"\(\s*\w*\s*:\s*(\w+)")
_TYPE_USE: Final = re.compile(r"\[\s*\w*\s*:\s*(\w+)")
_COMMENT: Final = re.compile(r"//[^\n]*")
REPO_CYPHER: Final = Path(__file__).resolve().parents[3] / "cypher"
STORE_SCHEMA: Final[tuple[str, ...]] = ("store_constraints", "store_indexes")
"""The schema files of the graph store (other files in cypher/schema belong to search)."""
STORE_RETIRED: Final[tuple[str, ...]] = ("store_retired",)
"""The graph store's DROP ... IF EXISTS statements for what earlier versions created."""


def cypher_root() -> Traversable:
    """The folder holding ``schema/`` and ``queries/``: the package copy, else the repo's."""
    packaged = resources.files("apexmem_neo").joinpath("cypher")
    if packaged.joinpath("queries").is_dir():
        return packaged
    if REPO_CYPHER.joinpath("queries").is_dir():
        return REPO_CYPHER
    raise CypherFileError(
        f"no Cypher files: neither the package's apexmem_neo/cypher nor {REPO_CYPHER} exists"
    )


def strip_comments(text: str) -> str:
    return _COMMENT.sub("", text)


def check_allowed(name: str, text: str) -> None:
    """Raise ``CypherFileError`` if ``text`` uses a label or type outside the allow-lists."""
    body = strip_comments(text)
    bad_labels = set(_LABEL_USE.findall(body)) - LABELS
    bad_types = set(_TYPE_USE.findall(body)) - RELATIONSHIP_TYPES
    if bad_labels or bad_types:
        raise CypherFileError(
            f"{name}: labels {sorted(bad_labels)} / relationship types {sorted(bad_types)} "
            "are not in the allow-list"
        )


@cache
def query(name: str) -> str:
    """The text of ``cypher/queries/<name>.cypher`` (comments kept; Cypher accepts ``//``)."""
    if not _NAME.match(name):
        raise CypherFileError(f"query name {name!r} is not a plain snake_case file name")
    file = cypher_root().joinpath("queries").joinpath(f"{name}.cypher")
    if not file.is_file():
        raise CypherFileError(f"no Cypher query file queries/{name}.cypher")
    text = file.read_text(encoding="utf-8")
    check_allowed(f"queries/{name}.cypher", text)
    return text


def query_names() -> list[str]:
    """Every query file's name, sorted."""
    folder = cypher_root().joinpath("queries")
    return sorted(f.name.removesuffix(".cypher") for f in folder.iterdir() if _is_cypher(f))


@cache
def schema_statements(names: tuple[str, ...] = STORE_SCHEMA) -> tuple[str, ...]:
    """The statements of ``cypher/schema/<name>.cypher`` for each name, in order."""
    statements: list[str] = []
    for name in names:
        if not _NAME.match(name):
            raise CypherFileError(f"schema name {name!r} is not a plain snake_case file name")
        file = cypher_root().joinpath("schema").joinpath(f"{name}.cypher")
        if not file.is_file():
            raise CypherFileError(f"no Cypher schema file schema/{name}.cypher")
        text = strip_comments(file.read_text(encoding="utf-8"))
        check_allowed(f"schema/{name}.cypher", text)
        statements += [s.strip() for s in text.split(";") if s.strip()]
    return tuple(statements)


def _is_cypher(file: Traversable) -> bool:
    return file.is_file() and file.name.endswith(".cypher")
