"""What the scheduler does with a room whose deadline has come: a bot's move,
a turn clock's timeout, the autopilot's move for a timed-out, away or resigned
seat; and a seat coming back.

The scheduler (:class:`app.rooms.bots.BotScheduler`) claims due rooms (``FOR
UPDATE SKIP LOCKED`` on PostgreSQL, ``BEGIN IMMEDIATE`` on SQLite) and calls
:meth:`Turns.play_due` for each. Every write here is conditional on the room's
version as read (``expected_version``), so of two instances that see the same
deadline (a lease run out) exactly one records the timeout or the move."""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable
from dataclasses import replace
from datetime import timedelta

from app.db import Game, Player, Room
from app.db.models import utcnow
from app.rooms import DomainError, RoomService
from app.rooms.bots import bot_action
from app.rooms.types import Seat
from app.rooms.views import JSON
from app.rules import state_from_dict

from .absence import Absence, aware

log = logging.getLogger("dicecup.lifecycle")

AUTOPILOT = "optimal"
"""The autopilot's policy: the strongest bot's (greedy while the tables are not ready)."""

AWAY_AFTER = 2
"""Timeouts in a row after which a seat is marked away."""


class Turns:
    """The turn clock's and the autopilot's actions on a room (see the module)."""

    def __init__(
        self,
        service: RoomService,
        on_autopilot: Callable[[float], None] | None = None,
        absence: Absence | None = None,
    ) -> None:
        self.service = service
        self.absence = absence
        """Absent players in untimed rooms (``absence.py``); None: never looked for."""
        self.on_autopilot = on_autopilot
        """Told the CPU seconds of each autopilot move (the metrics)."""
        self.timeouts = 0
        """Turns timed out since start (the metrics read it)."""
        self.autopilot_moves = 0
        self.autopilot_seconds = 0.0
        """CPU time spent choosing and applying autopilot moves (process time)."""

    async def play_due(self, code: str, attempts: int = 3) -> bool:
        """Act on the room's deadline: True if something was stored. A move
        refused with ``stale_version`` (an event that is not a move, such as a
        chat message, came between the read and the move) is decided again
        from the room as it is now, up to ``attempts`` times."""
        service = self.service
        try:
            room, players, game = await service.snapshot(code)
        except DomainError:
            return False  # the room was deleted meanwhile
        if game is None or game.status != "playing":
            await service.set_next_deadline(room.code, room.version, None)
            return False
        state = state_from_dict(game.state)
        assert state.turn is not None
        player = next((p for p in players if p.id == state.turn.player_id), None)
        if player is None:
            await service.set_next_deadline(room.code, room.version, None)
            return False
        now = utcnow()
        if player.bot is not None:
            level, autopilot = player.bot, False
        elif player.away or player.resigned:
            level, autopilot = AUTOPILOT, True
        elif room.turn_deadline is not None:
            deadline = aware(room.turn_deadline)
            if deadline > now:  # woken early: back to the turn's deadline
                await service.set_next_deadline(room.code, room.version, deadline)
                return False
            return await self.time_out(room.code, room.version, player.id)
        elif room.options.get("turn_seconds"):
            level, autopilot = AUTOPILOT, True  # the rest of a timed-out turn
        elif self.absence is not None:
            return await self.absence.look(room, player)  # untimed: is the person still there?
        else:
            await service.set_next_deadline(room.code, room.version, None)
            return False
        started = time.process_time()
        request = bot_action(service.strategy, state, level, random.Random(f"{player.id}:{room.version}"))
        request = replace(request, expected_version=room.version, autopilot=autopilot)
        try:
            await service.act(room.code, Seat(player.id, room.code), request)
        except DomainError as refused:  # someone moved first: the new deadline brings us back
            log.info("turn of %s in room %s: %s", player.id, room.code, refused.code)
            if refused.code == "stale_version" and attempts > 1:
                return await self.play_due(code, attempts - 1)
            return False
        finally:
            if autopilot:
                spent = time.process_time() - started
                self.autopilot_moves += 1
                self.autopilot_seconds += spent
                if self.on_autopilot is not None:
                    self.on_autopilot(spent)
        return True

    async def time_out(self, code: str, version: int, player_id: str) -> bool:
        """Record ``turn_timed_out`` (and ``player_away`` at the second in a
        row) and hand the turn to the autopilot, if the room is still at ``version``."""

        def change(room: Room, players: list[Player], game: Game | None) -> list[tuple[str, str | None, JSON]]:
            player = next(p for p in players if p.id == player_id)
            player.timeouts += 1
            events: list[tuple[str, str | None, JSON]] = [("turn_timed_out", player.id, {"player_id": player.id})]
            if player.timeouts >= AWAY_AFTER and not player.away:
                player.away = True
                events.append(("player_away", player.id, {"player_id": player.id}))
            room.turn_deadline = None
            room.next_deadline = utcnow()
            return events

        try:
            await self.service.change(code, change, expected_version=version)
        except DomainError as refused:
            log.info("timeout of %s in room %s: %s", player_id, code, refused.code)
            return False
        self.timeouts += 1
        return True

    async def come_back(self, code: str, player_id: str) -> None:
        """An away seat, or an absent one (its person gone on its turn in an
        untimed room: ``absence.py``), reconnected: ``player_back``; on its
        turn, a fresh clock (untimed: the absence's next look)."""
        absent_seconds = self.absence.absent_seconds if self.absence is not None else 0

        def change(room: Room, players: list[Player], game: Game | None) -> list[tuple[str, str | None, JSON]]:
            player = next((p for p in players if p.id == player_id), None)
            playing = game is not None and game.status == "playing"
            turn = state_from_dict(game.state).turn if game is not None and playing else None
            on_turn = turn is not None and player is not None and turn.player_id == player.id
            absent = on_turn and room.absent_deadline is not None
            if player is None or not (player.away or absent):
                return []
            player.away, player.timeouts = False, 0
            room.absent_deadline = None
            seconds = room.options.get("turn_seconds")
            if on_turn and not player.resigned:
                if seconds:
                    room.turn_deadline = room.next_deadline = utcnow() + timedelta(seconds=seconds)
                elif absent_seconds > 0:
                    room.next_deadline = utcnow() + timedelta(seconds=absent_seconds)
            return [("player_back", player.id, {"player_id": player.id})]

        await self.service.change(code, change)
