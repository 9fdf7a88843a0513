"""GraphQuery and SchemaViewer on Neo4j, over the tool test graph."""

from __future__ import annotations

import re

import pytest
from neo4j import Driver

from apexmem_neo.query import neo4j_backend as neo4j_backend_module
from apexmem_neo.query.backend import Example
from apexmem_neo.query.examples import CYPHER_EXAMPLES
from apexmem_neo.query.neo4j_backend import RELATIONSHIP_TYPES, unknown_names
from apexmem_neo.tools import (
    Neo4jQueryBackend,
    QueryBackend,
    QueryLimits,
    graph_query_tool,
    run_graph_query,
    schema_viewer_tool,
)
from tests.integration.tools.test_sql_shim_neo4j import EXAMPLE_PARAMS
from tests.unit.tools.graph_data import ALICE
from tests.unit.tools.results import error_title

pytestmark = [pytest.mark.integration, pytest.mark.neo4j]


def test_backend_is_a_query_backend(neo4j_backend: Neo4jQueryBackend) -> None:
    assert isinstance(neo4j_backend, QueryBackend)


def test_graph_query_cypher(neo4j_backend: Neo4jQueryBackend) -> None:
    tool = graph_query_tool(neo4j_backend)
    assert tool.__doc__ is not None and "Neo4j" in tool.__doc__
    assert "query: one read-only Cypher statement" in tool.__doc__
    as_sql = graph_query_tool(neo4j_backend, language="sql").__doc__ or ""
    assert "query: one SQL SELECT" in as_sql and "language='cypher'" in as_sql
    out = tool(
        "MATCH (f:Fact {entity_id: $e, property: 'tqx_city'}) "
        "RETURN f.value_json AS value, f.t_to AS until ORDER BY f.t_from",
        params={"e": ALICE},
    )
    assert out.text.splitlines() == [
        "**3 rows.**",
        "",
        "| value | until |",
        "|---|---|",
        '| "Berlin" | 2021-06-30T23:59:59 |',
        '| "Paris" | NULL |',
        '| "London" | NULL |',
    ]


def test_graph_query_sql_shows_the_cypher_that_ran(neo4j_backend: Neo4jQueryBackend) -> None:
    out = graph_query_tool(neo4j_backend)(
        "SELECT name FROM entities WHERE entity_id = :e", "sql", {"e": ALICE}
    )
    assert out.text.startswith("Ran as cypher:\n```cypher\nMATCH (entities:Entity)")
    assert "| Alice Tqx |" in str(out)


def test_nodes_relationships_and_times_render_as_values(neo4j_backend: Neo4jQueryBackend) -> None:
    out = run_graph_query(
        neo4j_backend,
        "MATCH (ev:Event {event_id: 'tqx_ev_move'})-[p:PARTICIPANT]->(e:Entity {entity_id: $e}) "
        "RETURN e.name AS name, p, date(localdatetime(ev.anchor_datetime)) AS day",
        params={"e": ALICE},
    )
    assert '| Alice Tqx | {"_type": "PARTICIPANT", "entity_id": "tqx_ent_alice"' in str(out)
    assert "| 2021-07-01 |" in str(out)


def test_names_the_graph_lacks_are_refused_like_unknown_sql_columns(
    neo4j_backend: Neo4jQueryBackend, caplog: pytest.LogCaptureFixture
) -> None:
    """The local model's real mistakes: an attribute read as a node property, an invented
    relationship type and label. Cypher would answer NULL; the tool refuses, names what the
    graph has and shows the Fact-node query, and the driver logs nothing about it."""
    out = run_graph_query(
        neo4j_backend,
        "MATCH (e:Entity {name: 'Alice Tqx'}) OPTIONAL MATCH (e)-[:TQX_WORKED_AT]->(c:TqxCompany) "
        "RETURN e.tqx_favourite_food AS food, c.name AS company",
    )
    assert error_title(out).startswith("Not in the graph")
    block = str(out)  # the error block the agent reads
    assert "no node has a property `tqx_favourite_food`" in block
    assert "no relationship has the type `TQX_WORKED_AT` (types: ABOUT, ASSERTS" in block
    assert "no node has the label `TqxCompany` (labels: Session, Turn, Entity" in block
    assert (
        "MATCH (e:Entity {name: 'Alice Tqx'})<-[:ABOUT]-(f:Fact {property: 'tqx_favourite_food'})"
        in block
    )
    assert not [r for r in caplog.records if r.name == "neo4j.notifications"]
    suggestion = str(out).split("```")[1].strip()
    assert "| " in str(
        run_graph_query(neo4j_backend, suggestion.replace("tqx_favourite_food", "tqx_city"))
    )


def test_schema_names_a_young_graph_lacks_are_not_mistakes(
    neo4j_backend: Neo4jQueryBackend,
) -> None:
    """A column no row has set yet (or a label with no node yet) is absent from Neo4j too."""
    assert (
        unknown_names(
            ["warn: property key does not exist. The property `span_end` does not exist."]
        )
        == []
    )
    out = run_graph_query(
        neo4j_backend,
        "MATCH (e:Entity {entity_id: $e}) RETURN e.name AS name, e.description AS d",
        params={"e": ALICE},
    )
    assert out.text.startswith("**1 row.**")


