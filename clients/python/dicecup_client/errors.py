"""Errors, error codes and close codes (docs/api.md "Errors" and the close-code table)."""

from __future__ import annotations

from dataclasses import dataclass

from .generated.constants import CLOSE_CODE_MEANINGS, CloseCode, ErrorCode

# ErrorCode, CloseCode and their meanings are generated from the server's
# documents (`make sdk-types`); which close codes stop a connection is this
# client's choice, made here.
__all__ = [
    "CLOSE_CODE_MEANINGS",
    "FATAL_CLOSE_CODES",
    "CloseCode",
    "ConnectionStopped",
    "DicecupError",
    "ErrorCode",
    "StopReason",
]

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
