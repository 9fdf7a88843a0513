"""``/ui``: the timeline page, served by the REST app behind the same keys.

A browser signs in once with the login form (``POST /ui/login``): the key travels in the POST
body and comes back as an HttpOnly, SameSite=Strict cookie limited to ``/ui``, so it is never
in a URL, a log line or the page's script. A client may send ``Authorization: Bearer KEY``
instead. Either way the app's own ``Auth`` checks the key on every request (a revoked key is
refused at once), a scope the key does not hold answers 403, and ``--no-auth`` opens the page
as it opens the API. The page itself is a read of ``Memory`` (``timeline.build_timeline``)
rendered to HTML by ``ui_html``; its one script is served from the package.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from importlib import resources
from typing import Annotated, Final
from urllib.parse import parse_qs, urlsplit

from fastapi import FastAPI, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.security import HTTPAuthorizationCredentials
from fastapi.security.utils import get_authorization_scheme_param

from apexmem_neo.errors import UnknownEntityError
from apexmem_neo.memory.core import Memory
from apexmem_neo.memory.messages import check_scope
from apexmem_neo.ontology import Entity, Role
from apexmem_neo.server.auth import Auth, Caller
from apexmem_neo.server.errors import ApiError
from apexmem_neo.server.timeline import PAGE, build_timeline, moment
from apexmem_neo.server.ui_html import Choices, login_page, notice_page, timeline_page

COOKIE: Final = "apexmem_ui_key"
"""The cookie that carries the key after the login form (HttpOnly, path /ui)."""
HEADERS: Final = {
    "Content-Security-Policy": "default-src 'none'; script-src 'self'; "
    "style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}
"""Sent with every page: only the server's own script runs, nothing is cached or framed."""
UI_PATHS: Final = frozenset({"/ui", "/ui/login", "/ui/logout", "/ui/timeline.js"})
"""The page's routes: they answer HTML (the login form for a missing key, not a JSON error),
and the script and the login and logout forms hold no memory data."""
NOTHING_YET: Final = "No scope of this key holds anything yet."
CROSS_SITE: Final = "This form was posted from another site; sign in from this page."
ScopeQ = Annotated[str | None, Query(description="Whose memory (default: the key's first).")]
EntityQ = Annotated[str | None, Query(description="The entity: id, name or alias.")]
AtQ = Annotated[str | None, Query(description="The as-of date, ISO 8601 (default today).")]


def now() -> datetime:
    """The present as a naive UTC datetime, the form every stored time has."""
    return datetime.now(UTC).replace(tzinfo=None, microsecond=0)


def page(html: str, status: int = 200) -> HTMLResponse:
    return HTMLResponse(html, status_code=status, headers=HEADERS)


def credentials_of(request: Request) -> HTTPAuthorizationCredentials | None:
    """The key a request carries: its bearer header, else the login cookie."""
    scheme, token = get_authorization_scheme_param(request.headers.get("Authorization"))
    if scheme.lower() == "bearer" and token:
        return HTTPAuthorizationCredentials(scheme="Bearer", credentials=token)
    key = request.cookies.get(COOKIE)
    return HTTPAuthorizationCredentials(scheme="Bearer", credentials=key) if key else None


def signed_in(request: Request) -> Caller | HTMLResponse:
    """The caller, or the login page (401) when the request has no live key."""
    auth: Auth = request.app.state.auth
    given = credentials_of(request)
    try:
        return auth.caller(given)
    except ApiError as refused:
        return page(login_page(None if given is None else str(refused)), 401)


def cross_site(request: Request) -> bool:
    """A form posted from another site (an Origin header naming another host than the one
    asked): refused, so no other page can sign a browser in or out."""
    origin = request.headers.get("origin")
    return origin is not None and urlsplit(origin).netloc != request.headers.get("host")


