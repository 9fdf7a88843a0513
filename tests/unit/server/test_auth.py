"""Every route but the schema needs a live key; --no-auth is for loopback hosts only; an admin
key manages keys, and a revoked key is refused at once."""

from __future__ import annotations

from pathlib import Path

import pytest
import typer
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from apexmem_neo import Memory
from apexmem_neo.cli.serve import is_loopback, serve
from apexmem_neo.server.app import PUBLIC_PATHS, create_app
from apexmem_neo.server.state import SqliteServerState
from apexmem_neo.server.ui import UI_PATHS
from tests.unit.server.conftest import Served
from tests.unit.server.test_scope_wall import QUERY, every_route, url


def refused_without_a_live_key(served: Served, key: str | None) -> None:
    for method, path in every_route(served):
        if path in PUBLIC_PATHS or path in UI_PATHS:  # the page: tests/unit/server/test_ui.py
            continue
        answer = served.call(method, url(path, "0" * 32, "k"), key, params=QUERY, json={})
        assert answer.status_code == 401, (method, path, answer.text)
        assert answer.json()["error"]["code"] == "unauthorized"


def test_no_key_and_a_bad_key_are_401_on_every_route(served: Served) -> None:
    refused_without_a_live_key(served, None)
    refused_without_a_live_key(served, "amk_0000_not-a-key")
    refused_without_a_live_key(served, served.alice[:-1] + "x")  # right id, wrong secret
    answer = served.client.get("/v1/scopes", headers={"Authorization": served.alice})
    assert answer.status_code == 401  # the key without "Bearer"


def test_a_revoked_key_is_401_from_the_next_request(served: Served) -> None:
    assert served.call("GET", "/v1/scopes/alice/entities", served.alice).status_code == 200
    key_id = served.alice.split("_")[1]
    revoked = served.call("DELETE", f"/v1/keys/{key_id}", served.admin)
    assert revoked.status_code == 200 and revoked.json()["revoked_at"]
    refused_without_a_live_key(served, served.alice)


def test_the_admin_key_manages_keys_and_others_may_not(served: Served) -> None:
    made = served.call("POST", "/v1/keys", served.admin, json={"scopes": ["carol"]})
    assert made.status_code == 201, made.text
    carol = made.json()["key"]
    assert served.call("GET", "/v1/scopes/carol/entities", carol).status_code == 200
    listed = served.call("GET", "/v1/keys", served.admin).json()["keys"]
    assert [k["scopes"] for k in listed] == [["alice"], ["bob"], [], ["carol"]]
    assert carol not in str(listed) and "key_hash" not in str(listed)
    for method, path in [("GET", "/v1/keys"), ("POST", "/v1/keys")]:
        assert served.call(method, path, carol, json={"scopes": ["x"]}).status_code == 403
    assert served.call("DELETE", "/v1/keys/nope", served.admin).status_code == 404
    bad = served.call("POST", "/v1/keys", served.admin, json={"scopes": ["no spaces"]})
    assert bad.status_code == 400


def test_the_key_file_holds_no_key(served: Served, tmp_path: Path) -> None:
    data = (tmp_path / "m.server.sqlite").read_bytes()
    for key in (served.alice, served.bob, served.admin):
        assert key.encode() not in data
        assert key.split("_", 2)[2].encode() not in data


def test_no_auth_serves_every_scope_without_a_key(memory: Memory, tmp_path: Path) -> None:
    app = create_app(memory, SqliteServerState(tmp_path / "open.sqlite"), auth=False)
    with TestClient(app) as client:
        assert client.get("/v1/scopes").json() == {"scopes": ["alice", "bob"]}
        assert client.get("/v1/scopes/bob/entities").status_code == 200
        bad = client.get("/v1/scopes/not a scope!/entities")
        assert bad.status_code == 400 and bad.json()["error"]["code"] == "bad_input"


@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.1.5", "::", "example.com"])
def test_no_auth_is_refused_off_loopback(host: str, tmp_path: Path) -> None:
    cli = typer.Typer()
    cli.command()(serve)
    result = CliRunner().invoke(cli, ["--no-auth", "--host", host, "--db", str(tmp_path / "m")])
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "--no-auth is refused" in lines[0], result.output
    assert not (tmp_path / "m").exists()  # refused before the memory was opened


def test_loopback_hosts() -> None:
    assert all(is_loopback(h) for h in ("127.0.0.1", "localhost", "::1", "127.0.0.2"))
    assert not any(is_loopback(h) for h in ("0.0.0.0", "::", "10.0.0.1", "host.local"))
