"""`apexmem serve` with the local model, over HTTP as a service in another language would use
it: the quickstart's two messages added with extraction as a job, then asked about."""

from __future__ import annotations

from pathlib import Path

import pytest

from apexmem_neo.server.keys import KeyStore
from apexmem_neo.server.state import SqliteServerState, state_path
from tests.integration.server.test_served import finished, serving
from tests.readme_quickstart import QUICKSTART_TURNS

pytestmark = [pytest.mark.integration, pytest.mark.llm]

QUICKSTART = {"messages": QUICKSTART_TURNS}


@pytest.mark.timeout(1800)
def test_add_with_extraction_then_ask_over_http(tmp_path: Path, lm_api_base: str) -> None:
    db = tmp_path / "m.sqlite"
    key = KeyStore(SqliteServerState(state_path(db)).create()).create(["alice"]).key
    auth = {"Authorization": f"Bearer {key}"}
    with serving(db, tmp_path, lm_api_base) as client:
        client.timeout = 600
        accepted = client.post("/v1/scopes/alice/messages", json=QUICKSTART, headers=auth)
        assert accepted.status_code == 202, accepted.text
        done = finished(client, key, accepted.json()["job_id"])
        assert done["state"] == "done", done
        params = {"entity": "Alice", "property": "favourite restaurant"}
        current = client.get("/v1/scopes/alice/current", params=params, headers=auth).json()
        assert current["fact"]["value"] == "Sakura Sushi", current
        question = {"question": "What is Alice's favourite restaurant now?", "at": "2024-06-01"}
        answer = client.post("/v1/scopes/alice/ask", json=question, headers=auth)
        assert answer.status_code == 200, answer.text
        assert "sakura sushi" in answer.json()["answer"].lower(), answer.json()
