"""`apexmem entity` and `apexmem history` resolve names as every read does: other spellings
of a property work, and a name that fits no entity is one error line (or one JSON error)
listing the nearest known names, exit 1, never another entity's data."""

from __future__ import annotations

import json
from pathlib import Path

from apexmem_neo.ontology import Entity, GraphBatch
from apexmem_neo.store.sqlite import SQLiteGraphStore
from tests.unit.cli.test_failures import error_line, invoke, json_error


def test_history_accepts_a_property_in_other_words(alice_db: Path) -> None:
    code, out, _ = invoke("history", "alice", "favorite restaurant", "--db", str(alice_db))
    assert code == 0, out
    assert out.startswith("# Alice (Person)") and ": favourite_restaurant" in out
    assert "Italian Garden" in out and "Sakura Sushi" in out


def test_an_unknown_entity_is_one_error_line_naming_the_nearest(alice_db: Path) -> None:
    for command in (["history", "Bob", "favourite_restaurant"], ["entity", "Zorro"]):
        code, out, err = invoke(*command, "--db", str(alice_db))
        assert code == 1 and "Sakura Sushi" not in out + err
        line = error_line(err)
        assert f"no entity named {command[1]!r} in scope 'default'" in line
        assert line.endswith("nearest known names: Alice")
    code, out, _ = invoke("history", "Bob", "favourite_restaurant", "--db", str(alice_db), "--json")
    error = json_error(out)
    assert code == 1 and error["type"] == "UnknownEntityError" and "Alice" in error["message"]


def test_an_ambiguous_name_shows_both_or_is_a_json_error(alice_db: Path) -> None:
    store = SQLiteGraphStore(alice_db)
    store.init_schema()
    lee, chen = (Entity(name=f"Maya {n}", entity_type="Person") for n in ("Lee", "Chen"))
    store.write(GraphBatch(entities=[lee, chen]))
    store.close()
    code, out, _ = invoke("entity", "maya", "--db", str(alice_db))
    assert code == 0 and "# Maya Lee (Person)" in out and "# Maya Chen (Person)" in out
    code, out, _ = invoke("entity", "maya", "--db", str(alice_db), "--json")
    error = json_error(out)
    assert code == 1 and error["type"] == "AmbiguousEntityError"
    assert lee.entity_id in error["message"] and chen.entity_id in error["message"]
    code, out, err = invoke("history", "Maya", "employer", "--db", str(alice_db))
    assert code == 1 and "names more than one entity" in error_line(err)
    code, out, _ = invoke("entity", "Maya Lee", "--db", str(alice_db), "--json")
    assert code == 0 and json.loads(out)["entity_id"] == lee.entity_id
