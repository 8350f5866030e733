"""Persistence: SQLAlchemy models and the engine (migrations live in ``migrations/``)."""

from .database import Database
from .models import ActionResult, Base, Event, Game, Player, Room

__all__ = ["ActionResult", "Base", "Database", "Event", "Game", "Player", "Room"]
