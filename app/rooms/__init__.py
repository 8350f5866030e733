"""Use cases of a room: the one layer that runs transactions."""

from .errors import DomainError
from .service import RoomService
from .types import ActionRequest, Outcome, Presence, Publisher, Seat

__all__ = ["ActionRequest", "DomainError", "Outcome", "Presence", "Publisher", "RoomService", "Seat"]
