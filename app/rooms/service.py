"""The room use cases: create, join, leave, start a game, act, and reads.

Every write is one transaction that moves the room's version and appends its
events with consecutive versions. Joins, leaves and game starts lock the room
first (``SELECT ... FOR UPDATE`` on PostgreSQL; on SQLite the ``BEGIN
IMMEDIATE`` of :meth:`Database.write` already holds the database's write
lock); actions go through :meth:`Database.act` (see :mod:`app.db.actions`:
the same lock on SQLite, a write conditional on the room's version on
PostgreSQL). Only after the commit are the events handed to the publisher: a
refused or rolled-back action is never seen by anyone but its sender.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import partial
from typing import Any, Protocol

from sqlalchemy import bindparam, select, update
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import Session

from app.db import ActionResult, Database, Event, Game, Player, Room
from app.db.actions import Contended, Loaded, RoomRow
from app.db.models import utcnow
from app.rules import (
    MAX_PLAYERS,
    FairDice,
    GameState,
    InvalidOptions,
    UnknownRuleset,
    get_ruleset,
    new_game,
    state_from_dict,
    state_to_dict,
)
from app.rules import Event as RulesEvent
from app.strategy import LEVELS, StrategyStore

from . import ending, secrets, series, views
from .acting import Seen, decide
from .bots import BOT_SPEEDS, bot_delay, thinking_time
from .errors import DomainError
from .names import normalize_name, same_name
from .rejoin import check_rejoin
from .types import ActionRequest, BotTurn, Outcome, Presence, Publisher, Seat
from .views import JSON, event_json, event_view, game_view, player_view, room_view

log = logging.getLogger("dicecup.rooms")

_PLAYERS = select(Player).where(Player.room_id == bindparam("room_id"), Player.left_at.is_(None)).order_by(Player.seat)

# The room's version and its events after a version (none: one row of NULLs).
_EVENTS_AFTER = (
    select(Room.version, Event.version, Event.type, Event.player_id, Event.data, Event.at)
    .select_from(Room)
    .outerjoin(Event, (Event.room_id == Room.id) & (Event.version > bindparam("after")))
    .where(Room.code == bindparam("code"))
    .order_by(Event.version)
    .limit(bindparam("limit"))
)

# A room and whichever seat a token's digest belongs to (any room's: see seat_of), in one query.
_TOKEN_SEAT = (
    select(Room.id.label("room_pk"), Room.code.label("room_code"), Player.id, Player.room_id, Player.left_at)
    .select_from(Room)
    .outerjoin(Player, Player.token_hash == bindparam("digest"))
    .where(Room.code == bindparam("code"))
)

ROOM_OPTIONS: dict[str, Any] = {
    "hints": True,
    "turn_seconds": None,
    "public": False,
    "auto_start": False,
    "bot_speed": "normal",
    "chat": True,
}
"""Options every room has on top of its rule set's (``docs/api.md``, "Room options"). ``hints``
defaults to true only for a solo room (``max_players`` 1): see :func:`hints_default`."""


def hints_default(max_players: int) -> bool:
    """Hints are on by default in a solo room, off in a room for several players
    (opponents see each hint used, ``hint_used``, but the creator chooses)."""
    return max_players <= 1


TURN_SECONDS_MAX = 604_800
"""The longest turn clock: a week (correspondence play)."""
TURN_SECONDS_MIN = 10
"""The shortest turn clock (``Settings.turn_seconds_min`` lowers it, for tests)."""

Change = Callable[[Room, list[Player], Game | None], list[tuple[str, str | None, JSON]]]
"""A change to a room made under its lock (see :meth:`RoomService.change`): it updates the rows
and returns the events to append, as (type, player_id, data)."""


class Clock(Protocol):
    """When a room's scheduler is to look next, and the current turn's deadline
    (``app.lifecycle``'s turn clock; the composition root sets one)."""

    def schedule(
        self,
        room: views.RoomRow,
        state: GameState,
        players: Sequence[views.PlayerRow],
        turn_changed: bool,
        autopilot: bool,
        connected: Collection[str] = (),
    ) -> tuple[datetime | None, datetime | None]:
        """(next deadline, turn deadline) after a change that left ``state``;
        ``connected``: the seats with a socket open, as presence saw them just before."""
        ...


@dataclass
class _Changes:
    """Events staged in one transaction, published after its commit."""

    events: list[Event] = field(default_factory=list)


class ActionObserver(Protocol):
    """Told what the service does (metrics, log context); the composition root sets one."""

    def seat_known(self, room_code: str, player_id: str) -> None:
        """A token was checked, or an action arrived, for this seat."""

    def action_done(self, ruleset: str, kind: str, outcome: str, seconds: float | None) -> None:
        """An action's ``outcome``: ``applied``, ``replayed`` or the refusal's
        code; ``seconds`` from its arrival to commit and publication (applied only)."""


class RoomReader:
    """The reads: rooms, games and the event log as stored, seen through
    ``presence`` for the ``connected`` flags (without it, only bots are
    connected). The hub reads gaps through one of these; the rooms service
    is one, with the writes on top."""

    def __init__(self, db: Database, presence: Presence | None = None, observer: ActionObserver | None = None) -> None:
        self.db = db
        self.presence = presence
        self.observer = observer

    # -- reads --------------------------------------------------------------------------

    async def authenticate(self, code: str, token: str | None, body_error: DomainError | None = None) -> Seat:
        """The seat a token stands for, checked in the precedence of ``docs/api.md``:
        ``room_not_found``, then ``body_error`` if given (a body too large),
        then ``unauthorized`` (no or unknown token), then ``forbidden`` (a
        token of another room)."""
        params = {"code": room_code(code), "digest": secrets.token_hash(token) if token else ""}
        async with self.db.read() as session:
            row = (await session.execute(_TOKEN_SEAT, params)).first()
        if row is None:
            raise DomainError("room_not_found", f"no room {code!r}")
        if body_error is not None:
            raise body_error
        if not token:
            raise DomainError("unauthorized", "this needs a seat token (Authorization: Bearer ...)")
        seat = seat_of(row.room_pk, row.room_code, None if row.id is None else row)
        if self.observer is not None:
            self.observer.seat_known(seat.room_code, seat.player_id)
        return seat

    async def ping(self) -> None:
        async with self.db.read() as session:
            await session.execute(select(1))

    async def get_room(self, code: str) -> JSON:
        async with self.db.read() as session:
            room = await self._room(session, code)
            return await self._view(session, room)

    async def get_game(self, code: str, number: int) -> JSON:
        async with self.db.read() as session:
            room = await self._room(session, code)
            game = await self._game(session, room, number)
            if game is None:
                raise DomainError("game_not_found", f"room {room.code} has no game #{number}")
            current = number == room.game_number
            return game_view(
                game,
                deadline=room.turn_deadline if current else None,
                absent=room.absent_deadline if current else None,
            )

    async def events_after(self, code: str, after: int = 0, limit: int = 100) -> JSON:
        """The room's events after version ``after`` (at most ``limit``), in
        one prebuilt query: every resuming socket asks for this."""
        async with self.db.read() as session:
            params = {"code": room_code(code), "after": after, "limit": limit + 1}
            rows = (await session.execute(_EVENTS_AFTER, params)).all()
        if not rows:
            raise DomainError("room_not_found", f"no room {code!r}")
        events = [event_json(*r[1:]) for r in rows if r[1] is not None]
        return {"events": events[:limit], "version": rows[0][0], "more": len(events) > limit}

    # -- helpers shared with the writes ------------------------------------------------

    def _connected(self, code: str) -> Collection[str]:
        return () if self.presence is None else self.presence.connected(code)

    def _pv(self, player: Player, room: Room) -> JSON:
        return player_view(player, room, self._connected(room.code))

    async def _room(self, session: AsyncSession, code: str, lock: bool = False) -> Room:
        return await session.run_sync(_room, code, lock and not self.db.is_sqlite)

    @staticmethod
    async def _players(session: AsyncSession, room: Room) -> list[Player]:
        return await session.run_sync(_players, room)

    @staticmethod
    async def _game(session: AsyncSession, room: Room, number: int) -> Game | None:
        return await session.run_sync(_game, room, number)

    async def _view(
        self,
        session: AsyncSession,
        room: Room,
        current: Game | None = None,
        state: GameState | None = None,
        players: Sequence[Player] | None = None,
    ) -> JSON:
        if players is None:
            players = await self._players(session, room)
        if current is None:
            current = await self._game(session, room, room.game_number)
        return self._build_view(room, players, current, state)

    def _build_view(
        self,
        room: Room | RoomRow,
        players: Sequence[views.PlayerRow],
        current: views.GameRow | None,
        state: GameState | None = None,
    ) -> JSON:
        return room_view(room, players, current, room.history or [], self._connected(room.code), state)


class RoomService(RoomReader):
    """The use cases. Its collaborators are given at construction: where
    committed events go (``publisher``), who is connected (``presence``),
    the strategy tables (bots), and ``on_deadline``, called after a commit
    that gives a room a deadline (the local bot scheduler's alarm)."""

    def __init__(
        self,
        db: Database,
        *,
        publisher: Publisher | None = None,
        presence: Presence | None = None,
        strategy: StrategyStore | None = None,
        bot_delay: float = 0.8,
        on_deadline: Callable[[datetime], None] | None = None,
        observer: ActionObserver | None = None,
        clock: Clock | None = None,
        turn_seconds_min: int = TURN_SECONDS_MIN,
    ) -> None:
        super().__init__(db, presence, observer)
        self.publisher = publisher
        self.strategy = strategy
        self.bot_delay = bot_delay
        self.on_deadline = on_deadline
        self.clock = clock
        self.turn_seconds_min = turn_seconds_min

    # -- writes -------------------------------------------------------------------------

    async def create_room(
        self,
        ruleset: str,
        name: str,
        options: dict[str, Any] | None = None,
        max_players: int = 4,
        profile_id: str | None = None,
        bots: Sequence[str] = (),
        start: bool = False,
    ) -> tuple[JSON, JSON, str]:
        """A new room with its creator seated as host: (room, player, token).
        ``profile_id`` links the seat to a profile (``app.profiles``);
        ``bots`` seats a bot of each level, and ``start`` starts Game #1 at
        once (play against the computer in one call), all in one transaction."""
        if not 1 <= max_players <= MAX_PLAYERS:
            raise DomainError("invalid_request", f"max_players is 1 to {MAX_PLAYERS}")
        room_options = self.check_options(ruleset, options, self.turn_seconds_min, max_players)
        name = normalize_name(name)
        if any(level not in LEVELS for level in bots):
            raise DomainError("invalid_request", f"bot level is one of {', '.join(LEVELS)}")
        if 1 + len(bots) > max_players:
            raise DomainError("invalid_request", f"{len(bots)} bots and the creator need max_players {1 + len(bots)}")
        token = secrets.new_token()
        changes = _Changes()
        async with self.db.write() as session:
            code = await self._free_code(session)
            room = Room(
                code=code,
                ruleset=ruleset,
                options=room_options,
                max_players=max_players,
                public=room_options["public"],
                status="lobby",
                version=0,
                game_number=0,
            )
            session.add(room)
            await session.flush()
            player = self._seat(room, name, 0, token)
            player.profile_id = profile_id
            session.add(player)
            room.host_id = player.id
            seated = [player]
            for level in bots:
                seated.append(self._seat(room, _bot_name(level, seated), len(seated), None, bot=level))
                session.add(seated[-1])
            await session.flush()
            joined = [("player_joined", p.id, {"player": self._pv(p, room)}) for p in seated]
            self._append(session, room, changes, joined)
            game = self._begin(session, room, changes, seated, player.id) if start else None
            await session.flush()
            view = await self._view(session, room, game, players=seated)
        await self._publish(view, changes)
        self._wake(room)
        return view, self._pv(player, room), token

    async def join(self, code: str, name: str, profile_id: str | None = None) -> tuple[JSON, str]:
        """A new seat (``profile_id``: linked to that profile): (player, token).
        The name is normalized (app.rooms.names); one already seated in the
        room (without regard to case) is refused with ``name_taken``."""
        name = normalize_name(name)
        token = secrets.new_token()
        changes = _Changes()
        async with self.db.write() as session:
            room = await self._room(session, code, lock=True)
            seated = await self._free_seats(session, room, "players")
            if any(same_name(p.name, name) for p in seated):
                raise DomainError("name_taken", f"someone in this room is called {name!r} already")
            rejoin = await check_rejoin(session, room, name, profile_id, utcnow())
            player = self._seat(room, name, len(seated), token)
            player.profile_id = profile_id
            player.muted = rejoin.muted
            session.add(player)
            await session.flush()
            self._append(session, room, changes, [("player_joined", player.id, {"player": self._pv(player, room)})])
            view = await self._view(session, room)
            full = len(seated) + 1 >= room.max_players
        await self._publish(view, changes)
        if full and room.options.get("auto_start") and room.status == "lobby" and room.host_id is not None:
            # Option auto_start: the last seat taken starts the game (as the host would).
            try:
                await self.start_game(room.code, Seat(room.host_id, room.code))
            except DomainError as refused:  # started meanwhile
                log.info("auto start of room %s: %s", room.code, refused.code)
        return self._pv(player, room), token

    async def leave(self, code: str, actor: Seat, player_id: str) -> None:
        """A player leaves (own token) or the host removes them, between games;
        during a game the player resigns (own token), or the host removes an
        away player (see :meth:`_resign`)."""
        changes = _Changes()
        async with self.db.write() as session:
            room = await self._room(session, code, lock=True)
            _check_open(room)
            seated = await self._players(session, room)
            target = next((p for p in seated if p.id == player_id), None)
            if target is None:
                raise DomainError("player_not_found", f"room {room.code} has no player {player_id}")
            if actor.player_id not in (target.id, room.host_id):
                raise DomainError("not_host", "only the host can remove another player")
            if room.status == "playing":
                game = await self._game(session, room, room.game_number)
                assert game is not None
                turn = state_from_dict(game.state).turn
                on_turn = turn is not None and turn.player_id == target.id
                self._resign(session, room, game, changes, seated, target, actor, on_turn)
                view = await self._view(session, room, game, players=seated)
            else:
                if actor.player_id != target.id:  # the host removed it (app.rooms.rejoin)
                    target.removed_at = utcnow()
                self._leave(session, room, changes, seated, target)
                seated.remove(target)
                game = None
                if room.status == "finished" and series.everyone_ready(room.history, seated):
                    # the last one the others waited for left: the rematch they accepted starts
                    starter = next(p.id for p in seated if p.id in series.accepted(room.history))
                    game = self._begin(session, room, changes, seated, starter)
                    await session.flush()
                view = await self._view(session, room, game, players=seated if game else None)
        await self._publish(view, changes)
        self._wake(room)

    def _resign(
        self,
        session: AsyncSession,
        room: Room,
        game: Game,
        changes: _Changes,
        seated: list[Player],
        target: Player,
        actor: Seat,
        on_turn: bool,
    ) -> None:
        """``target`` resigns from the game being played: ``player_resigned``;
        the autopilot finishes its scorecard (at once on its turn) and it
        cannot win. The host may do this only to an away seat (``not_away``).
        A resigned host hands the room to the next person still playing.
        When every other person has resigned, the game ends at once with the
        one still playing as its winner (``game_finished``, reason
        ``resigned``: see :mod:`.ending`)."""
        if target.resigned:
            raise DomainError("resigned", "this player has resigned already")
        if actor.player_id != target.id and not target.away:
            raise DomainError("not_away", "during a game the host can remove only a player who is away")
        target.resigned_at = utcnow()
        if room.host_id == target.id:
            playing = [p for p in seated if p.bot is None and not p.resigned]
            if playing:
                room.host_id = playing[0].id
        if on_turn:  # the autopilot takes the turn over now
            room.turn_deadline = room.absent_deadline = None
            room.next_deadline = utcnow()
        events: list[tuple[str, str | None, JSON]] = [("player_resigned", target.id, {"player_id": target.id})]
        winner = ending.last_person_playing(seated)
        if winner is not None:
            events.append(ending.end_for(room, game, seated, winner, utcnow()))
        self._append(session, room, changes, events)

    def _leave(
        self, session: AsyncSession, room: Room, changes: _Changes, seated: list[Player], target: Player
    ) -> None:
        """``target`` leaves the room between games (``player_left``; ``room_closed`` after the last person)."""
        left_view = self._pv(target, room)
        target.left_at = utcnow()
        target.seat = None
        remaining = [p for p in seated if p.id != target.id]
        for seat, player in enumerate(remaining):
            player.seat = seat
        if room.host_id == target.id:
            room.host_id = next((p.id for p in remaining if p.bot is None), None)
        events: list[tuple[str, str | None, JSON]] = [("player_left", target.id, {"player": left_view})]
        if room.host_id is None:
            # The last person left: nobody could start a game or seat
            # anyone again, so the room closes (bots stay seated, idle).
            room.status = "closed"
            room.next_deadline = None
            events.append(("room_closed", None, {"reason": "no_players"}))
        self._append(session, room, changes, events)

    async def start_game(self, code: str, actor: Seat) -> JSON:
        """The host starts the next game (Game #1, #2, ...), roll-off included:
        between games this is the host's "start now", without waiting for
        everyone to accept a rematch (see :meth:`rematch`)."""
        changes = _Changes()
        async with self.db.write() as session:
            room = await self._room(session, code, lock=True)
            _check_open(room)
            if actor.player_id != room.host_id:
                raise DomainError("not_host", "only the host can start a game")
            if room.status == "playing":
                raise DomainError("game_in_progress", "a game is already being played")
            seated = await self._players(session, room)
            game = self._begin(session, room, changes, seated, actor.player_id)
            await session.flush()
            view = await self._view(session, room, game, players=seated)
        await self._publish(view, changes)
        self._wake(room)
        return view

    async def rematch(self, code: str, actor: Seat, number: int) -> JSON:
        """The seat accepts to play again after game ``number`` (the room's
        last, finished): ``rematch_accepted``; once every person seated has
        accepted (bots accept at once; seats that resigned are not waited
        for), the next game starts in the same transaction, with the same
        seats. Accepting twice changes nothing. Under the room's lock: of two
        accepts at once, exactly one starts the game."""
        changes = _Changes()
        async with self.db.write() as session:
            room = await self._room(session, code, lock=True)
            _check_open(room)
            if room.game_number == 0:
                raise DomainError("game_not_started", "no game has been played in this room yet")
            if number > room.game_number:
                raise DomainError("game_not_found", f"room {room.code} has no game #{number}")
            if number < room.game_number:
                raise DomainError("rematch_started", f"game #{number + 1} has started already")
            if room.status == "playing":
                raise DomainError("game_in_progress", f"game #{number} is still being played")
            seated = await self._players(session, room)
            history = list(room.history)
            yes = series.accepted(history)
            game: Game | None = None
            if actor.player_id not in yes:
                yes = [*yes, actor.player_id]
                history[-1] = {**history[-1], "rematch": yes}
                room.history = history
                state = series.rematch_view(room.status, history, seated)
                assert state is not None
                self._append(session, room, changes, [("rematch_accepted", actor.player_id, state)])
                if series.everyone_ready(history, seated):
                    game = self._begin(session, room, changes, seated, actor.player_id)
            await session.flush()
            view = await self._view(session, room, game, players=seated)
        await self._publish(view, changes)
        self._wake(room)
        return view

    def _begin(self, session: AsyncSession, room: Room, changes: _Changes, seated: list[Player], actor_id: str) -> Game:
        """Start the room's next game with the seated players (``game_started``,
        ``turn_started``), under the room's lock. Who resigned from the last
        game leaves now, unless it is ``actor_id`` or accepted the rematch;
        everyone starts on time (no timeouts, not away)."""
        keep = {actor_id, *series.accepted(room.history or [])}
        for player in list(seated):
            if player.resigned and player.id not in keep:
                self._leave(session, room, changes, seated, player)
                seated.remove(player)
                continue
            player.resigned_at, player.away, player.timeouts = None, False, 0
        dice = FairDice.new()
        number = room.game_number + 1
        rules_options = {k: v for k, v in room.options.items() if k not in ROOM_OPTIONS}
        transition = new_game(room.ruleset, [p.id for p in seated], dice, rules_options, number)
        game = Game(
            room_id=room.id,
            number=number,
            status="playing",
            state=state_to_dict(transition.state),
            seed=dice.seed_hex,
            commitment=dice.commitment,
        )
        session.add(game)
        room.game_number = number
        room.status = "playing"
        self._schedule(room, transition.state, seated)
        self._append_rules_events(session, room, changes, transition.events, actor_id)
        return game

    async def add_bot(self, code: str, actor: Seat, level: str) -> JSON:
        """The host seats a bot (between games); it plays through the scheduler."""
        if level not in LEVELS:
            raise DomainError("invalid_request", f"bot level is one of {', '.join(LEVELS)}")
        changes = _Changes()
        async with self.db.write() as session:
            room = await self._room(session, code, lock=True)
            _check_open(room)
            if actor.player_id != room.host_id:
                raise DomainError("not_host", "only the host can add a bot")
            seated = await self._free_seats(session, room, "bots")
            player = self._seat(room, _bot_name(level, seated), len(seated), None, bot=level)
            session.add(player)
            await session.flush()
            self._append(session, room, changes, [("player_joined", player.id, {"player": self._pv(player, room)})])
            view = await self._view(session, room)
        await self._publish(view, changes)
        return self._pv(player, room)

    async def act(self, code: str, actor: Seat, request: ActionRequest) -> Outcome:
        """Validate and apply one action (see :meth:`_act`), told to the observer."""
        observer = self.observer
        if observer is None:
            return await self._act(code, actor, request, None)
        observer.seat_known(actor.room_code, actor.player_id)
        started = time.perf_counter()
        ruleset: list[str] = []  # the loaded room's, for a refusal's label
        try:
            outcome = await self._act(code, actor, request, ruleset)
        except DomainError as refused:
            observer.action_done(ruleset[0] if ruleset else "unknown", request.type, refused.code, None)
            raise
        except Exception:
            observer.action_done(ruleset[0] if ruleset else "unknown", request.type, "internal_error", None)
            raise
        kind = "replayed" if outcome.replayed else "applied"
        observer.action_done(outcome.room["ruleset"], request.type, kind, time.perf_counter() - started)
        return outcome

    async def _act(self, code: str, actor: Seat, request: ActionRequest, ruleset: list[str] | None) -> Outcome:
        """Validate and apply one action; see ``docs/api.md`` for the order of refusals.

        The storage (:meth:`Database.act`, the hot path of
        :mod:`app.db.actions`) loads the room and stores what
        :func:`acting.decide` makes of it atomically; the room view is built
        after the commit, outside any lock, and only then are the events
        published."""
        # Who is connected, read here on the event loop (the decision may run in a worker thread).
        deadlines = partial(self._next_deadlines, connected=self._connected(room_code(code)))
        try:
            write = await self.db.act(
                room_code(code),
                actor.player_id,
                request.id,
                lambda loaded: decide(_noted(loaded, ruleset), actor, request, deadlines),
            )
        except Seen:
            return await self._replay(code, actor, request)
        except Contended:
            raise DomainError("stale_version", "the room kept changing; send the action again") from None
        room, game = write.room, write.game
        view = self._build_view(room, write.players, game, write.state)
        published = [event_json(e["version"], e["type"], e["player_id"], e["data"], write.now) for e in write.events]
        await self._publish_events(view, published)
        self._wake(room)
        return Outcome(room.version, published, view)

    async def due_bot_turn(self, code: str) -> BotTurn | None:
        """The turn a bot is to play in the room now, or ``None`` (and then a
        deadline with no bot's turn behind it is dropped, unless the room
        moved on meanwhile)."""
        async with self.db.read() as session:
            room = await self._room(session, code)
            game = await self._game(session, room, room.game_number)
            if game is None or game.status != "playing":
                return None
            state = state_from_dict(game.state)
            assert state.turn is not None
            bot = await session.get(Player, state.turn.player_id)
            version = room.version
        if bot is None or bot.bot is None:
            async with self.db.write() as session:
                await session.execute(
                    update(Room).where(Room.code == room.code, Room.version == version).values(next_deadline=None)
                )
            return None
        return BotTurn(room.code, version, state, bot.id, bot.bot)

    async def change(self, code: str, change: Change, expected_version: int | None = None) -> JSON:
        """Apply ``change`` to the room under its lock (refused with
        ``stale_version`` if the room is no longer at ``expected_version``),
        append the events it returns, publish them after the commit and ring
        the scheduler's alarm: the one way other capabilities (``app.lifecycle``)
        write to a room."""
        view, _ = await self.change_events(code, change, expected_version)
        return view

    async def change_events(
        self, code: str, change: Change, expected_version: int | None = None
    ) -> tuple[JSON, list[JSON]]:
        """:meth:`change`, answering the room and the events appended (as published)."""
        changes = _Changes()
        async with self.db.write() as session:
            room = await self._room(session, code, lock=True)
            if expected_version is not None and room.version != expected_version:
                raise DomainError("stale_version", f"the room is at version {room.version}")
            players = await self._players(session, room)
            game = await self._game(session, room, room.game_number)
            events = change(room, players, game)
            if events:
                self._append(session, room, changes, events)
            await session.flush()
            view = await self._view(session, room, game, players=players)
        published = [event_view(e) for e in changes.events]
        await self._publish_events(view, published)
        self._wake(room)
        return view, published

    async def snapshot(self, code: str) -> tuple[Room, list[Player], Game | None]:
        """The room, its seated players and its current game, as stored now (read only)."""
        async with self.db.read() as session:
            room = await self._room(session, code)
            players = await self._players(session, room)
            game = await self._game(session, room, room.game_number)
        return room, players, game

    async def set_next_deadline(self, code: str, version: int, at: datetime | None) -> None:
        """Set the room's next deadline, unless the room moved past ``version`` meanwhile."""
        async with self.db.write() as session:
            await session.execute(
                update(Room).where(Room.code == room_code(code), Room.version == version).values(next_deadline=at)
            )
        if at is not None and self.on_deadline is not None:
            self.on_deadline(at)

    # -- helpers --------------------------------------------------------------------------

    @staticmethod
    def check_options(
        ruleset: str, options: dict[str, Any] | None, turn_seconds_min: int = TURN_SECONDS_MIN, max_players: int = 1
    ) -> dict[str, Any]:
        """The room's full options (rule set's and the room's own, defaults filled in;
        ``hints`` left out or null takes :func:`hints_default` of ``max_players``)."""
        try:
            rules = get_ruleset(ruleset)
        except UnknownRuleset:
            raise DomainError("invalid_request", f"unknown rule set {ruleset!r}") from None
        options = dict(options or {})
        room_options = {}
        options.setdefault("hints", None)
        for name, default in ROOM_OPTIONS.items():
            value = options.pop(name, default)
            if name == "hints" and value is None:
                value = hints_default(max_players)
            if name == "turn_seconds":
                if value is not None and (type(value) is not int or not turn_seconds_min <= value <= TURN_SECONDS_MAX):
                    raise DomainError(
                        "turn_seconds_out_of_range",
                        f"turn_seconds is null (untimed) or {turn_seconds_min} to {TURN_SECONDS_MAX}",
                    )
            elif name == "bot_speed":
                if type(value) is not str or value not in BOT_SPEEDS:
                    raise DomainError("invalid_request", f"bot_speed is one of {', '.join(BOT_SPEEDS)}")
            elif type(value) is not type(default):
                raise DomainError("invalid_request", f"option {name} must be a {type(default).__name__}")
            room_options[name] = value
        try:
            return {**rules.normalize_options(options), **room_options}
        except InvalidOptions as invalid:
            raise DomainError("invalid_request", str(invalid)) from None

    async def _free_code(self, session: AsyncSession) -> str:
        while True:
            code = secrets.new_room_code()
            taken = (await session.execute(select(Room.id).where(Room.code == code))).first()
            if taken is None:
                return code

    @staticmethod
    def _seat(room: Room, name: str, seat: int, token: str | None, bot: str | None = None) -> Player:
        return Player(
            id=secrets.new_player_id(),
            room_id=room.id,
            seat=seat,
            name=name,
            token_hash=None if token is None else secrets.token_hash(token),
            bot=bot,
        )

    async def _free_seats(self, session: AsyncSession, room: Room, who: str) -> list[Player]:
        """The seated players, if a new seat can be taken now (between games, room not full)."""
        _check_open(room)
        if room.status == "playing":
            raise DomainError("game_in_progress", f"{who} can join only between games")
        seated = await self._players(session, room)
        if len(seated) >= room.max_players:
            raise DomainError("room_full", f"room {room.code} has all {room.max_players} seats taken")
        return seated

    async def _replay(self, code: str, actor: Seat, request: ActionRequest) -> Outcome:
        """The remembered answer to an action id already applied."""
        async with self.db.read() as session:
            room = await self._room(session, code)
            stmt = select(ActionResult).where(
                ActionResult.room_id == room.id,
                ActionResult.player_id == actor.player_id,
                ActionResult.game_number == room.game_number,
                ActionResult.client_id == request.id,
            )
            done = (await session.execute(stmt)).scalar_one()
            if done.action != request.canonical():
                raise DomainError("id_reused", f"action id {request.id!r} was used for another action")
            rows = await session.execute(
                select(Event)
                .where(Event.room_id == room.id, Event.version.between(done.first_version, done.version))
                .order_by(Event.version)
            )
            events = [event_view(e) for e in rows.scalars()]
            view = await self._view(session, room)
        return Outcome(done.version, events, view, replayed=True)

    def _append(
        self, session: AsyncSession, room: Room, changes: _Changes, items: Sequence[tuple[str, str | None, JSON]]
    ) -> None:
        now = utcnow()
        for kind, player_id, data in items:
            room.version += 1
            event = Event(room_id=room.id, version=room.version, type=kind, player_id=player_id, data=data, at=now)
            session.add(event)
            changes.events.append(event)
        room.updated_at = now

    def _append_rules_events(
        self, session: AsyncSession, room: Room, changes: _Changes, events: Sequence[RulesEvent], actor_id: str
    ) -> None:
        items = [(e.type, actor_id if e.type == "game_started" else e.player_id, e.data()) for e in events]
        for kind, _, data in items:
            if kind == "turn_started":
                data["deadline"] = None if room.turn_deadline is None else views.iso_utc(room.turn_deadline)
        self._append(session, room, changes, items)

    def _next_deadlines(
        self,
        room: views.RoomRow,
        state: GameState,
        seated: Sequence[views.PlayerRow],
        turn_changed: bool,
        autopilot: bool,
        connected: Collection[str] = (),
    ) -> tuple[datetime | None, datetime | None]:
        """(next deadline, turn deadline): the clock's (``app.lifecycle``) if
        the service has one; else only a bot's turn is due, after its thinking
        time (around the bot delay, scaled by option ``bot_speed``, varied: see :func:`bots.thinking_time`)."""
        if self.clock is not None:
            return self.clock.schedule(room, state, seated, turn_changed, autopilot, connected)
        turn = state.turn
        bots = {p.id for p in seated if p.bot is not None}
        if turn is not None and turn.player_id in bots:
            return utcnow() + timedelta(seconds=thinking_time(bot_delay(self.bot_delay, room.options), state)), None
        return None, None

    def _schedule(self, room: Room, state: GameState, seated: Sequence[Player]) -> None:
        connected = self._connected(room.code)
        room.next_deadline, room.turn_deadline = self._next_deadlines(room, state, seated, True, False, connected)
        room.absent_deadline = None

    def _wake(self, room: Room | RoomRow) -> None:
        if room.next_deadline is not None and self.on_deadline is not None:
            self.on_deadline(room.next_deadline)

    async def _publish(self, view: JSON, changes: _Changes) -> None:
        await self._publish_events(view, [event_view(e) for e in changes.events])

    async def _publish_events(self, view: JSON, events: list[JSON]) -> None:
        if self.publisher is not None and events:
            await self.publisher.publish(view["code"], events, view)


class TokenHolder(Protocol):
    """A seat found by its token's digest (a player row, or a query's row)."""

    @property
    def id(self) -> str: ...
    @property
    def room_id(self) -> int: ...
    @property
    def left_at(self) -> datetime | None: ...


def _noted(loaded: Loaded, ruleset: list[str] | None) -> Loaded:
    """``loaded``, its room's rule set noted in ``ruleset`` (if given)."""
    if ruleset is not None and loaded.room is not None and not ruleset:
        ruleset.append(loaded.room.ruleset)
    return loaded


def _bot_name(level: str, seated: Sequence[Player]) -> str:
    """ "Optimal bot", "Optimal bot 2", ...: a name nobody seated has."""
    same = sum(1 for p in seated if p.bot == level)
    name = f"{level.capitalize()} bot" + (f" {same + 1}" if same else "")
    while any(same_name(p.name, name) for p in seated):  # a person took the bot's name
        same += 1
        name = f"{level.capitalize()} bot {same + 1}"
    return name


def seat_of(room_id: int, room_code: str, player: TokenHolder | None) -> Seat:
    """The seat a token's player holds in the room: ``unauthorized`` for an
    unknown token or a seat that was left, ``forbidden`` for another room's."""
    if player is None or player.left_at is not None:
        raise DomainError("unauthorized", "unknown seat token")
    if player.room_id != room_id:
        raise DomainError("forbidden", "this token belongs to another room")
    return Seat(player.id, room_code)


def room_code(code: str) -> str:
    """The room code normalized; ``room_not_found`` without a query for one no
    room can have (a NUL or any other character outside the codes' alphabet
    never reaches the database)."""
    normalized = secrets.lookup_code(code)
    if normalized is None:
        raise DomainError("room_not_found", f"no room {code!r}")
    return normalized


def _check_open(room: Room) -> None:
    if room.status == "closed":
        raise DomainError("room_closed", f"room {room.code} has closed: its last player left")


def _room(session: Session, code: str, lock: bool = False) -> Room:
    stmt = select(Room).where(Room.code == room_code(code))
    if lock:
        stmt = stmt.with_for_update()
    room = session.execute(stmt).scalar_one_or_none()
    if room is None:
        raise DomainError("room_not_found", f"no room {code!r}")
    return room


def _players(session: Session, room: Room) -> list[Player]:
    return list(session.execute(_PLAYERS, {"room_id": room.id}).scalars())


def _game(session: Session, room: Room, number: int) -> Game | None:
    if number < 1:
        return None
    return session.execute(select(Game).where(Game.room_id == room.id, Game.number == number)).scalar_one_or_none()
