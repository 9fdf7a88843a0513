"""`apexmem serve` as a real process: uvicorn on a free port over a SQLite memory, called with
httpx. A job and its messages are in the state file, so a server started again after the
first was killed reports the job and finishes it, storing each turn once. No service and no
LLM: the server runs with --no-llm and stores plain turns (the packaged MiniLM embedder
indexes them)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

from apexmem_neo.server.keys import KeyStore
from apexmem_neo.server.state import SqliteServerState, state_path

START_S = 180.0
JOB_S = 300.0
SETTINGS_VARS = ("APEXMEM_STORE", "APEXMEM_DB", "APEXMEM_SEARCH", "APEXMEM_INDEX_NAME",
                 "APEXMEM_LM", "APEXMEM_LM_API_BASE", "APEXMEM_EMBED_CACHE",
                 "APEXMEM_SERVER_STATE", "APEXMEM_MAX_BODY_BYTES", "APEXMEM_JOB_LEASE_S",
                 "NEO4J_URI", "NEO4J_DATABASE")  # fmt: skip
LEASE_S = "2"
"""The job lease of the servers under test: a killed server's job is taken up seconds later."""
PIANO = {
    "messages": [
        {"name": "Alice", "content": "I started learning piano.",
         "timestamp": "2024-04-02T10:00:00"},
        {"name": "Bob", "content": "Nice! Which teacher?"},
    ],
    "session": "lessons",
    "extract": False,
}  # fmt: skip


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def server_env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in SETTINGS_VARS}
    env.update(APEXMEM_HOME=str(tmp_path / "home"), APEXMEM_EMBED_MODEL="all-MiniLM-L6-v2",
               HF_HUB_OFFLINE="1", LITELLM_LOCAL_MODEL_COST_MAP="True",
               APEXMEM_JOB_LEASE_S=LEASE_S)  # fmt: skip
    return env


@contextmanager
def server_process(
    options: list[str], env: dict[str, str], tmp_path: Path
) -> Iterator[tuple[httpx.Client, subprocess.Popen[bytes]]]:
    """`apexmem serve OPTIONS --port P` with ``env``, up; killed (SIGKILL: no clean
    shutdown) at the end if the test has not killed it already."""
    port = free_port()
    log = (tmp_path / f"serve-{port}.log").open("w")
    command = [sys.executable, "-m", "apexmem_neo.cli.serve", *options, "--port", str(port)]
    process = subprocess.Popen(command, env=env, stdout=log, stderr=log)
    client = httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30)
    try:
        wait_until_up(client, process, tmp_path / f"serve-{port}.log")
        yield client, process
    finally:
        client.close()
        process.kill()
        process.wait(30)
        log.close()


@contextmanager
def serving(db: Path, tmp_path: Path, lm_api_base: str | None = None) -> Iterator[httpx.Client]:
    """`apexmem serve` on ``db`` (with the model at ``lm_api_base``, else ``--no-llm``)."""
    env = server_env(tmp_path)
    options = ["--db", str(db)]
    if lm_api_base is None:
        options.append("--no-llm")
    else:
        env.update(APEXMEM_LM_API_BASE=lm_api_base, APEXMEM_LM_API_KEY="local")
    with server_process(options, env, tmp_path) as (client, _):
        yield client


def wait_until_up(client: httpx.Client, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + START_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"the server exited: {log.read_text()[-2000:]}")
        try:
            if client.get("/v1/openapi.json").status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.2)
    raise AssertionError(f"the server did not start: {log.read_text()[-2000:]}")


def job(client: httpx.Client, key: str, job_id: str) -> dict[str, Any]:
    answer = client.get(f"/v1/jobs/{job_id}", headers={"Authorization": f"Bearer {key}"})
    assert answer.status_code == 200, answer.text
    found: dict[str, Any] = answer.json()
    return found


def finished(client: httpx.Client, key: str, job_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + JOB_S
    while (state := job(client, key, job_id))["state"] in ("queued", "running"):
        assert time.monotonic() < deadline, state
        time.sleep(0.2)
    return state


def test_job_state_survives_a_killed_server(tmp_path: Path) -> None:
    db = tmp_path / "m.sqlite"
    state = SqliteServerState(state_path(db)).create()
    key = KeyStore(state).create(["alice"]).key
    bob = KeyStore(state).create(["bob"]).key
    auth = {"Authorization": f"Bearer {key}"}
    with serving(db, tmp_path) as client:
        cut = client.post("/v1/scopes/alice/messages", json=PIANO, headers=auth)
        assert cut.status_code == 202, cut.text
    with serving(db, tmp_path) as client:  # the first was killed as soon as it answered
        cut_short = finished(client, key, cut.json()["job_id"])
        assert cut_short["state"] == "done", cut_short
        stored = client.get("/v1/scopes/alice/turns", params={"session": "lessons"}, headers=auth)
        texts = [t["text"] for t in stored.json()["items"]]
        assert texts == ["I started learning piano.", "Nice! Which teacher?"]
        queued = client.post("/v1/scopes/alice/messages", json=PIANO, headers=auth)
        assert queued.status_code == 202, queued.text
        done = finished(client, key, queued.json()["job_id"])
        assert done["state"] == "done", done
    with serving(db, tmp_path) as client:
        again = job(client, key, queued.json()["job_id"])
        assert again == done
        assert [t["status"] for t in again["summary"]["turns"]] == ["stored", "stored"]
        turns = client.get("/v1/scopes/alice/turns", params={"session": "lessons"}, headers=auth)
        assert [t["text"] for t in turns.json()["items"]].count("I started learning piano.") == 2
        nobody = client.get(f"/v1/jobs/{queued.json()['job_id']}")
        assert nobody.status_code == 401 and nobody.json()["error"]["code"] == "unauthorized"
        other = client.get(
            f"/v1/jobs/{queued.json()['job_id']}", headers={"Authorization": f"Bearer {bob}"}
        )
        assert other.status_code == 404 and "piano" not in other.text
