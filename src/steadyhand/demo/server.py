"""A quiet static file server on 127.0.0.1, for the demo, the tests and the benchmarks."""

from __future__ import annotations

import functools
import http.server
import threading
from pathlib import Path


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


def serve_directory(directory: Path, port: int = 0) -> http.server.ThreadingHTTPServer:
    """Serve `directory` on 127.0.0.1 (a free port by default) from a daemon thread."""
    handler = functools.partial(QuietHandler, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def base_url(server: http.server.ThreadingHTTPServer) -> str:
    return f"http://127.0.0.1:{server.server_address[1]}"
