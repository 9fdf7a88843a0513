"""The /ui timeline page in a real browser: `apexmem serve` (uvicorn on a free port) over a
SQLite memory holding Alice's demo facts, written without the LLM, and Debian's headless
chromium (`make test` installs it). The DOM chromium builds must show the three changes in
the order they happened, and the screenshot is kept beside the test's files (its path is
printed). A keyed server shows the login form, takes the key in a POST body and answers the
page to its HttpOnly cookie, with the key in no URL and no log line.

Set APEXMEM_UI_SCREENSHOT to a path to copy the screenshot there (docs/images/timeline.png
is made that way)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from apexmem_neo import Memory
from apexmem_neo.server.keys import KeyStore
from apexmem_neo.server.state import SqliteServerState, state_path
from apexmem_neo.testing import HashingEmbedder
from tests.integration.server.test_served import free_port, server_env, wait_until_up
from tests.unit.server.timeline_case import CHANGES, demo_batch

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
BROWSER_S = 120
AS_OF = "2024-04-01"
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None, reason="chromium is not installed (make test installs Debian's chromium)"
)


def demo_memory(tmp_path: Path) -> Path:
    """A SQLite memory file holding the demo's facts in scope "alice"."""
    db = tmp_path / "m.sqlite"
    memory = Memory.sqlite(db, home=tmp_path / "home", embedder=HashingEmbedder(), lm=None)
    memory.store.write(demo_batch("alice"))
    memory.close()
    return db


@contextmanager
def serving(db: Path, tmp_path: Path, *options: str) -> Iterator[tuple[httpx.Client, Path]]:
    """`apexmem serve --no-llm` on ``db``, with its log file; killed at the end."""
    port = free_port()
    log_path = tmp_path / f"serve-{port}.log"
    command = [sys.executable, "-m", "apexmem_neo.cli.serve", "--db", str(db),
               "--port", str(port), "--no-llm", *options]  # fmt: skip
    with log_path.open("w") as log:
        process = subprocess.Popen(command, env=server_env(tmp_path), stdout=log, stderr=log)
        client = httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30)
        try:
            wait_until_up(client, process, log_path)
            yield client, log_path
        finally:
            client.close()
            process.kill()
            process.wait(30)


def chromium(tmp_path: Path, *arguments: str) -> str:
    """Run headless chromium once (its own profile under ``tmp_path``); its stdout."""
    assert CHROMIUM is not None
    command = [CHROMIUM, "--headless", "--disable-gpu", "--no-sandbox", "--hide-scrollbars",
               "--no-first-run", f"--user-data-dir={tmp_path / 'chromium'}",
               "--window-size=1280,900", *arguments]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=BROWSER_S)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def part(html: str, start: str, end: str) -> str:
    return html.split(start, 1)[1].split(end, 1)[0]


def changes_in(dom: str) -> list[tuple[str, str, str, str]]:
    """The change list of a page's DOM as (date, property, old, new)."""
    listed = dom.split('<ol class="changes">', 1)[1].split("</ol>", 1)[0]
    rows = re.findall(
        r"<time[^>]*>([^<]+)</time> (\w+): <span[^>]*>([^<]+)</span> → <span[^>]*>([^<]+)</span>",
        listed,
    )
    return [(d, p, old, new) for d, p, old, new in rows]


@needs_chromium
def test_the_browser_shows_the_changes_in_order(
    tmp_path: Path, record_property: Callable[[str, object], None]
) -> None:
    db = demo_memory(tmp_path)
    with serving(db, tmp_path, "--no-auth") as (client, _):
        url = f"{str(client.base_url).rstrip('/')}/ui?scope=alice&entity=Alice&at={AS_OF}"
        dom = chromium(tmp_path, "--dump-dom", url)
        clicked = chromium(tmp_path, "--dump-dom", url + "#f3")  # Sakura Sushi's bar
        shot = tmp_path / "timeline.png"
        chromium(tmp_path, f"--screenshot={shot}", url)
    assert changes_in(dom) == list(CHANGES)
    assert "Italian Garden" in dom and "Sakura Sushi" in dom
    held = dom.split('<ul class="held">', 1)[1].split("</ul>", 1)[0]
    assert "Sakura Sushi" in held and "City Hospital" in held and "Boston" in held
    panel = part(clicked, '<div id="said" class="said"', "</div>")
    assert "hidden" not in panel.split(">", 1)[0], panel
    assert "Sakura Sushi is my favourite restaurant now." in panel and "Alice" in panel
    assert 'id="said" class="said" hidden' in dom  # no fact chosen, no panel
    assert shot.stat().st_size > 10_000
    print(f"timeline screenshot: {shot}")  # shown with -rP; in --junitxml as a property
    record_property("screenshot", str(shot))
    if copy_to := os.environ.get("APEXMEM_UI_SCREENSHOT"):
        shutil.copyfile(shot, copy_to)


def test_a_keyed_server_signs_in_with_a_cookie_and_logs_no_key(tmp_path: Path) -> None:
    db = demo_memory(tmp_path)
    key = KeyStore(SqliteServerState(state_path(db)).create()).create(["alice"]).key
    with serving(db, tmp_path) as (client, log):
        assert client.get("/ui").status_code == 401
        signed = client.post("/ui/login", data={"key": key}, follow_redirects=False)
        assert signed.status_code == 303 and signed.headers["location"] == "/ui"
        cookie = signed.headers["set-cookie"]
        assert "HttpOnly" in cookie and "SameSite=strict" in cookie and "Path=/ui" in cookie
        page = client.get("/ui", params={"at": AS_OF})
        assert page.status_code == 200 and "Sakura Sushi" in page.text
        assert changes_in(page.text) == list(CHANGES)
        assert key not in page.text
        client.cookies.clear()
        assert client.get("/ui", params={"scope": "alice"}).status_code == 401
    assert key not in log.read_text()
