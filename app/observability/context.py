"""What a log line is about: the request, room, seat and socket being served.

Context variables, so that every log record made while serving a request or
a socket carries them without passing them around. The HTTP middleware
(:mod:`app.observability.middleware`) sets the request id and the room code
of the path; the rooms service's observer adds the seat once a token is
checked; the socket code calls :func:`bind_connection`.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar, Token

request_id: ContextVar[str | None] = ContextVar("dicecup_request_id", default=None)
room_code: ContextVar[str | None] = ContextVar("dicecup_room_code", default=None)
player_id: ContextVar[str | None] = ContextVar("dicecup_player_id", default=None)
connection_id: ContextVar[str | None] = ContextVar("dicecup_connection_id", default=None)

_VARS: dict[str, ContextVar[str | None]] = {
    "request_id": request_id,
    "room": room_code,
    "player_id": player_id,
    "connection_id": connection_id,
}

_SANE_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")


def sane_request_id(value: str | None) -> str | None:
    """A client's ``X-Request-ID`` if it is safe to echo and log (at most 64
    characters of ``[A-Za-z0-9._-]``), else ``None``."""
    return value if value is not None and _SANE_ID.fullmatch(value) else None


def new_request_id() -> str:
    """32 random hex digits (an id to correlate by, not a secret: no system call)."""
    return f"{random.getrandbits(128):032x}"


def current() -> dict[str, str]:
    """The fields known in this context (absent ones left out)."""
    out = {}
    for name, var in _VARS.items():
        value = var.get()
        if value is not None:
            out[name] = value
    return out


def bind_seat(code: str | None, player: str | None) -> None:
    """The room and seat now being served (the rooms service's observer calls
    this once a token is checked). Lasts until the enclosing request's end."""
    if code is not None:
        room_code.set(code)
    if player is not None:
        player_id.set(player)


def bind_connection(connection: int | str, code: str | None = None, player: str | None = None) -> None:
    """Tag every log record of this socket with its connection id, room code
    and seat (``player`` is ``None`` for a spectator). Call it in the task
    that serves the socket, once the connection has an id; it lasts as long
    as that task (tasks the socket starts afterwards inherit it)."""
    connection_id.set(str(connection))
    room_code.set(code)
    player_id.set(player)


@contextmanager
def bound(**fields: str | None) -> Iterator[None]:
    """Set some of ``request_id``, ``room``, ``player_id``, ``connection_id``
    for the block only."""
    tokens: list[tuple[ContextVar[str | None], Token[str | None]]] = []
    try:
        for name, value in fields.items():
            var = _VARS[name]
            tokens.append((var, var.set(value)))
        yield
    finally:
        for var, token in reversed(tokens):
            var.reset(token)
