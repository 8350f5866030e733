"""Games that keep moving (docs/api.md, "Turn clock", "Absent players", "Resigning",
"Public rooms", "Room lifetime"): the turn clock and its autopilot, away, absent
and resigned seats, public rooms and quick play, and the sweeper that deletes
rooms nobody uses.

Built on :class:`app.rooms.RoomService` (its writes: :meth:`~app.rooms.RoomService.act`
and :meth:`~app.rooms.RoomService.change`); wired by the composition root
(``app/main.py``)."""

from .absence import Absence
from .clock import TurnClock
from .turns import Turns

__all__ = ["Absence", "TurnClock", "Turns"]
