"""`apexmem keys create|list|revoke` on the state file beside the store (no memory opened)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from apexmem_neo.cli.serve import keys_app
from apexmem_neo.server.keys import KeyStore
from apexmem_neo.server.state import SqliteServerState


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("APEXMEM_STORE", "APEXMEM_DB", "APEXMEM_SERVER_STATE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("APEXMEM_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


def keys(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(keys_app, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_create_list_revoke(home: Path, tmp_path: Path) -> None:
    db = str(tmp_path / "alice.sqlite")
    code, out, err = keys("create", "--scope", "alice", "--scope", "team", "--db", db)
    assert code == 0 and "shown only now" in err
    key = out.strip()
    store = KeyStore(SqliteServerState(tmp_path / "alice.server.sqlite"))
    found = store.authenticate(key)
    assert found is not None and found.scopes == ["alice", "team"]
    assert not (tmp_path / "alice.sqlite").exists()  # the memory was not opened
    code, out, _ = keys("list", "--db", db, "--json")
    assert code == 0 and json.loads(out)[0]["key_id"] == found.key_id and key not in out
    code, out, _ = keys("revoke", found.key_id, "--db", db)
    assert code == 0 and store.authenticate(key) is None
    code, out, _ = keys("list", "--db", db)
    assert "revoked" in out


def test_the_default_state_file_is_beside_the_default_store(home: Path) -> None:
    code, out, _ = keys("create", "--admin", "--json")
    assert code == 0 and json.loads(out)["admin"] is True
    assert (home / "data" / "apexmem.server.sqlite").exists()


def test_refusals_are_one_line(home: Path, tmp_path: Path) -> None:
    db = str(tmp_path / "m.sqlite")
    code, _, err = keys("create", "--db", db)
    assert code == 1 and err.strip().startswith("error:") and len(err.strip().splitlines()) == 1
    code, _, err = keys("create", "--scope", "bad scope", "--db", db)
    assert code == 1 and "not a valid scope name" in err
    code, _, err = keys("revoke", "nope", "--db", db)
    assert code == 1 and "no API key" in err
