"""`apexmem turns --metadata` and `apexmem search --metadata` on SQLite (the packaged MiniLM
model, offline; no service, no LLM)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from apexmem_neo.cli.app import app
from apexmem_neo.cli.listing import metadata_filter
from apexmem_neo.memory import Memory
from tests.unit.cli.conftest import EMBED_MODEL

runner = CliRunner()
CHAT: list[Any] = [
    {"role": "user", "content": "I ordered a flat white", "metadata": {"channel": "web", "n": 1}},
    {"role": "assistant", "content": "Noted, a flat white", "metadata": {"channel": "app"}},
    {"role": "user", "content": "And a croissant", "metadata": {"channel": "web", "n": "1"}},
]


@pytest.fixture
def chat_db(home: Path, tmp_path: Path) -> Path:
    """``CHAT`` in scope ann, indexed for search."""
    path = tmp_path / "chat.sqlite"
    with Memory.sqlite(path, embedder=EMBED_MODEL, home=home, lm=None) as memory:
        memory.add(CHAT, scope="ann", at="2024-05-01", extract=False)
    return path


def invoke(*args: str) -> tuple[int, str, str]:
    res = runner.invoke(app, list(args))
    assert "Traceback" not in res.output, res.output
    return res.exit_code, res.stdout, res.stderr


def test_values_read_as_json_scalars_else_as_text() -> None:
    assert metadata_filter(["a=web", "n=1", "f=1.5", "b=true", "z=null", 's="1"']) == {
        "a": "web", "n": 1, "f": 1.5, "b": True, "z": None, "s": "1",
    }  # fmt: skip
    assert metadata_filter(["a=[1]", "e=", "u=x=y"]) == {"a": "[1]", "e": "", "u": "x=y"}
    assert metadata_filter(None) == {}


def test_turns_filter_on_every_metadata_option(chat_db: Path) -> None:
    db = ("--db", str(chat_db), "--scope", "ann")
    code, out, _ = invoke("turns", *db, "--metadata", "channel=web", "--json")
    assert code == 0
    assert [t["metadata"] for t in json.loads(out)["items"]] == [
        CHAT[0]["metadata"],
        CHAT[2]["metadata"],
    ]
    code, out, _ = invoke("turns", *db, "--metadata", "channel=web", "--metadata", "n=1")
    assert code == 0 and "I ordered a flat white" in out and "croissant" not in out
    assert '"n": 1' in out  # the metadata column
    code, out, _ = invoke("turns", *db, "--metadata", 'n="1"', "--json")
    assert [t["text"] for t in json.loads(out)["items"]] == ["And a croissant"]


def test_a_malformed_option_is_a_usage_error(chat_db: Path) -> None:
    code, _, err = invoke("turns", "--db", str(chat_db), "--scope", "ann", "--metadata", "web")
    assert code == 2 and "write key=value" in err


def test_search_keeps_only_matching_turns(chat_db: Path) -> None:
    args = ("search", "flat white", "--db", str(chat_db), "--scope", "ann", "--json")
    code, out, _ = invoke(*args, "--metadata", "channel=app")
    found = json.loads(out)
    assert code == 0 and len(found["turns"]) == 1
    assert found["turns"][0]["text"].endswith("Noted, a flat white")
    code, out, _ = invoke("search", "flat white", "--db", str(chat_db), "--scope", "ann",
                          "--metadata", "channel=app")  # fmt: skip
    assert code == 0 and "## turn (1)" in out and "## entity" not in out
