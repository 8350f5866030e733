"""The HTTP side of observability, as one pure-ASGI middleware: the request
id (``X-Request-ID``), the log context, one log line and the metrics of
every HTTP request.

It handles ``http`` scopes only and hands every other scope on at once.
The composition root adds it inside :class:`app.api.ws.RoomSockets`, so a
room's WebSocket never passes through it (every layer a socket passes
through stays on its stack for the socket's life)."""

from __future__ import annotations

import logging
import re
import time
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.api.responses import error_response

from . import context
from .metrics import Metrics

log = logging.getLogger("dicecup.http")

HEADER = b"x-request-id"
UNMATCHED = "unmatched"
"""The route label of a request no route matched (never the raw path)."""

PROBES = frozenset({"/api/health", "/api/ready", "/metrics"})
"""Logged at DEBUG, not INFO: a probe every few seconds would drown the log."""

METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
"""The methods counted under their own name; any other (WebDAV's PROPFIND,
MKCOL...: the HTTP parser knows some 35) counts as ``other``, so a client
cannot grow /metrics by a series per method."""
OTHER_METHOD = "other"

_ROOM = re.compile(r"/api/rooms/([^/]{1,16})(?:/|$)")
_UNPRINTABLE = re.compile(r"[\x00-\x1f\x7f]")


def route_template(scope: Scope) -> str:
    """The matched route's template (``/api/rooms/{code}``), or ``unmatched``."""
    path = getattr(scope.get("route"), "path", None)
    return path if isinstance(path, str) and path else UNMATCHED


def _request_id(scope: Scope) -> str:
    for name, value in scope.get("headers", ()):
        if name == HEADER:
            sane = context.sane_request_id(value.decode("latin-1"))
            if sane is not None:
                return sane
            break
    return context.new_request_id()


class RequestObservability:
    """Per HTTP request: take the client's ``X-Request-ID`` if it is sane
    (at most 64 of ``[A-Za-z0-9._-]``) or make one, put it on the response
    and in the log context (with the room code of the path), then log one
    line (method, path, route, status, duration_ms, client) and count the
    request by route template."""

    def __init__(self, app: ASGIApp, metrics: Metrics | None = None) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        request_id = _request_id(scope)
        header = (HEADER, request_id.encode())
        path: str = scope["path"]
        room = _ROOM.search(path)
        status = 500
        responded = False

        async def send_with_id(message: Message) -> None:
            nonlocal status, responded
            if message["type"] == "http.response.start":
                status, responded = message["status"], True
                message = {**message, "headers": [*message.get("headers", ()), header]}
            await send(message)

        with context.bound(request_id=request_id, room=room[1] if room else None, player_id=None, connection_id=None):
            try:
                await self.app(scope, receive, send_with_id)
            except Exception:
                if not responded:
                    # Starlette's outermost error guard would answer this 500
                    # without the request id: answer it here, then let the
                    # exception go on (the server logs it, tests see it).
                    log.exception("unhandled error on %s %s", scope["method"], _printable(path))
                    await error_response(500, "internal_error", "internal server error")(scope, receive, send_with_id)
                raise
            finally:
                self._done(scope, status, time.perf_counter() - started)

    def _done(self, scope: Scope, status: int, seconds: float) -> None:
        route = route_template(scope)
        method: str = scope["method"]
        if self.metrics is not None:
            self.metrics.http_request(method if method in METHODS else OTHER_METHOD, route, status, seconds)
        level = logging.DEBUG if route in PROBES else logging.INFO
        if log.isEnabledFor(level):
            path = _printable(scope["path"])
            duration_ms = round(seconds * 1000, 2)
            client = scope.get("client")
            extra: dict[str, Any] = {
                "method": method,
                "path": path,
                "route": route,
                "status": status,
                "duration_ms": duration_ms,
                "client": client[0] if client else None,
            }
            log.log(level, "%s %s %d %.1fms", method, path, status, duration_ms, extra=extra)


def _printable(path: str) -> str:
    """A path safe for a text log line (no control characters, bounded)."""
    return _UNPRINTABLE.sub("?", path[:300])