def add_ui_routes(app: FastAPI, memory: Memory) -> None:
    """``GET /ui``, the login and logout forms and the page's script."""

    @app.get("/ui", include_in_schema=False)
    def timeline(
        request: Request, scope: ScopeQ = None, entity: EntityQ = None, at: AtQ = None
    ) -> Response:
        who = signed_in(request)
        if isinstance(who, Response):
            return who
        return render(memory, who, scope, entity, at, logout=COOKIE in request.cookies)

    @app.post("/ui/login", include_in_schema=False)
    async def login(request: Request) -> Response:
        if cross_site(request):
            return page(login_page(CROSS_SITE), 403)
        form = parse_qs((await request.body()).decode("utf-8", "replace"))
        key = (form.get("key") or [""])[0].strip()
        auth: Auth = request.app.state.auth
        try:
            auth.caller(HTTPAuthorizationCredentials(scheme="Bearer", credentials=key))
        except ApiError as refused:
            return page(login_page(str(refused) if key else None), 401)
        done = RedirectResponse("/ui", status_code=303, headers=HEADERS)
        done.set_cookie(COOKIE, key, path="/ui", httponly=True, samesite="strict",
                        secure=request.url.scheme == "https")  # fmt: skip
        return done

    @app.post("/ui/logout", include_in_schema=False)
    def logout(request: Request) -> Response:
        if cross_site(request):
            return page(login_page(CROSS_SITE), 403)
        done = RedirectResponse("/ui", status_code=303, headers=HEADERS)
        done.delete_cookie(COOKIE, path="/ui", httponly=True, samesite="strict")
        return done

    @app.get("/ui/timeline.js", include_in_schema=False)
    def script() -> Response:
        text = resources.files("apexmem_neo.server").joinpath("static/timeline.js").read_text()
        return Response(text, media_type="text/javascript", headers=HEADERS)


def render(
    memory: Memory,
    who: Caller,
    scope: str | None,
    entity: str | None,
    at: str | None,
    *,
    logout: bool,
) -> HTMLResponse:
    """The page for the caller's choice: 403 for a scope the key does not hold, 400 for a
    bad scope name or date, 404 for an entity the scope does not know."""
    scopes = [s for s in memory.scopes() if who.may_read(s)]
    chosen = scope or (scopes[0] if scopes else None)
    choices = Choices(scopes, chosen, [], None, (at or now().isoformat())[:10], logout)
    if chosen is None:
        return page(notice_page("apexmem timeline", choices, NOTHING_YET))
    if not who.may_read(chosen):
        message = f"This API key does not hold scope {chosen!r}."
        return page(notice_page("apexmem timeline", replace(choices, scope=None), message), 403)
    try:
        when = moment(at) if at else now()
        check_scope(chosen)
    except ValueError as bad:
        return page(notice_page("apexmem timeline", choices, str(bad)), 400)
    return render_scope(memory, choices, entity, when)


def render_scope(
    memory: Memory, choices: Choices, entity: str | None, at: datetime
) -> HTMLResponse:
    """The chosen scope's page: its entities in the form, the chosen one's timeline."""
    scope = choices.scope or ""
    listed = memory.entities(scope, limit=PAGE).items
    if scope not in choices.scopes:
        choices = replace(choices, scopes=[*choices.scopes, scope])
    wanted = entity or default_entity(listed)
    if wanted is None:
        message = f"Scope {scope!r} holds no entity yet."
        return page(notice_page("apexmem timeline", replace(choices, entities=listed), message))
    try:
        drawn = build_timeline(memory, scope, wanted, at, now())
    except UnknownEntityError as unknown:
        refused = notice_page("apexmem timeline", replace(choices, entities=listed), str(unknown))
        return page(refused, 404)
    shown_id = drawn.entity.entity_id
    if all(x.entity_id != shown_id for x in listed):
        listed = [drawn.entity, *listed]
    return page(timeline_page(replace(choices, entities=listed, entity_id=shown_id), drawn))


def default_entity(entities: list[Entity]) -> str | None:
    """The entity a scope opens on: its first speaker, else its first entity."""
    speakers = [x for x in entities if x.role == Role.SPEAKER]
    first = (speakers or entities)[:1]
    return first[0].entity_id if first else None
