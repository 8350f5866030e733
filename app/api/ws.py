"""The WebSocket protocol of ``API.md``: ``GET /api/rooms/{code}/ws``."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
from typing import Any

import orjson
from fastapi import WebSocket, WebSocketDisconnect
from pydantic import ValidationError
from starlette.types import ASGIApp, Receive, Scope, Send

from app.config import Settings
from app.realtime import Connection, Hub
from app.rooms import DomainError, RoomService, Seat
from app.rooms.secrets import normalize_code

from .ratelimit import RateLimits
from .routes import ACTION, action_request

log = logging.getLogger("dicecup.ws")

CLOSE_UNKNOWN_ROOM = 4404
CLOSE_BAD_TOKEN = 4401
CLOSE_BAD_HELLO = 4400
CLOSE_POLICY = 1008
CLOSE_TOO_BIG = 1009
REPLAY_PAGE = 500


class _Closed(Exception):
    """The client went away, or we closed the socket."""


def _dump(payload: dict[str, Any]) -> str:
    return orjson.dumps(payload).decode()


def _error(code: str, detail: str, action_id: str | None = None) -> str:
    return _dump({"type": "error", "id": action_id, "code": code, "detail": detail})


class Session:
    """One socket's conversation, from hello to close."""

    def __init__(self, socket: WebSocket, code: str) -> None:
        self.socket = socket
        self.code = normalize_code(code)
        state = socket.app.state
        self.service: RoomService = state.service
        self.hub: Hub = state.hub
        self.limits: RateLimits = state.limits
        self.settings: Settings = state.settings

    async def receive(self) -> dict[str, Any] | None:
        """The next message as a dict, or ``None`` after sending an error for a bad one."""
        raw = await self.socket.receive()
        if raw["type"] == "websocket.disconnect":
            raise _Closed
        text = raw.get("text")
        if text is None and raw.get("bytes") is not None:
            try:
                text = raw["bytes"].decode()
            except UnicodeDecodeError:
                text = ""
        text = text or ""
        if len(text) > self.settings.max_body_bytes:
            await self.socket.close(CLOSE_TOO_BIG, "message over 16 KiB")
            raise _Closed
        try:
            message = orjson.loads(text)
        except orjson.JSONDecodeError:
            message = None
        if not isinstance(message, dict) or not isinstance(message.get("type"), str):
            return None
        return message

    async def run(self) -> None:
        await self.socket.accept()
        try:
            if self.hub.current_view(self.code) is None:
                await self.service.get_room(self.code)
        except DomainError:
            await self.socket.close(CLOSE_UNKNOWN_ROOM, "unknown room")
            return
        try:
            hello = await asyncio.wait_for(self.receive(), self.settings.hello_timeout)
        except TimeoutError:
            await self.socket.close(CLOSE_BAD_HELLO, "no hello")
            return
        if hello is None or hello["type"] != "hello":
            await self.socket.send_text(_error("invalid_request", "the first message must be a hello"))
            await self.socket.close(CLOSE_BAD_HELLO, "no hello")
            return
        after = hello.get("after")
        token = hello.get("token")
        if (after is not None and (type(after) is not int or after < 0)) or not isinstance(token, str | None):
            await self.socket.send_text(
                _error("invalid_request", "hello takes a token (string or null) and after (int)")
            )
            await self.socket.close(CLOSE_BAD_HELLO, "bad hello")
            return
        seat: Seat | None = None
        if token is not None:
            try:
                seat = await self.service.authenticate(self.code, token)
            except DomainError as refused:
                await self.socket.send_text(_error(refused.code, refused.detail))
                await self.socket.close(CLOSE_BAD_TOKEN, "bad token")
                return
        await self.serve(seat, after)

    async def serve(self, seat: Seat | None, after: int | None) -> None:
        room_code = self.code
        conn = Connection(self.socket, room_code, seat.player_id if seat else None, self.settings.ws_queue_size)
        conn.start()
        ready = False
        try:
            await self.hub.join(conn)
            room = self.hub.current_view(room_code)
            if room is None:
                room = await self.service.get_room(room_code)
                self.hub.remember(room_code, room)
            you = next((p for p in room["players"] if seat and p["id"] == seat.player_id), None)
            if you is not None:
                you["connected"] = True  # this very socket; the presence message follows
            conn.send_now(_dump({"type": "welcome", "you": you, "room": room}))
            version = room["version"]
            if after is not None and after < version:
                await self.replay(conn, after, room)
            await self.hub.ready(conn, version)
            ready = True
            while True:
                message = await self.receive()
                if not await self.limits.allow_message(conn.id):
                    await self.socket.close(CLOSE_POLICY, "too many messages")
                    raise _Closed
                if message is None:
                    conn.send(_error("invalid_request", "messages are JSON objects with a type"))
                    continue
                await self.handle(conn, seat, message)
        except (_Closed, WebSocketDisconnect):
            pass
        except RuntimeError as error:  # the socket closed under us (e.g. shut down as too slow)
            log.debug("socket %s ended: %r", conn.id, error)
        finally:
            await self.hub.leave(conn, was_ready=ready)
            await conn.stop()

    async def replay(self, conn: Connection, after: int, room: dict[str, Any]) -> None:
        """Every event after ``after`` up to the welcome's version; the last carries the room."""
        version = room["version"]
        while after < version:
            page = await self.service.events_after(room["code"], after, REPLAY_PAGE)
            for event in page["events"]:
                if event["version"] > version:
                    return
                view = room if event["version"] == version else None
                conn.send_now(_dump({"type": "event", "event": event, "room": view}))
                after = event["version"]
            if not page["more"]:
                return

    async def handle(self, conn: Connection, seat: Seat | None, message: dict[str, Any]) -> None:
        kind = message["type"]
        if kind == "ping":
            conn.send('{"type":"pong"}')
        elif kind == "hello":
            await self.socket.close(CLOSE_BAD_HELLO, "second hello")
            raise _Closed
        elif kind == "action":
            raw = message.get("action")
            action_id = raw.get("id") if isinstance(raw, dict) and isinstance(raw.get("id"), str) else None
            if seat is None:
                conn.send(_error("forbidden", "spectators cannot act", action_id))
                return
            try:
                request = action_request(ACTION.validate_python(raw))
                await self.limits.check_action(seat.player_id)
                outcome = await self.service.act(self.code, seat, request)
            except ValidationError as invalid:
                first = invalid.errors()[0]["msg"] if invalid.errors() else "bad action"
                conn.send(_error("invalid_request", f"invalid action: {first}", action_id))
            except DomainError as refused:
                conn.send(_error(refused.code, refused.detail, action_id))
            else:
                conn.send(_dump({"type": "ack", "id": action_id, "version": outcome.version}))
        else:
            conn.send(_error("invalid_request", f"unknown message type {kind!r}"))


async def room_socket(socket: WebSocket, code: str) -> None:
    with contextlib.suppress(WebSocketDisconnect):
        await Session(socket, code).run()


_SOCKET_PATH = re.compile(r"/api/rooms/(?P<code>[^/]+)/ws")


class RoomSockets:
    """ASGI middleware that serves ``GET /api/rooms/{code}/ws``: it hands a
    room's WebSocket straight to :func:`room_socket`, past the framework's
    inner middleware and router, and passes everything else on.

    Every layer an ASGI call goes through stays on the stack, a suspended
    coroutine, for as long as the socket is open (a socket held about 28).
    Sockets are long-lived and many (10,000 on one instance): skipping the
    inner layers took an idle socket from 39.5 to 30.2 KiB (bench/RESULTS.md).
    The outermost layers stay: uvicorn's proxy headers and Starlette's
    server-error guard."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            path, root = scope["path"], scope.get("root_path", "")
            if root and path.startswith(root):  # served under a prefix (uvicorn --root-path)
                path = path[len(root) :]
            match = _SOCKET_PATH.fullmatch(path)
            if match is not None:
                await room_socket(WebSocket(scope, receive, send), match["code"])
                return
        await self.app(scope, receive, send)
