"""The security headers of every HTTP answer (docs/api.md, "Security headers").

Every answer: ``X-Content-Type-Options: nosniff`` (a JSON body is never
taken for a script or a page) and ``Referrer-Policy: no-referrer`` (a room's
link, ``/r/CODE``, is never handed to another site). The pages and the
service worker also get the content security policy :data:`POLICY` (the
client's scripts, styles, fonts, images and connections are its own origin's
only; no plugin, no other base; no page may frame it) and ``X-Frame-Options:
DENY`` for browsers that predate ``frame-ancestors``.

``style-src-attr 'unsafe-inline'`` allows ``style`` attributes (the client
sets custom properties such as a bar's length in them) but no ``<style>``
element or stylesheet from elsewhere; scripts get no such allowance. The
shipped nginx config (``deploy/nginx.conf.template``) sends the same headers
(a test keeps the two the same)."""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

POLICY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "style-src-attr 'unsafe-inline'",
        "img-src 'self'",
        "font-src 'self'",
        "connect-src 'self'",
        "worker-src 'self'",
        "manifest-src 'self'",
        "object-src 'none'",
        "base-uri 'self'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)
"""The client's content security policy (``'self'`` covers its own ``ws:``/``wss:`` sockets)."""

EVERY: list[tuple[bytes, bytes]] = [
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
]
PAGES: list[tuple[bytes, bytes]] = [
    (b"content-security-policy", POLICY.encode()),
    (b"x-frame-options", b"DENY"),
]
WORKER = "/sw.js"


class SecurityHeaders:
    """Adds :data:`EVERY` to each HTTP answer, and :data:`PAGES` to HTML
    answers and the service worker's script (whose policy its fetches obey)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        worker = scope["path"] == WORKER

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", ()))
                names = {name.lower() for name, _ in headers}
                kind = next((value for name, value in headers if name.lower() == b"content-type"), b"")
                extra = EVERY + (PAGES if worker or kind.startswith(b"text/html") else [])
                headers += [(name, value) for name, value in extra if name not in names]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)
