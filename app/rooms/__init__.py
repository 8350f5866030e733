"""Use cases of a room: the one layer that runs transactions."""

from .errors import DomainError, ErrorCode
from .service import RoomService
from .types import ActionRequest, Outcome, Presence, Publisher, Seat

__all__ = ["ActionRequest", "DomainError", "ErrorCode", "Outcome", "Presence", "Publisher", "RoomService", "Seat"]
