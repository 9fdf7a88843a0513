"""A TCP proxy in front of the real Neo4j that can cut every connection mid-stream.

It forwards bytes unchanged. ``cut_after(n)`` arms it: once the clients have sent ``n`` more
bytes, every open connection is closed and the listener stops accepting, so the server
sees a dropped client mid-transaction and the driver sees a lost connection. Used to test
that a batch interrupted half-way leaves nothing behind.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from types import TracebackType


class CuttingProxy:
    def __init__(self, target_host: str, target_port: int) -> None:
        self._target = (target_host, target_port)
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port: int = self._listener.getsockname()[1]
        self._lock = threading.Lock()
        self._sockets: list[socket.socket] = []
        self._budget: int | None = None
        self.cut = threading.Event()
        threading.Thread(target=self._accept, daemon=True).start()

    def __enter__(self) -> CuttingProxy:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def cut_after(self, client_bytes: int) -> None:
        with self._lock:
            self._budget = client_bytes

    def close(self) -> None:
        with self._lock:
            self.cut.set()
            for sock in [self._listener, *self._sockets]:
                _close(sock)
            self._sockets.clear()

    def _accept(self) -> None:
        while not self.cut.is_set():
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(self._target)
            with self._lock:
                self._sockets += [client, upstream]
            threading.Thread(target=self._pump, args=(client, upstream, True), daemon=True).start()
            threading.Thread(target=self._pump, args=(upstream, client, False), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket, from_client: bool) -> None:
        try:
            while data := source.recv(65536):
                if from_client and self._spend(len(data)):
                    self.close()
                    return
                sink.sendall(data)
        except OSError:
            pass
        _close(source)
        _close(sink)

    def _spend(self, n: int) -> bool:
        with self._lock:
            if self._budget is None:
                return False
            self._budget -= n
            return self._budget < 0


def _close(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)
    sock.close()
