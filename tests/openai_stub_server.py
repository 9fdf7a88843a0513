"""A real OpenAI-compatible HTTP server on 127.0.0.1 for tests, serving POST /v1/embeddings
and, when given an upstream server, POST /v1/chat/completions (forwarded to that server with its
own model name, so a "hosted" model answers with the local one's words). Given ``chat_reply``
instead, every chat completion answers that text; given ``chat_error`` (status, message), every
chat request gets that OpenAI-style error. GET /v1/models lists no model (a server that is up).

Vectors are deterministic: each text seeds a local numpy Random with its sha256, so the same
text always gets the same vector. Every request's path, JSON body and Authorization header is
recorded. Anything else (another path, a body without string inputs) gets an OpenAI-style
error, so a client that sends something unexpected fails loudly.
"""

from __future__ import annotations

import base64
import hashlib
import json
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

import numpy as np

EMBEDDINGS_PATH = "/v1/embeddings"
CHAT_PATH = "/v1/chat/completions"
MODELS_PATH = "/v1/models"


@dataclass(frozen=True)
class RecordedRequest:
    path: str
    body: dict[str, Any]
    authorization: str | None


def stub_vector(text: str, dimensions: int) -> np.ndarray[Any, np.dtype[np.float32]]:
    """The (not normalised) vector the stub returns for ``text``."""
    seed = int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "big")
    return np.random.default_rng(seed).normal(size=dimensions).astype(np.float32)


class OpenAIStubServer:
    """Serves on a free port while used as a context manager; ``url`` is the API base."""

    def __init__(
        self,
        dimensions: int = 16,
        chat_upstream: str | None = None,
        upstream_model: str = "",
        chat_reply: str | None = None,
        chat_error: tuple[int, str] | None = None,
    ) -> None:
        self.dimensions = dimensions
        self.chat_upstream = chat_upstream
        self.upstream_model = upstream_model
        self.chat_reply = chat_reply
        self.chat_error = chat_error
        self.requests: list[RecordedRequest] = []
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def record(self, request: RecordedRequest) -> None:
        with self._lock:
            self.requests.append(request)

    def embeddings(self, body: dict[str, Any]) -> dict[str, Any]:
        """The OpenAI response to an embeddings request body; ValueError on a bad body."""
        texts = body.get("input")
        texts = [texts] if isinstance(texts, str) else texts
        if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
            raise ValueError(f"input must be a string or a list of strings, not {texts!r}")
        dims = int(body.get("dimensions") or self.dimensions)
        as_base64 = body.get("encoding_format") == "base64"
        data = []
        for index, text in enumerate(texts):
            vector = stub_vector(text, dims)
            encoded = base64.b64encode(vector.tobytes()).decode() if as_base64 else vector.tolist()
            data.append({"object": "embedding", "index": index, "embedding": encoded})
        tokens = sum(len(t.split()) for t in texts)
        usage = {"prompt_tokens": tokens, "total_tokens": tokens}
        return {"object": "list", "data": data, "model": body.get("model"), "usage": usage}

    def chat(self, body: dict[str, Any]) -> dict[str, Any]:
        """The upstream server's answer to a chat request, asked under its own model name
        (or ``chat_reply``)."""
        import httpx

        if self.chat_reply is not None:
            return _completion(body, self.chat_reply)
        if self.chat_upstream is None:
            raise ValueError("this stub serves no chat completions (no upstream given)")
        forwarded = {**body, "model": self.upstream_model, "stream": False}
        reply = httpx.post(f"{self.chat_upstream}/chat/completions", json=forwarded, timeout=600)
        reply.raise_for_status()
        answer: dict[str, Any] = reply.json()
        answer["model"] = body.get("model")
        return answer

    def __enter__(self) -> OpenAIStubServer:
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join()


def _handler_for(stub: OpenAIStubServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            try:
                body = json.loads(self.rfile.read(length) or b"{}")
            except json.JSONDecodeError as exc:
                self._reply(400, _error(f"body is not JSON: {exc}"))
                return
            stub.record(RecordedRequest(self.path, body, self.headers.get("Authorization")))
            if self.path == CHAT_PATH and stub.chat_error is not None:
                status, message = stub.chat_error
                self._reply(status, _error(message))
                return
            routes = {EMBEDDINGS_PATH: stub.embeddings, CHAT_PATH: stub.chat}
            if self.path not in routes:
                self._reply(404, _error(f"no route {self.path}"))
                return
            try:
                self._reply(200, routes[self.path](body))
            except ValueError as exc:
                self._reply(400, _error(str(exc)))

        def do_GET(self) -> None:
            if self.path == MODELS_PATH:
                self._reply(200, {"object": "list", "data": []})
            else:
                self._reply(404, _error(f"no route {self.path}"))

        def _reply(self, status: int, payload: dict[str, Any]) -> None:
            raw = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: tests read ``stub.requests`` instead of the access log."""

    return Handler


def _completion(body: dict[str, Any], text: str) -> dict[str, Any]:
    """An OpenAI chat completion whose one choice says ``text``."""
    message = {"role": "assistant", "content": text}
    return {
        "id": "chatcmpl-stub",
        "object": "chat.completion",
        "created": 0,
        "model": body.get("model"),
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }


def _error(message: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": "invalid_request_error", "code": None}}
