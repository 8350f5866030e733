"""Every close code a room socket can end with (``docs/api.md`` lists when)."""

from __future__ import annotations

from enum import IntEnum


class CloseCode(IntEnum):
    GOING_AWAY = 1012
    """The server is shutting down: reconnect (possibly to another instance) with ``after``."""
    TRY_AGAIN_LATER = 1013
    """The client fell too far behind (its send queue was full): reconnect with ``after``."""
    POLICY = 1008
    """More messages than the flood limit."""
    TOO_BIG = 1009
    """A frame or message over the size limit."""
    BAD_HELLO = 4400
    """No hello in time, a first message that is not a hello, or a second hello."""
    BAD_TOKEN = 4401
    """An unknown or foreign token in the hello."""
    SEAT_GONE = 4403
    """The seat this socket stood for left the room or was removed, or its token was replaced (taken back)."""
    UNKNOWN_ROOM = 4404
    """No such room."""
    SPECTATORS_FULL = 4409
    """The room has as many spectators as it takes."""
    RATE_LIMITED = 4429
    """Too many failed room lookups, or too many open sockets, from this address."""
