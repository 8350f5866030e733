"""The server's edge, below the ASGI app: uvicorn's HTTP and WebSocket
protocols as ``python -m app serve`` runs them, with the oversize-frame gate
of :class:`~app.api.ratelimit.RateLimits`.

A client that sends frames over the size limit is closed 1009 from each
frame's header, but every such socket has cost a TCP connection, an HTTP
upgrade, a WebSocket handshake and a session first (about 0.6 ms of the
event loop's time, bench/RESULTS.md), and a hundred of them at once stall
every player for tens of milliseconds. So each frame refused as too big is
a strike against its address (:class:`GatedWebSocket`), and past the
minute's budget (``DICECUP_OVERSIZE_FRAMES_PER_MINUTE``) the address's new
connections are aborted the moment they are made (:class:`GatedHttp`),
before a byte is read: about 0.035 ms each. For a few seconds the first
time, longer only if the address keeps at it (:mod:`app.api.gate`): one
address may be a whole household or school. The same gate drops an address
that keeps knocking after being refused for its budget (429, close 4429;
``DICECUP_REFUSALS_PER_MINUTE``): a room-code prober's every socket is a
whole handshake otherwise. A trusted proxy's connections
are never dropped here (they carry other clients too); the room socket
refuses those clients after the handshake's headers (``app.api.ws``).
"""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.exceptions import PayloadTooBig

from .proxies import client_address
from .ratelimit import RateLimits


def _limits(app: Any) -> RateLimits | None:
    """The app's rate limits (set at startup), through any ASGI wrappers uvicorn added."""
    for _ in range(4):
        state = getattr(app, "state", None)
        limits = getattr(state, "limits", None) if state is not None else None
        if isinstance(limits, RateLimits):
            return limits
        app = getattr(app, "app", None)
        if app is None:
            return None
    return None


class GatedHttp(HttpToolsProtocol):
    """uvicorn's HTTP protocol (httptools), which first drops a connection
    from an address :meth:`RateLimits.drop_connection` names."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        limits = _limits(self.app)
        if limits is not None:
            peer = transport.get_extra_info("peername")
            if isinstance(peer, tuple) and peer and limits.drop_connection(str(peer[0])):
                transport.abort()  # no answer: the client sees its connection reset
                return
        super().connection_made(transport)

    def connection_lost(self, exc: Exception | None) -> None:
        if self.transport is None:  # dropped in connection_made: nothing was set up
            return
        super().connection_lost(exc)


class GatedWebSocket(WebSocketsSansIOProtocol):
    """uvicorn's WebSocket protocol (websockets, Sans-I/O), which counts each
    frame it refuses as too big against the client's address, and which
    closes a handshake still waiting on the app at shutdown as a restart."""

    def shutdown(self) -> None:
        """The server is stopping. uvicorn closes an open socket 1012 (service
        restart: the clients reconnect, to this instance once it is back or to
        another) but answers a handshake the app has not yet accepted with
        500, and then logs an error when the app's accept finds the
        connection gone. That handshake is accepted here and closed 1012 in
        the same write, as the open sockets are; the app's accept then
        finds the socket disconnected (ClientDisconnected, which the room
        socket takes as a client gone)."""
        if not self.handshake_initiated or self.handshake_complete or self.initial_response is not None:
            super().shutdown()
            return
        self.stop_keepalive()
        self.handshake_complete = True
        self.close_sent = True
        self.disconnected = True
        self.conn.send_response(self.response)
        self.conn.send_close(1012)
        self.transport.write(b"".join(self.conn.data_to_send()))
        self.queue.put_nowait({"type": "websocket.disconnect", "code": 1012})
        self.transport.close()

    def handle_parser_exception(self) -> None:
        if isinstance(self.conn.parser_exc, PayloadTooBig):
            limits = _limits(self.app)
            scope = getattr(self, "scope", None)
            if limits is not None and scope is not None:
                limits.oversize_frame(client_address(scope))
        super().handle_parser_exception()


def uvicorn_options(max_size: int) -> dict[str, Any]:
    """What ``python -m app serve`` (and the tests' live servers) give uvicorn
    for the protocols: these classes, and the frame limit (frames over the
    message limit are refused by the protocol layer from their header,
    close 1009, before their payload is read)."""
    return {"http": GatedHttp, "ws": GatedWebSocket, "ws_max_size": max_size}
