"""/metrics, /healthz and /readyz of the long-running reconciler, on a small threaded HTTP server."""

from __future__ import annotations

import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from mxjob_gitops.compiler.base.asciinum import whole

MAX_PORT = 65_535


def port_of(address: str) -> int | None:
    """The PORT of [HOST]:PORT, in ASCII digits from 0 to MAX_PORT; None for anything else."""
    port = whole(address.rpartition(":")[2])
    return port if port is not None and port <= MAX_PORT else None


def http_server(
    address: str, registry: Any, health: Callable[[], str], readiness: Callable[[], str]
) -> ThreadingHTTPServer:
    """Serve on [HOST]:PORT (reconcile's --metrics-address and --health-address, checked there by port_of):
    /metrics from a prometheus_client registry, /healthz and /readyz from what health() and readiness() say
    is wrong (empty when all is well)."""
    # Imported here: reconcile's flags are checked with port_of before the command tells a base install that
    # it needs the [cluster] extra, which brings prometheus_client.
    from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

    host = address.rpartition(":")[0]
    port = port_of(address)
    if port is None:
        raise ValueError(f"{address!r}: the port is not a whole number from 0 to {MAX_PORT} in the digits 0-9")

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            return

        def do_GET(self) -> None:
            if self.path == "/metrics":
                body, status, kind = generate_latest(registry), 200, CONTENT_TYPE_LATEST
            elif self.path == "/healthz":
                problem = health()
                body, status, kind = (f"{problem or 'ok'}\n".encode(), 503 if problem else 200, "text/plain")
            elif self.path == "/readyz":
                problem = readiness()
                body, status, kind = (f"{problem or 'ok'}\n".encode(), 503 if problem else 200, "text/plain")
            else:
                body, status, kind = b"not found\n", 404, "text/plain"
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer((host or "0.0.0.0", port), Handler)
    threading.Thread(target=server.serve_forever, name=f"http-{address}", daemon=True).start()
    return server
