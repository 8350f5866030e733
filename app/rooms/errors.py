"""One error family for everything the service refuses, with the status
``API.md`` gives each code. The API layer turns these into responses."""

from __future__ import annotations

STATUS = {
    "unauthorized": 401,
    "forbidden": 403,
    "not_host": 403,
    "hints_disabled": 403,
    "room_not_found": 404,
    "game_not_found": 404,
    "player_not_found": 404,
    "too_large": 413,
    "invalid_request": 422,
    "rate_limited": 429,
    "strategy_unavailable": 503,
}
"""Every other code (the rules' refusals, ``room_full``, ``stale_version``...) is a 409."""


class DomainError(Exception):
    """A refusal with a machine-readable ``code`` and a human ``detail``."""

    def __init__(self, code: str, detail: str, status: int | None = None) -> None:
        super().__init__(detail)
        self.code = code
        self.detail = detail
        self.status = status if status is not None else STATUS.get(code, 409)

    def __repr__(self) -> str:
        return f"DomainError({self.code!r}, {self.detail!r}, {self.status})"
