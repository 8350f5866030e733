"""Every close code a room socket can end with (``docs/api.md`` lists when)."""

from __future__ import annotations

from enum import IntEnum


class CloseCode(IntEnum):
    """Each member's :attr:`meaning` is what ``/api/protocol.json`` says of it."""

    GOING_AWAY = 1012
    TRY_AGAIN_LATER = 1013
    POLICY = 1008
    TOO_BIG = 1009
    BAD_HELLO = 4400
    BAD_TOKEN = 4401
    SEAT_GONE = 4403
    UNKNOWN_ROOM = 4404
    SPECTATORS_FULL = 4409
    RATE_LIMITED = 4429

    @property
    def meaning(self) -> str:
        return _MEANINGS[self]


_MEANINGS = {
    CloseCode.GOING_AWAY: "the server is shutting down: reconnect (possibly to another instance) with after",
    CloseCode.TRY_AGAIN_LATER: "the client fell too far behind (its send queue was full): reconnect with after",
    CloseCode.POLICY: "more messages than the flood limit",
    CloseCode.TOO_BIG: "a frame or message over the size limit",
    CloseCode.BAD_HELLO: "no hello in time, a first message that is not a hello, or a second hello",
    CloseCode.BAD_TOKEN: "an unknown or foreign token in the hello",
    CloseCode.SEAT_GONE: "this socket's seat left the room or was removed, or its token was replaced (taken back)",
    CloseCode.UNKNOWN_ROOM: "no such room",
    CloseCode.SPECTATORS_FULL: "the room has as many spectators as it takes",
    CloseCode.RATE_LIMITED: "too many failed room lookups, or too many open sockets, from this address",
}
