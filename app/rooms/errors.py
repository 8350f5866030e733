"""One error family for everything the service refuses, with the status
``docs/api.md`` gives each code. The API layer turns these into responses
(REST) and ``error`` messages (WebSocket); :class:`ErrorCode` is the one list
of codes both use, and the OpenAPI document's enum."""

from __future__ import annotations

from enum import StrEnum


class ErrorCode(StrEnum):
    """Every ``code`` an error body or an ``error`` message can carry."""

    # who you are
    UNAUTHORIZED = "unauthorized"
    FORBIDDEN = "forbidden"
    NOT_HOST = "not_host"
    NOT_AWAY = "not_away"
    HINTS_DISABLED = "hints_disabled"
    CHAT_DISABLED = "chat_disabled"
    MUTED = "muted"
    REMOVED_FROM_ROOM = "removed_from_room"
    # what you asked for
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
    # the rules
    NOT_YOUR_TURN = "not_your_turn"
    MUST_ROLL_FIRST = "must_roll_first"
    NO_ROLLS_LEFT = "no_rolls_left"
    TOO_MANY_KEEPS = "too_many_keeps"
    BOX_FILLED = "box_filled"
    UNKNOWN_BOX = "unknown_box"
    JOKER_LOWER_BOX = "joker_lower_box"
    JOKER_FORCES_UPPER = "joker_forces_upper"
    UPPER_SECTION_FIRST = "upper_section_first"
    # the room
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
    # names (app.rooms.names)
    NAME_EMPTY = "name_empty"
    NAME_TOO_LONG = "name_too_long"
    NAME_INVALID = "name_invalid"
    NAME_TAKEN = "name_taken"
    # chat (app.chat)
    CHAT_EMPTY = "chat_empty"
    CHAT_TOO_LONG = "chat_too_long"
    CHAT_INVALID = "chat_invalid"
    # profiles
    USERNAME_TAKEN = "username_taken"
    WRONG_PASSWORD = "wrong_password"
    # turn notifications (app.notify)
    INVALID_SUBSCRIPTION = "invalid_subscription"
    TOO_MANY_SUBSCRIPTIONS = "too_many_subscriptions"
    PUSH_UNAVAILABLE = "push_unavailable"
    # the server
    STRATEGY_UNAVAILABLE = "strategy_unavailable"
    SERVER_BUSY = "server_busy"
    HTTP_ERROR = "http_error"
    INTERNAL_ERROR = "internal_error"


STATUS = {
    "unauthorized": 401,
    "forbidden": 403,
    "not_host": 403,
    "not_away": 403,
    "hints_disabled": 403,
    "chat_disabled": 403,
    "muted": 403,
    "removed_from_room": 403,
    "wrong_password": 403,
    "room_not_found": 404,
    "game_not_found": 404,
    "player_not_found": 404,
    "profile_not_found": 404,
    "not_found": 404,
    "method_not_allowed": 405,
    "too_large": 413,
    "invalid_request": 422,
    "turn_seconds_out_of_range": 422,
    "invalid_cursor": 422,
    "name_empty": 422,
    "name_too_long": 422,
    "name_invalid": 422,
    "invalid_subscription": 422,
    "chat_empty": 422,
    "chat_too_long": 422,
    "chat_invalid": 422,
    "rate_limited": 429,
    "internal_error": 500,
    "strategy_unavailable": 503,
    "push_unavailable": 503,
    "rate_limiter_unavailable": 503,
    "server_busy": 503,
}
"""Every other code (the rules' refusals, ``room_full``, ``stale_version``...) is a 409."""


class DomainError(Exception):
    """A refusal with a machine-readable ``code`` and a human ``detail``.
    ``retry_after`` (seconds) goes out as the ``Retry-After`` header of a 429 (or a 503 that knows it)."""

    def __init__(self, code: str, detail: str, status: int | None = None, retry_after: int | None = None) -> None:
        super().__init__(detail)
        self.code = ErrorCode(code).value
        self.detail = detail
        self.status = status if status is not None else STATUS.get(code, 409)
        self.retry_after = retry_after

    def __repr__(self) -> str:
        return f"DomainError({self.code!r}, {self.detail!r}, {self.status})"
