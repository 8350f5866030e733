"""The turn clock: when a room's scheduler is to look at it next, and the
current turn's deadline.

Both are columns of the room, set in the same transaction as the change that
makes them (an action, a game's start, a timeout): ``rooms.next_deadline``
(indexed; the scheduler's loop claims rooms whose time has come) and
``rooms.turn_deadline`` (what the Game view and ``turn_started`` show). So a
deadline survives a restart, and any instance may act on it."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from datetime import datetime, timedelta

from app.db.models import utcnow
from app.rooms.bots import bot_delay, thinking_time
from app.rooms.views import PlayerRow, RoomRow
from app.rules import GameState

from .absence import notice


class TurnClock:
    """The schedule after a change to a room (``RoomService``'s ``clock``).

    - a bot's turn: after its thinking time (around ``bot_delay``, scaled by the
      room's option ``bot_speed``: see ``app.rooms.bots.BOT_SPEEDS``);
    - an away or resigned seat's turn: the autopilot plays it at once (after a
      bot's thinking time, so people can follow);
    - a person's turn with option ``turn_seconds``: the deadline is
      ``turn_seconds`` after the turn started, kept while the turn goes on;
      once it has passed and the autopilot has the turn (``turn_deadline``
      null), the autopilot goes on at once;
    - a person's turn in an untimed room (``absent_seconds`` on): a look at
      whether they are there (``app.lifecycle.absence``), soon
      (:func:`~app.lifecycle.absence.notice`) if they have no socket open,
      else ``absent_seconds`` on (a safety net for a socket whose close went
      unseen, an instance that died);
    - otherwise nothing is scheduled."""

    def __init__(self, bot_delay: float = 0.8, absent_seconds: float = 0.0) -> None:
        self.bot_delay = bot_delay
        self.absent_seconds = absent_seconds

    def schedule(
        self,
        room: RoomRow,
        state: GameState,
        players: Sequence[PlayerRow],
        turn_changed: bool,
        autopilot: bool,
        connected: Collection[str] = (),
    ) -> tuple[datetime | None, datetime | None]:
        turn = state.turn
        if turn is None:
            return None, None
        now = utcnow()
        soon = now + timedelta(seconds=thinking_time(bot_delay(self.bot_delay, room.options), state))
        player = next((p for p in players if p.id == turn.player_id), None)
        if player is None:
            return None, None
        if player.bot is not None or player.away or player.resigned:
            return soon, None
        seconds = room.options.get("turn_seconds")
        if not seconds:
            if self.absent_seconds <= 0:
                return None, None
            there = player.id in connected
            return now + timedelta(seconds=self.absent_seconds if there else notice(self.absent_seconds)), None
        if autopilot and not turn_changed:
            return soon, None  # the autopilot plays out a timed-out turn
        deadline = room.turn_deadline
        if turn_changed or deadline is None:
            deadline = now + timedelta(seconds=seconds)
        return deadline, deadline
