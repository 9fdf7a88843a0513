"""/ui, the timeline page, through a TestClient: who may open it (the login form, its cookie,
a bearer header, another scope's key), what it draws (bars, an end, the now and as-of
markers, what held, the changes, the turns) and that user text on it is inert."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from httpx import Response

from apexmem_neo import Memory
from apexmem_neo.server.app import create_app
from apexmem_neo.server.keys import KeyStore
from apexmem_neo.server.state import SqliteServerState
from apexmem_neo.server.ui import COOKIE, NOTHING_YET
from apexmem_neo.testing import HashingEmbedder
from tests.unit.server.conftest import Served
from tests.unit.server.test_scope_wall import ALICE_DATA
from tests.unit.server.timeline_case import CHANGES, XSS, demo_batch, extra_batch, said

BOB_SECRET = "Bob's hidden orchard"
ESCAPED = "&lt;script&gt;alert(1)&lt;/script&gt;"


@dataclass
class Page:
    client: TestClient
    keys: KeyStore
    alice: str
    bob: str

    def get(self, key: str | None = None, **params: str) -> Response:
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        return self.client.get("/ui", params=params, headers=headers)


@pytest.fixture
def demo(tmp_path: Path) -> Iterator[Memory]:
    """Alice's demo, an end and an HTML-like value in scope alice; Bob's own secret in bob."""
    opened = Memory.sqlite(
        tmp_path / "m.sqlite", home=tmp_path / "home", embedder=HashingEmbedder(), lm=None
    )
    opened.store.write(demo_batch("alice"))
    opened.store.write(extra_batch("alice"))
    bob = (("s1", "2024-02-02T10:00:00", "I grow apples.", "orchard", BOB_SECRET),)
    opened.store.write(said("bob", bob))
    yield opened
    opened.close()


def client_for(memory: Memory, tmp_path: Path, *, auth: bool = True) -> tuple[TestClient, KeyStore]:
    state = SqliteServerState(tmp_path / "m.server.sqlite")
    return TestClient(create_app(memory, state, auth=auth)), KeyStore(state)


@pytest.fixture
def ui(demo: Memory, tmp_path: Path) -> Iterator[Page]:
    client, keys = client_for(demo, tmp_path)
    with client:
        yield Page(client, keys, keys.create(["alice"]).key, keys.create(["bob"]).key)


def part(html: str, start: str, end: str) -> str:
    """The text of ``html`` between the first ``start`` and the next ``end``."""
    return html.split(start, 1)[1].split(end, 1)[0]


def held(html: str) -> dict[str, str]:
    """The as-of list as {property: what held (a value, "ended" or "nothing known")}."""
    items = re.findall(r"<li>(\w+): <span[^>]*>([^<]*)</span>", part(html, '"held">', "</ul>"))
    return dict(items)


def test_without_a_key_the_page_is_the_login_form(ui: Page) -> None:
    answer = ui.get()
    assert answer.status_code == 401
    assert '<form method="post" action="/ui/login">' in answer.text
    assert 'type="password"' in answer.text
    assert "Sakura" not in answer.text and "Alice" not in answer.text


def test_the_login_form_sets_an_http_only_cookie_and_the_key_stays_out_of_urls(
    ui: Page,
) -> None:
    signed = ui.client.post("/ui/login", data={"key": ui.alice}, follow_redirects=False)
    assert signed.status_code == 303 and signed.headers["location"] == "/ui"
    cookie = signed.headers["set-cookie"]
    assert cookie.startswith(f"{COOKIE}=") and "HttpOnly" in cookie
    assert "SameSite=strict" in cookie and "Path=/ui" in cookie
    page = ui.client.get("/ui")
    assert page.status_code == 200 and "Sakura Sushi" in page.text
    assert ui.alice not in page.text and ui.alice not in str(page.url)
    assert '<form method="post" action="/ui/logout">' in page.text
    out = ui.client.post("/ui/logout", follow_redirects=False)
    assert out.status_code == 303 and COOKIE in out.headers["set-cookie"]
    ui.client.cookies.clear()
    assert ui.client.get("/ui").status_code == 401


def test_a_form_posted_from_another_site_is_refused(ui: Page) -> None:
    elsewhere = {"Origin": "https://evil.example"}
    posted = ui.client.post("/ui/login", data={"key": ui.alice}, headers=elsewhere)
    assert posted.status_code == 403 and "set-cookie" not in posted.headers
    here = {"Origin": "http://testserver"}
    signed = ui.client.post(
        "/ui/login", data={"key": ui.alice}, headers=here, follow_redirects=False
    )
    assert signed.status_code == 303
    assert ui.client.post("/ui/logout", headers=elsewhere).status_code == 403
    assert ui.client.get("/ui").status_code == 200


def test_a_wrong_or_revoked_key_is_refused_with_the_login_form(ui: Page) -> None:
    wrong = ui.client.post("/ui/login", data={"key": "amk_nope"}, follow_redirects=False)
    assert wrong.status_code == 401 and "unknown or revoked" in wrong.text
    assert "set-cookie" not in wrong.headers
    ui.client.post("/ui/login", data={"key": ui.alice}, follow_redirects=False)
    assert ui.client.get("/ui").status_code == 200
    for key in ui.keys.list():
        ui.keys.revoke(key.key_id)
    refused = ui.client.get("/ui")
    assert refused.status_code == 401 and "Sakura" not in refused.text


def test_a_bearer_header_opens_the_page(ui: Page) -> None:
    answer = ui.get(ui.alice, at="2024-04-01")
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/html")
    assert "script-src 'self'" in answer.headers["content-security-policy"]


def test_another_scope_is_403_and_the_page_holds_nothing_of_it(ui: Page) -> None:
    refused = ui.get(ui.alice, scope="bob")
    assert refused.status_code == 403 and "does not hold scope" in refused.text
    mine = ui.get(ui.alice)
    for html in (refused.text, mine.text):
        assert BOB_SECRET not in html and "orchard" not in html and "apples" not in html
        assert re.findall(r'<option value="([^"]+)"', part(html, 'id="scope"', "</select>")) == [
            "alice"
        ]
    assert "Italian Garden" not in refused.text
    theirs = ui.get(ui.bob, scope="bob")
    assert theirs.status_code == 200 and "Bob&#x27;s hidden orchard" in theirs.text
    assert "Sakura" not in theirs.text


def test_no_auth_opens_the_page_without_a_key(demo: Memory, tmp_path: Path) -> None:
    client, _ = client_for(demo, tmp_path, auth=False)
    with client:
        answer = client.get("/ui", params={"scope": "bob"})
        assert answer.status_code == 200 and "orchard" in answer.text
        assert "/ui/logout" not in answer.text


def test_user_text_is_escaped_and_inert(ui: Page) -> None:
    html = ui.get(ui.alice, at="2024-04-01").text
    assert XSS not in html and "<img" not in html
    assert ESCAPED in html
    assert "&lt;img src=x onerror=&quot;alert(2)&quot;&gt;" in html
    assert re.findall(r"<script[^>]*>", html) == ['<script src="/ui/timeline.js" defer>']
    assert "onerror=" not in html.replace("onerror=&quot;", "")


def test_an_end_is_drawn_as_ended(ui: Page) -> None:
    html = ui.get(ui.alice, at="2024-05-01").text
    pet = part(html, 'title="pet">pet</div>', "</div></div>")
    bars = re.findall(r'<a class="([^"]+)"[^>]*>([^<]*)</a>', pet)
    assert bars == [("bar", "Rex"), ("bar ended open", "ended")]
    assert held(html)["pet"] == "ended"
    changes = part(html, '<ol class="changes">', "</ol>")
    assert re.search(r'pet: <span class="value">Rex</span> → <span class="none">ended</span>',
                     changes)  # fmt: skip


def test_the_as_of_list_says_what_held_on_that_date(ui: Page) -> None:
    spring = held(ui.get(ui.alice, at="2024-04-01").text)
    assert spring == {"employer": "City Hospital", "favourite_restaurant": "Sakura Sushi",
                      "home_city": "Boston", "nickname": ESCAPED, "pet": "Rex"}  # fmt: skip
    summer = held(ui.get(ui.alice, at="2024-07-01").text)
    assert summer["employer"] == "Google" and summer["home_city"] == "Seattle"
    before = held(ui.get(ui.alice, at="2023-01-01").text)
    assert set(before.values()) == {"nothing known"}


def test_the_page_draws_bars_markers_changes_and_turns(ui: Page) -> None:
    html = ui.get(ui.alice, entity="Alice", at="2024-04-01").text
    assert 'class="marker now"' in html and 'class="marker asof"' in html
    assert "as of 2024-04-01" in html
    restaurant = part(html, 'title="favourite_restaurant">', "</div></div>")
    assert re.findall(r'<a class="[^"]+"[^>]*>([^<]*)</a>', restaurant) == [
        "Italian Garden", "Sakura Sushi"]  # fmt: skip
    hover = re.search(r'title="(Sakura Sushi: [^"]+)"', restaurant)
    assert hover is not None
    assert "Alice, 2024-03-20" in hover.group(1) and "favourite restaurant now" in hover.group(1)
    changes = re.findall(r"<time[^>]*>([^<]+)</time> (\w+):", part(html, '"changes">', "</ol>"))
    assert [c for c in changes if c[1] != "pet"] == [(d, p) for d, p, _, _ in CHANGES]


def test_an_unknown_entity_and_a_bad_date_are_told(ui: Page) -> None:
    unknown = ui.get(ui.alice, entity="Zed")
    assert unknown.status_code == 404 and "Alice" in unknown.text
    bad = ui.get(ui.alice, at="someday")
    assert bad.status_code == 400 and "ISO 8601" in bad.text


def test_the_script_is_served_from_the_package(ui: Page) -> None:
    script = ui.client.get("/ui/timeline.js")
    assert script.status_code == 200
    assert script.headers["content-type"].startswith("text/javascript")
    assert "showFact" in script.text and "innerHTML" not in script.text


def test_the_scope_wall_holds_on_the_page(served: Served) -> None:
    """The REST tests' memory: Bob's key asking for Alice's scope sees nothing of hers."""
    for params in ({"scope": "alice"}, {"scope": "alice", "entity": "alice_ent"}):
        refused = served.client.get(
            "/ui", params=params, headers={"Authorization": f"Bearer {served.bob}"}
        )
        assert refused.status_code == 403
        assert not [d for d in ALICE_DATA if d in refused.text]
    nobody = served.client.get("/ui", params={"scope": "alice"})
    assert nobody.status_code == 401 and not [d for d in ALICE_DATA if d in nobody.text]


def test_a_key_whose_scope_holds_nothing_is_told_so(ui: Page) -> None:
    carol = ui.keys.create(["carol"]).key
    first = ui.get(carol)
    assert first.status_code == 200 and NOTHING_YET in first.text
    named = ui.get(carol, scope="carol")
    assert named.status_code == 200 and "holds no entity yet" in named.text
    assert "Sakura" not in first.text + named.text and "orchard" not in first.text + named.text