def test_allowed_procedure_runs(neo4j_backend: Neo4jQueryBackend) -> None:
    out = run_graph_query(neo4j_backend, "CALL db.labels() YIELD label RETURN label ORDER BY label")
    assert "| Fact |" in str(out)


def test_row_limit_and_time_limit(neo4j_backend: Neo4jQueryBackend) -> None:
    limits = QueryLimits(max_rows=5, timeout_s=1.0)
    out = run_graph_query(
        neo4j_backend, "UNWIND range(1, 1000) AS i RETURN i", "cypher", None, limits
    )
    assert out.text.startswith("**5 rows shown; more exist (row limit 5).**")
    out = run_graph_query(
        neo4j_backend,
        "UNWIND range(1, 100000000) AS i WITH i WHERE i % 7 = 3 RETURN count(*)",
        "cypher",
        None,
        limits,
    )
    assert error_title(out).startswith("Time limit"), out


def test_errors_are_markdown(neo4j_backend: Neo4jQueryBackend) -> None:
    assert error_title(run_graph_query(neo4j_backend, "MATCH (n RETURN n")).startswith(
        "Cypher error"
    )
    out = run_graph_query(neo4j_backend, "SELECT * FROM facts NATURAL JOIN entities", "sql")
    assert error_title(out).startswith("Unsupported SQL in the SQL-compat shim")
    assert "Instead, try:\n```\nMATCH (f:Fact) OPTIONAL MATCH" in str(out)
    # Cypher sent as SQL on Neo4j: told to switch the language (both run here)
    out = run_graph_query(neo4j_backend, "MATCH (f:Fact) RETURN count(f) AS n", "sql")
    assert error_title(out).startswith("Cypher sent as SQL") and "language='cypher'" in str(out)
    assert str(run_graph_query(neo4j_backend, "MATCH (f:Fact) RETURN count(f) AS n")).startswith(
        "**1 row"
    )
    unreachable = Neo4jQueryBackend(neo4j_backend.driver, database="tqx_no_such_db")
    assert run_graph_query(unreachable, "RETURN 1").error is not None


@pytest.mark.parametrize("example", CYPHER_EXAMPLES, ids=[e.title for e in CYPHER_EXAMPLES])
def test_cypher_examples_run_and_find_rows(
    neo4j_backend: Neo4jQueryBackend, example: Example
) -> None:
    params = {k: EXAMPLE_PARAMS[k] for k in example.params}
    result = neo4j_backend.run(example.query, "cypher", params, QueryLimits())
    assert result.rows, example.title


def test_cypher_and_sql_examples_agree_on_the_answers(neo4j_backend: Neo4jQueryBackend) -> None:
    from tests.unit.tools.test_sqlite_tools import PARAMS  # same parameter values

    current, as_of, changed, before = CYPHER_EXAMPLES[:4]

    def first(example: Example, **override: str) -> object:
        values = {k: override.get(k, PARAMS[k]) for k in example.params}
        return neo4j_backend.run(example.query, "cypher", values, QueryLimits()).rows[0][0]

    assert first(current) == '"London"'
    assert first(as_of, t="2021-03-01T00:00:00") == '"Berlin"'
    assert first(changed) == "2021-07-01T00:00:00"
    assert first(before) == '"Paris"'


def test_schema_viewer_skips_relationship_types_the_graph_never_held(
    neo4j_backend: Neo4jQueryBackend,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A young graph lacks some schema types (no NEXT before two turns); counting one would
    make the server warn and the driver log it. The shared test server has held every real
    type by now, so a type no test ever creates stands in for them."""
    never_held = "TQX_NEVER_HELD"
    monkeypatch.setattr(
        neo4j_backend_module, "RELATIONSHIP_TYPES", (*RELATIONSHIP_TYPES, never_held)
    )
    out = schema_viewer_tool(neo4j_backend)()
    assert not [r for r in caplog.records if r.name == "neo4j.notifications"]
    about = re.search(r"\[:ABOUT\]->\(:Entity\)`: .* \((\d+) in all\)", out.text)
    assert about is not None and int(about.group(1)) > 0  # types it holds are still counted


def test_schema_viewer_on_neo4j(neo4j_backend: Neo4jQueryBackend, neo4j_graph: Driver) -> None:
    out = schema_viewer_tool(neo4j_backend)(include_examples=True, include_guide=True)
    assert out.text.startswith("# Memory schema (Neo4j; query language: cypher)")
    assert "### `Fact` (SQL table `facts`): node label," in str(out)
    assert "### `(:Event)-[:PARTICIPANT]->(:Entity)` (SQL table `event_participants`)" in str(out)
    assert "| confidence | Float | no |" in str(out)
    assert "- `(:Fact)-[:ABOUT]->(:Entity)`: facts.entity_id = entities.entity_id (" in str(out)
    assert "fact_timeline: Fact(entity_id, property, t_from) [RANGE]" in str(out)
    assert "entity_id_unique: Entity(entity_id) [RANGE (unique constraint)]" in str(out)
    assert "## Temporal query examples (cypher)" in str(out)
    assert "**GraphQuery" in str(out) and "also accepted (language='sql')" in str(out)
