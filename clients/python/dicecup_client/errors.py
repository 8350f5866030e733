"""Errors, error codes and close codes (docs/api.md "Errors" and the close-code table)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum, StrEnum


class ErrorCode(StrEnum):
    """Every ``code`` an error body or a socket ``error`` message carries today.
    :attr:`DicecupError.code` is a plain string, so a code added by a newer
    server still arrives; compare with these members (``StrEnum`` equals its value)."""

    UNAUTHORIZED = "unauthorized"
    FORBIDDEN = "forbidden"
    NOT_HOST = "not_host"
    NOT_AWAY = "not_away"
    HINTS_DISABLED = "hints_disabled"
    CHAT_DISABLED = "chat_disabled"
    MUTED = "muted"
    REMOVED_FROM_ROOM = "removed_from_room"
    ROOM_NOT_FOUND = "room_not_found"
    GAME_NOT_FOUND = "game_not_found"
    PLAYER_NOT_FOUND = "player_not_found"
    PROFILE_NOT_FOUND = "profile_not_found"
    NOT_FOUND = "not_found"
    METHOD_NOT_ALLOWED = "method_not_allowed"
    TOO_LARGE = "too_large"
    INVALID_REQUEST = "invalid_request"
    TURN_SECONDS_OUT_OF_RANGE = "turn_seconds_out_of_range"
    INVALID_CURSOR = "invalid_cursor"
    RATE_LIMITED = "rate_limited"
    RATE_LIMITER_UNAVAILABLE = "rate_limiter_unavailable"
    NOT_YOUR_TURN = "not_your_turn"
    MUST_ROLL_FIRST = "must_roll_first"
    NO_ROLLS_LEFT = "no_rolls_left"
    TOO_MANY_KEEPS = "too_many_keeps"
    BOX_FILLED = "box_filled"
    UNKNOWN_BOX = "unknown_box"
    JOKER_LOWER_BOX = "joker_lower_box"
    JOKER_FORCES_UPPER = "joker_forces_upper"
    UPPER_SECTION_FIRST = "upper_section_first"
    GAME_NOT_STARTED = "game_not_started"
    GAME_OVER = "game_over"
    GAME_IN_PROGRESS = "game_in_progress"
    REMATCH_STARTED = "rematch_started"
    ROOM_FULL = "room_full"
    ROOM_CLOSED = "room_closed"
    SPECTATORS_FULL = "spectators_full"
    STALE_VERSION = "stale_version"
    ID_REUSED = "id_reused"
    RESIGNED = "resigned"
    NAME_EMPTY = "name_empty"
    NAME_TOO_LONG = "name_too_long"
    NAME_INVALID = "name_invalid"
    NAME_TAKEN = "name_taken"
    CHAT_EMPTY = "chat_empty"
    CHAT_TOO_LONG = "chat_too_long"
    CHAT_INVALID = "chat_invalid"
    USERNAME_TAKEN = "username_taken"
    WRONG_PASSWORD = "wrong_password"
    INVALID_SUBSCRIPTION = "invalid_subscription"
    TOO_MANY_SUBSCRIPTIONS = "too_many_subscriptions"
    PUSH_UNAVAILABLE = "push_unavailable"
    STRATEGY_UNAVAILABLE = "strategy_unavailable"
    SERVER_BUSY = "server_busy"
    HTTP_ERROR = "http_error"
    INTERNAL_ERROR = "internal_error"


class CloseCode(IntEnum):
    """The codes a room socket closes with."""

    NORMAL = 1000
    POLICY = 1008
    """More messages than the flood limit."""
    TOO_BIG = 1009
    """A message over the size limit."""
    KEEPALIVE = 1011
    """The client did not answer the server's pings (a stalled reader)."""
    GOING_AWAY = 1012
    """The server is shutting down."""
    TRY_AGAIN_LATER = 1013
    """The client fell too far behind."""
    BAD_HELLO = 4400
    BAD_TOKEN = 4401
    SEAT_GONE = 4403
    UNKNOWN_ROOM = 4404
    SPECTATORS_FULL = 4409
    RATE_LIMITED = 4429


FATAL_CLOSE_CODES = frozenset(
    {
        CloseCode.UNKNOWN_ROOM,
        CloseCode.BAD_TOKEN,
        CloseCode.SEAT_GONE,
        CloseCode.SPECTATORS_FULL,
        CloseCode.RATE_LIMITED,
        CloseCode.BAD_HELLO,
        CloseCode.POLICY,
        CloseCode.TOO_BIG,
    }
)
"""Close codes after which reconnecting as the same client would be refused
again: the connection stops with a :class:`StopReason`. Every other end of a
socket (1011, 1012, 1013, an abrupt network loss) is followed by a reconnect."""


class DicecupError(Exception):
    """A refusal from the server: ``code`` for programs (see :class:`ErrorCode`),
    ``detail`` for people, ``status`` the HTTP status (``None`` for a socket's
    ``error`` message). ``retry_after``: seconds, on ``rate_limited`` over REST."""

    def __init__(self, code: str, detail: str, status: int | None = None, retry_after: float | None = None) -> None:
        super().__init__(f"{code}: {detail}" + (f" (HTTP {status})" if status is not None else ""))
        self.code = code
        self.detail = detail
        self.status = status
        self.retry_after = retry_after


@dataclass(frozen=True)
class StopReason:
    """Why a room connection stopped for good.

    ``kind`` is ``"closed"`` (the program closed it), ``"fatal"`` (the
    server closed the socket with one of :data:`FATAL_CLOSE_CODES`),
    ``"gave_up"`` (reconnecting failed ``max_retries`` times in a row) or
    ``"connect_failed"`` (the first connection could not be made).
    ``code`` is the close code when there was one; ``error`` the ``error``
    message the server sent before closing (4401, 4409, 4429...), if any."""

    kind: str
    code: int | None = None
    detail: str = ""
    error: DicecupError | None = None

    @property
    def close_code(self) -> CloseCode | None:
        """``code`` as a :class:`CloseCode` when it is one of the known codes."""
        try:
            return CloseCode(self.code) if self.code is not None else None
        except ValueError:
            return None


class ConnectionStopped(Exception):
    """The room connection stopped for good (see ``reason``): raised by calls
    that need it, such as an action waiting for its answer."""

    def __init__(self, reason: StopReason) -> None:
        super().__init__(f"connection stopped ({reason.kind}, code {reason.code}): {reason.detail}")
        self.reason = reason
