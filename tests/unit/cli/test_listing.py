"""`apexmem scopes | sessions | turns | entities | facts`: paging, --json, the empty-scope
hint and one-line errors, on SQLite with no service and no LLM."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from apexmem_neo.cli import listing as cli_listing
from apexmem_neo.cli.app import app
from apexmem_neo.memory import listing
from tests.unit.agent.alice import ALICE, TEXT_1, TEXT_2, alice_store

runner = CliRunner()


@pytest.fixture
def demo_db(home: Path, tmp_path: Path) -> Path:
    """The Alice store in scope alice-demo (nothing in scope default)."""
    path = tmp_path / "demo.sqlite"
    alice_store(path, scope="alice-demo").close()
    return path


def invoke(*args: str) -> tuple[int, str, str]:
    res = runner.invoke(app, list(args))
    assert "Traceback" not in res.output, res.output
    return res.exit_code, res.stdout, res.stderr


def test_scopes_lists_the_scope(demo_db: Path) -> None:
    code, out, _ = invoke("scopes", "--db", str(demo_db))
    assert code == 0 and out.strip() == "alice-demo"
    code, out, _ = invoke("scopes", "--db", str(demo_db), "--json")
    assert json.loads(out) == {"scopes": ["alice-demo"]}


def test_turns_page_with_the_next_cursor(demo_db: Path) -> None:
    db = str(demo_db)
    code, out, _ = invoke("turns", "--db", db, "--scope", "alice-demo", "--limit", "1")
    assert code == 0 and TEXT_1 in out and TEXT_2 not in out
    cursor = shlex.split(out.splitlines()[-1].removeprefix("next: "))[0]
    code, out, _ = invoke("turns", "--db", db, "--scope", "alice-demo", "--after", cursor)
    assert code == 0 and TEXT_2 in out and TEXT_1 not in out and "next:" not in out


def test_the_scope_and_store_come_from_the_environment(
    demo_db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("APEXMEM_DB", str(demo_db))
    monkeypatch.setenv("APEXMEM_SCOPE", "alice-demo")
    code, out, _ = invoke("turns", "--limit", "1")
    assert code == 0 and TEXT_1 in out
    code, _, err = invoke("turns", "--scope", "default")  # the option wins
    assert code == 0 and "holds nothing" in err


def test_listings_as_json(demo_db: Path) -> None:
    db = ("--db", str(demo_db), "--scope", "alice-demo", "--json")
    _, out, _ = invoke("entities", *db)
    assert [e["entity_id"] for e in json.loads(out)["items"]] == [ALICE]
    _, out, _ = invoke("sessions", *db)
    assert len(json.loads(out)["items"]) == 1
    _, out, _ = invoke("facts", *db, "--entity", "alice", "--property", "favorite restaurant")
    found = json.loads(out)
    assert [f["value"] for f in found["items"]] == ["Italian Garden", "Sakura Sushi"]
    assert found["next"] is None and found["hint"] is None


def test_an_empty_scope_names_the_scopes_that_hold_rows(demo_db: Path) -> None:
    for command in ("turns", "entities", "facts", "sessions"):
        code, out, err = invoke(command, "--db", str(demo_db))
        assert code == 0 and "_(none)_" in out
        assert "scope 'default' holds nothing; scopes: alice-demo" in err
    _, out, _ = invoke("turns", "--db", str(demo_db), "--json")
    assert json.loads(out)["hint"] == "scope 'default' holds nothing; scopes: alice-demo"


def test_search_on_an_empty_scope_names_the_scopes(demo_db: Path) -> None:
    code, _, err = invoke("search", "restaurant", "--db", str(demo_db))
    assert code == 0 and "scope 'default' holds nothing; scopes: alice-demo" in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("turns", "--session", "nope"), "error: no session 'nope' in scope 'alice-demo'"),
        (("facts", "--entity", "Zed"), "error: no entity named 'Zed'"),
        (("turns", "--after", "junk"), "error: page cursor 'junk' is not valid"),
    ],
)
def test_errors_are_one_line(demo_db: Path, args: tuple[str, ...], message: str) -> None:
    code, _, err = invoke(*args, "--db", str(demo_db), "--scope", "alice-demo")
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == 1 and len(lines) == 1 and lines[0].startswith(message), err


def test_the_cli_page_size_is_the_api_default() -> None:
    assert cli_listing.LIST_LIMIT == listing.LIST_LIMIT


def test_read_commands_load_no_language_model(demo_db: Path, home: Path) -> None:
    """A listing, history or query never asks a model, so it opens the memory without one:
    LiteLLM (seconds to import) is never loaded."""
    script = (
        "import sys; from apexmem_neo.cli.app import main\n"
        "sys.argv = ['apexmem', *sys.argv[1:]]\n"
        "try:\n    main()\nexcept SystemExit as exc:\n    assert not exc.code, exc.code\n"
        "print('litellm loaded' if 'litellm' in sys.modules else 'no litellm')"
    )
    for args in (["scopes"], ["history", "alice", "favorite restaurant", "--scope", "alice-demo"]):
        done = subprocess.run(
            [sys.executable, "-c", script, *args, "--db", str(demo_db)],
            capture_output=True, text=True, timeout=120, check=False,
            env={**os.environ, "APEXMEM_HOME": str(home)},
        )  # fmt: skip
        assert done.returncode == 0, done.stderr[-1500:]
        assert done.stdout.strip().endswith("no litellm"), (args, done.stdout[-500:])
