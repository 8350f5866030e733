"""Post-game analyses and win chances for the API: reads, storage, caches,
and the CPU work run off the event loop: a finished game's review in worker
processes at the lowest CPU priority (:mod:`app.analysis.workers`), win
chances in a worker thread (``asyncio.to_thread``: their NumPy work releases
the GIL for most of its time, and they are computed only where a client
follows them).

A game's analysis is made when it is first asked for, then stored. Made as
each game ended, it cost the server about 5% of its event loop's time in
reads and a stored row under the write lock per game, for analyses most
games never have shown (bench/RESULTS.md); on request it costs only the
games someone opens, and the review itself (20-100 ms) is in the worker.

The composition root (``app.main``) makes one :class:`AnalysisService` and
puts :meth:`AnalysisService.watching` between the room service and its
publisher, so in a room whose win chances a client follows the new chances
are computed as soon as a box is scored, before the client asks again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
import time
from collections import OrderedDict
from collections.abc import Collection, Sequence
from typing import Any

import orjson
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from app.db import Database, Event, Game, Player, Room
from app.db.models import GameAnalysis
from app.rooms.errors import DomainError
from app.rooms.service import room_code
from app.rooms.types import Publisher
from app.rules import GameState, state_from_dict
from app.strategy import Advisor, StrategyStore, Variant
from app.strategy.tables import load_variance

from .chances import EXACT_OPEN, ROLLOUTS, FloatArray, Rollouts, chances_of
from .review import review
from .workers import ReviewPool

log = logging.getLogger("dicecup.analysis")

JSON = dict[str, Any]
_REVIEWED = ("turn_started", "rolled", "scored", "player_resigned", "game_finished")
CHANCES_CACHED = 1024
"""Rooms whose latest chances are kept (one entry per room, keyed by its version)."""
FOLLOWED_FOR = 600.0
"""Seconds after a client last asked for a room's chances during which they
are computed as soon as a box is scored there (a room nobody asks about
costs nothing: they are computed when asked, the same numbers)."""
REVIEWS_AT_ONCE = 16
"""Analyses being made at once (their games' events read, their reviews
queued or running), at most; further requests wait their turn holding
nothing but themselves, so requests for many games never pile their events
up in memory ahead of the review workers."""


class AnalysisService:
    def __init__(self, db: Database, strategy: StrategyStore | None, reviews: ReviewPool | None = None) -> None:
        self.db = db
        self.strategy = strategy
        self.reviews = reviews
        """Where finished games are reviewed (app.analysis.workers); None: in a worker thread."""
        self._in_progress: dict[tuple[str, int], asyncio.Future[JSON]] = {}
        self._rollouts: dict[Variant, Rollouts] = {}
        self._chances: OrderedDict[str, tuple[tuple[int, bytes], JSON]] = OrderedDict()
        self._computing: dict[tuple[str, int, bytes], asyncio.Future[JSON]] = {}
        self.computed = 0
        """Chances computed so far (the cache's misses)."""
        self._followed: OrderedDict[str, float] = OrderedDict()  # room -> when a client last asked
        self._tasks: set[asyncio.Task[Any]] = set()
        self._variances: dict[Variant, FloatArray] = {}
        self._variance_started: set[Variant] = set()
        self._processes: set[asyncio.subprocess.Process] = set()
        self._making = asyncio.Semaphore(REVIEWS_AT_ONCE)

    # -- post-game analysis -----------------------------------------------------------

    async def analysis(self, code: str, number: int) -> JSON:
        """Game ``number``'s analysis: stored if it was computed before, else
        computed now (once, even for concurrent requests) and stored."""
        code = room_code(code)
        key = (code, number)
        running = self._in_progress.get(key)
        if running is not None:
            return await asyncio.shield(running)
        future: asyncio.Future[JSON] = asyncio.get_running_loop().create_future()
        self._in_progress[key] = future
        try:
            result = await self._analysis(code, number)
        except BaseException as error:
            future.set_exception(error)
            future.exception()  # retrieved: no "never retrieved" warning when nobody else waits
            raise
        else:
            future.set_result(result)
            return result
        finally:
            del self._in_progress[key]

    async def _analysis(self, code: str, number: int) -> JSON:
        async with self.db.read() as session:
            room = (await session.execute(select(Room).where(Room.code == code))).scalar_one_or_none()
            if room is None:
                raise DomainError("room_not_found", f"no room {code!r}")
            game = (
                await session.execute(select(Game).where(Game.room_id == room.id, Game.number == number))
            ).scalar_one_or_none()
            if game is None:
                raise DomainError("game_not_found", f"room {room.code} has no game #{number}")
            if game.status != "finished":
                raise DomainError("game_in_progress", "the analysis is made once the game is over")
            stored = (
                await session.execute(select(GameAnalysis.data).where(GameAnalysis.game_id == game.id))
            ).scalar_one_or_none()
            if stored is not None:
                return dict(stored)
            state = state_from_dict(game.state)
            advisor = self._advisor(state)
            room_id, game_id = room.id, game.id
        async with self._making:
            async with self.db.read() as session:
                events = await self._game_events(session, room_id, number)
                seats = await session.execute(select(Player.id, Player.name).where(Player.room_id == room_id))
                names = dict(seats.all())
            if self.reviews is not None:
                reviewed = await self.reviews.review(advisor.variant, state.order, events)
            else:
                reviewed = await asyncio.to_thread(review, state.ruleset, state.order, events, advisor)
        data = _named(reviewed, number, names)
        try:
            async with self.db.write() as session:
                session.add(GameAnalysis(game_id=game_id, data=data))
        except IntegrityError:  # another instance stored it first: theirs is the same
            async with self.db.read() as session:
                found = await session.execute(select(GameAnalysis.data).where(GameAnalysis.game_id == game_id))
                return dict(found.scalar_one())
        return data

    def _advisor(self, state: GameState) -> Advisor:
        advisor = None if self.strategy is None else self.strategy.advisor(Variant.of(state.ruleset, state.options))
        if advisor is None:
            raise DomainError("strategy_unavailable", "the strategy tables are still being computed")
        return advisor

    @staticmethod
    async def _game_events(session: Any, room_id: int, number: int) -> list[JSON]:
        """The events of game ``number`` (its ``game_started`` up to the next game's)."""
        starts = (
            await session.execute(
                select(Event.version, Event.data)
                .where(Event.room_id == room_id, Event.type == "game_started")
                .order_by(Event.version)
            )
        ).all()
        first = next(version for version, data in starts if data.get("number") == number)
        later = [version for version, _ in starts if version > first]
        query = (
            select(Event.type, Event.player_id, Event.data)
            .where(Event.room_id == room_id, Event.version >= first, Event.type.in_(_REVIEWED))
            .order_by(Event.version)
        )
        if later:
            query = query.where(Event.version < later[0])
        rows = (await session.execute(query)).all()
        return [{"type": kind, "player_id": player, "data": data} for kind, player, data in rows]

    # -- win chances ---------------------------------------------------------------------

    async def chances(self, code: str) -> JSON:
        """Each player's chance of winning the room's current game (cached per
        room version; the simulation runs in a worker thread); the room is
        followed from now on (see :data:`FOLLOWED_FOR`)."""
        code = room_code(code)
        self._follow(code)
        return await self._chances_now(code)

    def _follow(self, code: str) -> None:
        self._followed[code] = time.monotonic()
        self._followed.move_to_end(code)
        while len(self._followed) > CHANCES_CACHED:
            self._followed.popitem(last=False)

    def _is_followed(self, code: str) -> bool:
        asked = self._followed.get(code)
        return asked is not None and time.monotonic() - asked < FOLLOWED_FOR

    async def _chances_now(self, code: str) -> JSON:
        async with self.db.read() as session:
            row = (
                await session.execute(
                    select(Room.id, Room.version, Game.number, Game.state, Game.winners)
                    .select_from(Room)
                    .outerjoin(Game, (Game.room_id == Room.id) & (Game.number == Room.game_number))
                    .where(Room.code == code)
                )
            ).first()
            if row is None:
                raise DomainError("room_not_found", f"no room {code!r}")
            # seats that resigned from the current game cannot win (they leave before the next starts)
            resigned = set(
                (
                    await session.execute(
                        select(Player.id).where(
                            Player.room_id == row[0], Player.left_at.is_(None), Player.resigned_at.is_not(None)
                        )
                    )
                ).scalars()
            )
        _, version, number, raw, winners = row
        if raw is None:
            raise DomainError("game_not_started", "no game has started in this room")
        # The chances depend on the scorecards alone: a roll, a keep or a
        # chat moves the room's version but not them, so they are cached per
        # scorecards (the game's last scored box), not per version.
        cards = orjson.dumps(raw["scorecards"], option=orjson.OPT_SORT_KEYS)
        cached = self._chances.get(code)
        if cached is not None and cached[0] == (number, cards):
            return {**cached[1], "version": version}
        key = (code, number, cards)
        running = self._computing.get(key)  # a warm-up (or another client) is computing these already
        if running is not None:
            return {**await asyncio.shield(running), "version": version}
        future: asyncio.Future[JSON] = asyncio.get_running_loop().create_future()
        self._computing[key] = future
        try:
            state = state_from_dict(raw)
            advisor = self._advisor(state)
            rollouts = self._rollouts_of(advisor)
            variance = self._variance_of(advisor.variant)
            self.computed += 1
            data = await asyncio.to_thread(_chances, state, rollouts, number, version, variance, resigned, winners)
        except BaseException as error:
            future.set_exception(error)
            future.exception()  # retrieved: no "never retrieved" warning when nobody else waits
            raise
        finally:
            del self._computing[key]
        future.set_result(data)
        self._chances[code] = ((number, cards), data)
        self._chances.move_to_end(code)
        while len(self._chances) > CHANCES_CACHED:
            self._chances.popitem(last=False)
        return data

    def _rollouts_of(self, advisor: Advisor) -> Rollouts:
        rollouts = self._rollouts.get(advisor.variant)
        if rollouts is None or rollouts.advisor is not advisor:
            rollouts = self._rollouts[advisor.variant] = Rollouts(advisor)
        return rollouts

    def _variance_of(self, variant: Variant) -> FloatArray | None:
        """The variant's variance table once loaded; the first call starts
        loading it (computing it first in a child process if it is missing and
        the server may solve tables). Until then the chances are simulated."""
        found = self._variances.get(variant)
        if found is None and variant not in self._variance_started:
            self._variance_started.add(variant)
            self._spawn(self._prepare_variance(variant))
        return found

    async def _prepare_variance(self, variant: Variant) -> None:
        if self.strategy is None:
            return
        directory = self.strategy.directory
        try:
            table = await asyncio.to_thread(load_variance, directory, variant)
            if table is None and self.strategy.solve:
                log.info("computing the variance table of %s (in %s)", variant.key, directory)
                options = ["--joker", variant.joker] if variant.joker else []
                if variant.upper_first:
                    options.append("--upper-first")
                process = await asyncio.create_subprocess_exec(
                    sys.executable,
                    *("-m", "app.strategy", "solve", variant.ruleset, *options, "--variance", "--quiet"),
                    *("--workers", "1", "--dir", str(directory)),
                    stdout=asyncio.subprocess.DEVNULL,
                    stderr=asyncio.subprocess.PIPE,
                )
                self._processes.add(process)
                try:
                    _, errors = await process.communicate()
                finally:
                    self._processes.discard(process)
                if process.returncode != 0:
                    text = errors.decode(errors="replace").strip()
                    log.error("variance table of %s not computed: %s", variant.key, text[-2000:])
                table = await asyncio.to_thread(load_variance, directory, variant)
            if table is not None:
                self._variances[variant] = table
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("variance table of %s could not be prepared", variant.key)

    # -- started by events -------------------------------------------------------------

    def watching(self, publisher: Publisher) -> Publisher:
        """``publisher``, telling this service of each scored box first."""
        return _Watching(self, publisher)

    def _seen(self, code: str, events: Sequence[JSON], room: JSON) -> None:
        for event in events:
            if event["type"] == "scored" and self._worth_warming(code, room):
                self._spawn(self._warm(code))

    def _spawn(self, coroutine: Any) -> None:
        task = asyncio.get_running_loop().create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _worth_warming(self, code: str, room: JSON) -> bool:
        """Whether to compute a room's chances as a box is scored: only where a
        client follows them, and only if they can be computed (the variant's
        table is loaded: else a request gets 503 anyway). Checked on the
        action's path, so it reads nothing: a room nobody follows costs no
        query and no computation."""
        return self._is_followed(code) and self._can_review(room)

    def _can_review(self, room: JSON) -> bool:
        """Whether the room's variant has its table loaded (else its chances
        would only be refused with ``strategy_unavailable``: nothing to start;
        a request later computes them once the table is there)."""
        if self.strategy is None:
            return False
        return self.strategy.advisor(Variant.of(room["ruleset"], room.get("options"))) is not None

    async def _warm(self, code: str) -> None:
        try:
            await self._chances_now(code)
        except DomainError:
            pass
        except Exception:
            log.exception("win chances of room %s failed", code)

    async def close(self) -> None:
        for process in list(self._processes):
            with contextlib.suppress(ProcessLookupError):
                process.terminate()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self.reviews is not None:
            await self.reviews.close()


class _Watching:
    def __init__(self, service: AnalysisService, inner: Publisher) -> None:
        self.service = service
        self.inner = inner

    async def publish(self, code: str, events: Sequence[JSON], room: JSON) -> None:
        await self.inner.publish(code, events, room)
        self.service._seen(code, events, room)


def _named(data: JSON, number: int, names: dict[str, str]) -> JSON:
    for seat in data["seats"]:
        seat["name"] = names.get(seat["player_id"], "?")
    return {"number": number, **data}


def _chances(
    state: GameState,
    rollouts: Rollouts,
    number: int,
    version: int,
    variance: FloatArray | None,
    resigned: Collection[str] = (),
    winners: Sequence[str] | None = None,
) -> JSON:
    """The chances as served. Seats that ``resigned`` cannot win: their chance
    is 0 and the others share it all (unless every seat resigned). A finished
    game's chances are its ``winners``' (sharing the win)."""
    order = list(state.order)
    if state.finished:
        totals = {p: rollouts.advisor.rules.totals(card).total for p, card in state.scorecards.items()}
        if not winners:
            best = max(totals.values())
            winners = [p for p in order if totals[p] == best]
        chance = {p: (1 / len(winners) if p in winners else 0.0) for p in order}
        expected = {p: float(totals[p]) for p in order}
    else:
        can_win = [p for p in order if p not in resigned] or order
        chance, expected = chances_of(rollouts, state.scorecards, order, variance, eligible=can_win)
    return {
        "number": number,
        "version": version,
        "status": state.status,
        "method": "monte_carlo" if variance is None else "normal_mixture",
        "exact_open_boxes": None if variance is None else EXACT_OPEN,
        "rollouts": ROLLOUTS,
        "players": [
            {
                "player_id": p,
                "total": rollouts.advisor.rules.totals(state.scorecards[p]).total,
                "expected": round(expected[p], 4),
                "chance": round(chance[p], 4),
            }
            for p in order
        ],
    }
