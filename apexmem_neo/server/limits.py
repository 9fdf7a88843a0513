"""The request body limit: a body larger than ``max_bytes`` is refused with 413, by its
Content-Length before a byte is read, or as soon as a chunked body grows past the limit.

The middleware reads the body itself (at most ``max_bytes`` of it) and hands it on whole, so
the refusal never depends on how a route reads its body.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from apexmem_neo.server.errors import error_response


class BodyLimit:
    """ASGI middleware that answers 413 ``too_large`` for bodies over ``max_bytes``."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope["headers"]).get(b"content-length", b"")
        if declared.isdigit() and int(declared) > self.max_bytes:
            await self._refuse(scope, receive, send)
            return
        body = await self._read(receive)
        if body is None:
            await self._refuse(scope, receive, send)
            return
        await self.app(scope, _replay(body, receive), send)

    async def _read(self, receive: Receive) -> bytes | None:
        """The whole body (what came, if the client left), or None once it passes the limit."""
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return b"".join(chunks)
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_bytes:
                return None
            chunks.append(chunk)
            if not message.get("more_body", False):
                return b"".join(chunks)

    async def _refuse(self, scope: Scope, receive: Receive, send: Send) -> None:
        message = f"request body over the limit of {self.max_bytes} bytes"
        await error_response(413, "too_large", message)(scope, receive, send)


def _replay(body: bytes, receive: Receive) -> Receive:
    """A ``receive`` that gives ``body`` once, then waits on the real one (disconnects)."""
    sent = False

    async def replayed() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replayed
