"""Use cases of a room: the one layer that runs transactions."""

from .errors import DomainError
from .service import ActionRequest, Outcome, Presence, Publisher, RoomService, Seat

__all__ = ["ActionRequest", "DomainError", "Outcome", "Presence", "Publisher", "RoomService", "Seat"]
