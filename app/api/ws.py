"""The WebSocket protocol of ``docs/api.md``: ``GET /api/rooms/{code}/ws``."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
from typing import Any, NoReturn

import orjson
from fastapi import WebSocket, WebSocketDisconnect
from pydantic import TypeAdapter, ValidationError
from starlette.types import ASGIApp, Receive, Scope, Send

from app.config import Settings
from app.lifecycle import Turns
from app.observability.context import bind_connection, bind_seat
from app.realtime import CloseCode, Connection, Hub, messages, patch
from app.rooms import DomainError, ErrorCode, RoomService, Seat
from app.rooms.secrets import normalize_code

from .chat import CHAT, said
from .protocol import Hello, MuteMessage
from .proxies import client_address
from .ratelimit import RateLimits
from .responses import error_response
from .routes import ACTION, action_request

log = logging.getLogger("dicecup.ws")

HELLO = TypeAdapter(Hello)
MUTE = TypeAdapter(MuteMessage)
REPLAY_PAGE = 500
"""Events read from the log at a time when a client resumes far behind."""
FLUSH_BEFORE_CLOSE = 2.0
"""Seconds a socket closed for flooding has to take the replies already queued for it."""


class _Closed(Exception):
    """The client went away, or we closed the socket."""


def _error(code: str, detail: str, action_id: str | None = None) -> str:
    return messages.error(ErrorCode(code).value, detail, action_id)


async def _close_after_queued(conn: Connection, code: CloseCode, reason: str) -> NoReturn:
    """Close ``conn`` after the replies already queued for it (waiting at most
    :data:`FLUSH_BEFORE_CLOSE` seconds), then end the session."""
    conn.close(code, reason)
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(conn.closed.wait(), FLUSH_BEFORE_CLOSE)
    raise _Closed


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
        limit = self.settings.max_body_bytes
        # The limit counts bytes (a character takes up to 4 in UTF-8); the
        # server's protocol layer (ws_max_size) refuses longer frames before
        # reading them, this catches a server started without it.
        if len(text) * 4 > limit and len(text.encode()) > limit:
            self.limits.oversize_frame(client_address(self.socket.scope))
            await self.socket.close(CloseCode.TOO_BIG, f"message over {limit} bytes")
            raise _Closed
        try:
            message = orjson.loads(text)
        except orjson.JSONDecodeError:
            message = None
        if not isinstance(message, dict) or not isinstance(message.get("type"), str):
            return None
        return message

    async def refuse(self, close: CloseCode, code: str, detail: str) -> None:
        """Say why in an ``error`` message, then close with ``close``."""
        with contextlib.suppress(Exception):
            await self.socket.send_text(_error(code, detail))
            await self.socket.close(close, detail[:120])

    async def run(self) -> None:
        bind_seat(self.code, None)  # this socket's log lines carry its room (its task's context)
        address = client_address(self.socket.scope)
        wait = self.limits.dropping(address)
        if wait is not None:
            # Too many oversize frames or refusals from this address: refused before the
            # upgrade. (Connecting directly, it is dropped earlier still, by
            # app.api.edge; this is the client behind a trusted proxy.)
            detail = "too many oversize frames or refused requests from this address"
            await self.socket.send_denial_response(
                error_response(429, "rate_limited", detail, {"Retry-After": str(wait)})
            )
            return
        await self.socket.accept()
        if not self.limits.open_socket(address):
            self.limits.refused(address)
            await self.refuse(CloseCode.RATE_LIMITED, "rate_limited", "too many open sockets from this address")
            return
        try:
            await self.open(address)
        finally:
            self.limits.close_socket(address)

    async def open(self, address: str) -> None:
        try:
            await self.limits.reserve_lookup(address)  # reserved before the lookup: see RateLimits
        except DomainError as refused:
            await self.refuse(CloseCode.RATE_LIMITED, refused.code, refused.detail)
            return
        try:
            if self.hub.current_view(self.code) is None:
                await self.service.get_room(self.code)
        except DomainError:
            await self.socket.close(CloseCode.UNKNOWN_ROOM, "unknown room")
            return
        await self.limits.lookup_found(address)
        try:
            hello = await asyncio.wait_for(self.receive(), self.settings.hello_timeout)
        except TimeoutError:
            await self.socket.close(CloseCode.BAD_HELLO, "no hello")
            return
        if hello is None or hello["type"] != "hello":
            await self.refuse(CloseCode.BAD_HELLO, "invalid_request", "the first message must be a hello")
            return
        try:
            parsed = HELLO.validate_python(hello, strict=True)
        except ValidationError:
            await self.refuse(
                CloseCode.BAD_HELLO,
                "invalid_request",
                "hello takes a token (string or null), after (an int from 0) and protocol (1 or 2)",
            )
            return
        token, after = parsed.token, parsed.after
        seat: Seat | None = None
        if token is not None:
            try:
                seat = await self.service.authenticate(self.code, token)
            except DomainError as refused:
                await self.refuse(CloseCode.BAD_TOKEN, refused.code, refused.detail)
                return
        elif self.hub.spectators(self.code) >= self.settings.spectators_per_room:
            # Checked and joined with no wait between (Hub.join adds the socket
            # before it awaits anything), so racing spectators cannot overshoot.
            await self.refuse(
                CloseCode.SPECTATORS_FULL,
                "spectators_full",
                f"this room has {self.settings.spectators_per_room} spectators already",
            )
            return
        await self.serve(seat, after, parsed.protocol)

    async def serve(self, seat: Seat | None, after: int | None, protocol: int = 1) -> None:
        room_code = self.code
        seat_id = seat.player_id if seat else None
        conn = Connection(
            self.socket, room_code, seat.player_id if seat else None, self.settings.ws_queue_size, protocol
        )
        bind_connection(conn.id, room_code, seat.player_id if seat else None)
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
            conn.send_now(messages.welcome(protocol, you, room))
            self.socket.app.state.visits.opened(room_code, room)  # a lobby room someone opens is not swept
            version = room["version"]
            # (events that came meanwhile may have given it a later room: see Hub)
            conn.view_version = max(conn.view_version, version)
            if after is not None and after < version:
                await self.replay(conn, after, version, room)
            while conn.early_overflowed:
                # Live events came faster than the replay went out and were
                # dropped: read them from the log too, up to the room as it is now.
                conn.forget_early()
                conn.view_version = version  # what the client holds (the dropped events never went out)
                latest = await self.service.get_room(room_code)
                await self.replay(conn, version, latest["version"], latest)
                version = latest["version"]
            await self.hub.ready(conn, version)
            ready = True
            game = room.get("game") or {}
            absent = game.get("absent_deadline") is not None and (game.get("turn") or {}).get("player_id") == seat_id
            if you is not None and (you.get("away") or absent):
                # An away or absent seat reconnecting is back (app.lifecycle): player_back, a fresh clock on its turn.
                turns: Turns = self.socket.app.state.turns
                await turns.come_back(room_code, you["id"])
            while True:
                message = await self.receive()
                if not self.limits.allow_message(conn.id):
                    await _close_after_queued(conn, CloseCode.POLICY, "too many messages")
                if message is None:
                    conn.send(_error("invalid_request", "messages are JSON objects with a type"))
                    continue
                await self.handle(conn, seat, message)
        except (_Closed, WebSocketDisconnect):
            pass
        except RuntimeError as error:  # the socket closed under us (e.g. shut down as too slow)
            log.debug("socket %s ended: %r", conn.id, error)
        finally:
            self.limits.forget_socket(conn.id)
            await self.hub.leave(conn, was_ready=ready)
            await conn.stop()
            if seat_id is not None and ready and conn.close_code != CloseCode.GOING_AWAY:
                await self.seat_gone(room_code, seat_id)

    async def seat_gone(self, room_code: str, player_id: str) -> None:
        """The seat's last socket here closed (not the server's shutdown): it may
        be its turn in an untimed room, with nobody there (app.lifecycle.absence)."""
        if self.hub.holds_seat(room_code, player_id):
            return
        turns: Turns = self.socket.app.state.turns
        if turns.absence is None:
            return
        try:
            await turns.absence.gone(room_code, player_id)
        except Exception:  # a closed socket must not raise: the scheduler's safety net looks again later
            log.exception("could not note that seat %s of room %s left", player_id, room_code)

    async def replay(self, conn: Connection, after: int, upto: int, room: dict[str, Any]) -> None:
        """Every event after ``after`` up to version ``upto``; the last carries
        ``room`` (the room at ``upto``). Read a page at a time and sent no
        faster than the client takes them, so a client thousands of events
        behind catches up in one connection while the server holds at most a
        page and a queue of them."""
        low = conn.limit // 2
        while after < upto:
            page = await self.service.events_after(room["code"], after, REPLAY_PAGE)
            for event in page["events"]:
                if event["version"] > upto:
                    return
                if conn.queued >= conn.limit - 1:
                    await conn.wait_for_space(low)
                if conn.close_code is not None or conn.closed.is_set():
                    raise _Closed
                last = event["version"] == upto
                if conn.protocol == 1:
                    conn.send_now(messages.event_v1(event, room if last else None)[0])
                else:
                    # The client holds the welcome's room; the replay ends at
                    # a later room only after dropped live events (see serve).
                    later = last and conn.view_version < upto
                    # after the last one the client holds the room at its version
                    conn.send_now(messages.event_v2(event, patch.replace_all(room) if later else [], last))
                    if later:
                        conn.view_version = upto
                after = event["version"]
            if not page["more"]:
                return

    async def handle(self, conn: Connection, seat: Seat | None, message: dict[str, Any]) -> None:
        kind = message["type"]
        if kind == "ping":
            conn.send(messages.PONG)
        elif kind == "hello":
            await _close_after_queued(conn, CloseCode.BAD_HELLO, "second hello")
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
                conn.send(messages.ack(action_id, outcome.version))
        elif kind in ("chat", "mute"):
            await self.chat(conn, seat, message)
        else:
            conn.send(_error("invalid_request", f"unknown message type {kind!r}"))

    async def chat(self, conn: Connection, seat: Seat | None, message: dict[str, Any]) -> None:
        """A ``chat`` or ``mute`` message (``app.chat``), answered with an ``ack`` or an ``error``."""
        message_id = message.get("id") if isinstance(message.get("id"), str) else None
        if seat is None:
            conn.send(_error("forbidden", "spectators read the chat but do not write", message_id))
            return
        chat = self.socket.app.state.chat
        try:
            if message["type"] == "chat":
                text, reaction = said(CHAT.validate_python({k: v for k, v in message.items() if k != "type"}))
                await self.limits.check_chat(seat.player_id)
                version = (await chat.say(self.code, seat, text=text, reaction=reaction))["version"]
            else:
                mute = MUTE.validate_python(message)
                version = await chat.mute(self.code, seat, mute.player_id, mute.muted)
        except ValidationError as invalid:
            first = invalid.errors()[0]["msg"] if invalid.errors() else "bad message"
            conn.send(_error("invalid_request", f"invalid {message['type']}: {first}", message_id))
        except DomainError as refused:
            detail = refused.detail
            if refused.retry_after is not None:  # REST says it in Retry-After; the socket in the detail
                detail = f"{detail} (retry in {refused.retry_after} s)"
            conn.send(_error(refused.code, detail, message_id))
        else:
            conn.send(messages.ack(message_id, version))


async def room_socket(socket: WebSocket, code: str) -> None:
    # _Closed: the client went away before its hello (an oversize first frame
    # ends that way, closed 1009 by the protocol layer). Not an error: left
    # to uvicorn it would log a traceback per socket, an attacker's log flood.
    with contextlib.suppress(WebSocketDisconnect, _Closed):
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
