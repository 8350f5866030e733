"""The profile use cases (see :mod:`app.profiles`).

Tokens, usernames and passwords, signing in and out: :mod:`.accounts` (the
service's base class).

Results are recorded when a game finishes: :meth:`ProfileService.watching`
wraps the room service's publisher, and after each committed ``game_finished``
the room's unrecorded finished games are written to ``game_results`` (with
the bests and ratings they move) in one transaction, before the action's
answer goes out: a client that has its final ``scored`` answer sees its new
stats. A game is recorded at most once (``game_results``' unique seat per game).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Literal, Protocol

from sqlalchemy import Integer, case, func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from app.db import Database, Event, Game, Player, Room
from app.db.models import (
    Best,
    GameResult,
    PeriodRating,
    Profile,
    ProfileCredential,
    ProfileToken,
    Rating,
    RatingChange,
    utcnow,
)
from app.rooms import DomainError, RoomService
from app.rooms import secrets as room_secrets
from app.rooms.service import _Changes
from app.rooms.types import Publisher
from app.rooms.views import JSON, iso_utc
from app.rules import get_ruleset, state_from_dict

from . import ratings
from .accounts import Accounts
from .tokens import ProfileAuth

log = logging.getLogger("dicecup.profiles")

Period = Literal["all", "month", "week"]
Kind = Literal["best", "rating"]
DELETED_NAME = "Deleted player"
HISTOGRAM_BIN = 25
"""Points per bar of a stats histogram."""
_PROFILE_ID = re.compile(r"^[A-Za-z0-9_-]{12}$")


def period_start(period: Period, at: datetime) -> str:
    """The first day (UTC) of the period ``at`` falls in: ``''`` for ``all``,
    the month's first day, or the ISO week's Monday."""
    day = at.astimezone(UTC).date() if at.tzinfo else at.date()
    if period == "all":
        return ""
    if period == "month":
        return day.replace(day=1).isoformat()
    return (day - timedelta(days=day.weekday())).isoformat()


def replay_path(code: str, number: int) -> str:
    return f"/r/{code}/games/{number}"


class ProfileService(Accounts):
    def __init__(self, db: Database) -> None:
        self.db = db

    # -- profiles and tokens ----------------------------------------------------------------

    async def create(self, name: str) -> tuple[JSON, str]:
        """A new profile and its first token."""
        token = room_secrets.new_token()
        async with self.db.write() as session:
            profile = Profile(id=room_secrets.new_player_id(), name=name, created_at=utcnow())
            session.add(profile)
            await session.flush()
            session.add(ProfileToken(profile_id=profile.id, token_hash=room_secrets.token_hash(token), kind="profile"))
            view = await self._view(session, profile, private=True)
        return view, token

    async def profile(self, profile_id: str, private: bool = False) -> JSON:
        async with self.db.read() as session:
            profile = await self._profile(session, profile_id)
            return await self._view(session, profile, private=private)

    async def rename(self, auth: ProfileAuth, name: str) -> JSON:
        """Give the profile a new name (seats and results keep the names they were made with)."""
        async with self.db.write() as session:
            profile = await self._profile(session, auth.profile_id)
            profile.name = name
            await session.flush()
            return await self._view(session, profile, private=True)

    # -- seats --------------------------------------------------------------------------------

    async def take_back_seat(
        self, rooms: RoomService, auth: ProfileAuth, code: str, player_id: str
    ) -> tuple[JSON, str]:
        """A new token for a seat of this profile in an open room; the old one
        stops working, and a ``seat_token_rotated`` event (after which every
        instance's hub closes the seat's sockets) is published through the
        room service (its transaction helpers: the room locked, the version
        moved, the event appended and published after the commit)."""
        token = room_secrets.new_token()
        changes = _Changes()
        async with self.db.write() as session:
            room = await rooms._room(session, code, lock=True)
            player = (
                await session.execute(
                    select(Player).where(Player.room_id == room.id, Player.id == player_id, Player.left_at.is_(None))
                )
            ).scalar_one_or_none()
            if player is None or player.bot is not None:
                raise DomainError("player_not_found", f"room {room.code} has no player {player_id}")
            if player.profile_id != auth.profile_id:
                raise DomainError("forbidden", "this seat is not your profile's")
            if room.status == "closed":
                raise DomainError("room_closed", f"room {room.code} has closed: its last player left")
            player.token_hash = room_secrets.token_hash(token)
            rooms._append(
                session, room, changes, [("seat_token_rotated", player.id, {"player": rooms._pv(player, room)})]
            )
            view = await rooms._view(session, room)
            seat = rooms._pv(player, room)
        await rooms._publish(view, changes)
        return seat, token

    # -- results ------------------------------------------------------------------------------

    def watching(self, publisher: Publisher) -> Publisher:
        """``publisher``, recording each finished game's results after it is published."""
        return _Watching(self, publisher)

    async def record_room(self, code: str) -> int:
        """Record every finished game of the room not yet recorded; how many."""
        async with self.db.read() as session:
            room_id = (await session.execute(select(Room.id).where(Room.code == code))).scalar_one_or_none()
            if room_id is None:
                return 0
            recorded = select(GameResult.game_id).where(GameResult.game_id == Game.id).exists()
            games = (
                await session.execute(
                    select(Game.id).where(Game.room_id == room_id, Game.status == "finished", ~recorded)
                )
            ).scalars()
            ids = list(games)
        for game_id in ids:
            await self.record_game(game_id)
        return len(ids)

    async def record_game(self, game_id: int) -> bool:
        """Write a finished game's results, bests and ratings (once)."""
        try:
            async with self.db.write() as session:
                return await self._record(session, game_id)
        except IntegrityError:
            return False  # recorded meanwhile (another instance)

    async def _record(self, session: AsyncSession, game_id: int) -> bool:
        game = await session.get(Game, game_id)
        if game is None or game.status != "finished":
            return False
        if (await session.execute(select(GameResult.id).where(GameResult.game_id == game_id).limit(1))).first():
            return False
        room = await session.get(Room, game.room_id)
        assert room is not None
        state = state_from_dict(game.state)
        rules = get_ruleset(state.ruleset)
        players = {
            p.id: p for p in (await session.execute(select(Player).where(Player.id.in_(list(state.order))))).scalars()
        }
        totals = {pid: rules.totals(state.scorecards[pid]) for pid in state.order}
        winners = set(game.winners or [])
        at = game.finished_at or utcnow()
        # The winners first (a game that ended because everyone else resigned has its one
        # winner, whatever the totals), then everyone who played on by total, then the
        # seats that resigned, by total among themselves; equal places tie.
        resigned = {pid for pid, p in players.items() if p.resigned_at is not None}

        def rank(pid: str) -> tuple[int, int]:
            return (0 if pid in winners else 2 if pid in resigned else 1, -totals[pid].total)

        def place(pid: str) -> int:
            return 1 + sum(1 for o in state.order if rank(o) < rank(pid))

        results = []
        for pid in state.order:
            player, total = players.get(pid), totals[pid]
            card = state.scorecards[pid]
            five = 1 if card.boxes.get(state.ruleset) else 0  # the yahtzee / yacht / yatzy box
            result = GameResult(
                game_id=game.id,
                room_code=room.code,
                game_number=game.number,
                ruleset=state.ruleset,
                player_id=pid,
                profile_id=None if player is None else player.profile_id,
                name="?" if player is None else player.name,
                bot=None if player is None else player.bot,
                seats=len(state.order),
                score=total.total,
                place=place(pid),
                won=pid in winners,
                yahtzees=five + total.yahtzee_bonus // 100,
                upper_bonus=total.upper_bonus > 0,
                complete=card.complete,
                finished_at=at,
            )
            session.add(result)
            results.append(result)
        await session.flush()
        for result in results:
            if result.profile_id is not None and result.complete:  # an unfinished card is never a best
                await self._best(session, result)
        await self._rate(session, results, at)
        return True

    @staticmethod
    async def _best(session: AsyncSession, result: GameResult) -> None:
        assert result.profile_id is not None
        for period in ("all", "month", "week"):
            key = (result.profile_id, result.ruleset, period, period_start(period, result.finished_at))
            best = await session.get(Best, key)
            if best is None:
                session.add(
                    Best(
                        profile_id=key[0],
                        ruleset=key[1],
                        period=key[2],
                        period_start=key[3],
                        score=result.score,
                        room_code=result.room_code,
                        game_number=result.game_number,
                        achieved_at=result.finished_at,
                    )
                )
            elif result.score > best.score:
                best.score, best.room_code, best.game_number = result.score, result.room_code, result.game_number
                best.achieved_at = result.finished_at

    @staticmethod
    async def _rate(session: AsyncSession, results: Sequence[GameResult], at: datetime) -> None:
        """OpenSkill update among the game's profile seats, by their places (see :mod:`.ratings`)."""
        rated = [r for r in results if r.profile_id is not None and r.bot is None]
        profiles = [r.profile_id for r in rated]
        if len(rated) < 2 or len(set(profiles)) != len(profiles):
            return
        ruleset = rated[0].ruleset
        rows = {
            r.profile_id: r
            for r in (
                await session.execute(select(Rating).where(Rating.ruleset == ruleset, Rating.profile_id.in_(profiles)))
            ).scalars()
        }
        before = [
            ratings.Skill(rows[p].mu, rows[p].sigma) if p in rows else ratings.Skill(ratings.MU, ratings.SIGMA)
            for p in profiles
        ]
        after = ratings.rate(before, [r.place for r in rated])
        for result, old, new in zip(rated, before, after, strict=True):
            assert result.profile_id is not None
            row = rows.get(result.profile_id)
            if row is None:
                row = Rating(profile_id=result.profile_id, ruleset=ruleset, games=0)
                session.add(row)
            row.mu, row.sigma, row.ordinal = new.mu, new.sigma, ratings.ordinal(new.mu, new.sigma)
            row.games = (row.games or 0) + 1
            row.updated_at = at
            for period in ("month", "week"):
                key = (result.profile_id, ruleset, period, period_start(period, at))
                held = await session.get(PeriodRating, key)
                if held is None:
                    held = PeriodRating(profile_id=key[0], ruleset=key[1], period=key[2], period_start=key[3])
                    session.add(held)
                held.mu, held.sigma, held.ordinal, held.games = row.mu, row.sigma, row.ordinal, row.games
                held.updated_at = at
            session.add(
                RatingChange(
                    profile_id=result.profile_id,
                    ruleset=ruleset,
                    room_code=result.room_code,
                    game_number=result.game_number,
                    mu_before=old.mu,
                    sigma_before=old.sigma,
                    mu=new.mu,
                    sigma=new.sigma,
                    at=at,
                )
            )

    # -- stats, boards, history ---------------------------------------------------------------

    async def stats(self, profile_id: str, ruleset: str | None) -> JSON:
        async with self.db.read() as session:
            profile = await self._profile(session, profile_id)
            return {"profile_id": profile.id, "rulesets": await self._stats(session, profile.id, ruleset)}

    @staticmethod
    async def _stats(session: AsyncSession, profile_id: str, ruleset: str | None) -> dict[str, JSON]:
        where = [GameResult.profile_id == profile_id]
        if ruleset is not None:
            where.append(GameResult.ruleset == ruleset)
        # Games, wins and Yahtzees count every result; the score's figures only full cards
        # (a game that ended because everyone else resigned leaves the winner's unfinished).
        full = GameResult.complete.is_(True)
        rows = (
            await session.execute(
                select(
                    GameResult.ruleset,
                    func.count(),
                    func.sum(func.cast(GameResult.won, Integer)),
                    func.avg(case((full, GameResult.score))),
                    func.max(case((full, GameResult.score))),
                    func.sum(GameResult.yahtzees),
                    func.sum(case((full, func.cast(GameResult.upper_bonus, Integer)))),
                    func.count(case((full, 1))),
                )
                .where(*where)
                .group_by(GameResult.ruleset)
            )
        ).all()
        solo_rows = await session.execute(
            select(GameResult.ruleset, func.max(GameResult.score))
            .where(*where, full, GameResult.seats == 1)
            .group_by(GameResult.ruleset)
        )
        solo: dict[str, int] = {rs: int(best) for rs, best in solo_rows.all()}
        bins: dict[str, dict[int, int]] = {}
        bucket = GameResult.score // HISTOGRAM_BIN
        for rs, b, n in (
            await session.execute(
                select(GameResult.ruleset, bucket, func.count())
                .where(*where, full)
                .group_by(GameResult.ruleset, bucket)
            )
        ).all():
            bins.setdefault(rs, {})[int(b)] = int(n)
        out: dict[str, JSON] = {}
        for rs, games, wins, average, best, yahtzees, bonuses, finished in rows:
            out[rs] = {
                "games": int(games),
                "wins": int(wins or 0),
                "win_rate": round(int(wins or 0) / games, 4),
                "average": None if average is None else round(float(average), 2),
                "best": None if best is None else int(best),
                "solo_best": solo.get(rs),
                "yahtzees": int(yahtzees or 0),
                "upper_bonus_rate": round(int(bonuses or 0) / finished, 4) if finished else None,
                "histogram": [
                    {"from": b * HISTOGRAM_BIN, "to": b * HISTOGRAM_BIN + HISTOGRAM_BIN - 1, "games": n}
                    for b, n in sorted(bins.get(rs, {}).items())
                ],
            }
        return out

    async def rating_history(self, profile_id: str, ruleset: str | None, offset: int, limit: int) -> JSON:
        async with self.db.read() as session:
            profile = await self._profile(session, profile_id)
            where = [RatingChange.profile_id == profile.id]
            if ruleset is not None:
                where.append(RatingChange.ruleset == ruleset)
            changes = (
                await session.execute(
                    select(RatingChange).where(*where).order_by(RatingChange.id).offset(offset).limit(limit)
                )
            ).scalars()
            return {"profile_id": profile.id, "history": [_change_view(c) for c in changes]}

    async def leaderboard(
        self, ruleset: str, kind: Kind, period: Period, offset: int, limit: int, now: datetime | None = None
    ) -> JSON:
        """One page of a board. Each query reads its page from one index in the
        board's order (``ix_bests_board``, ``ix_ratings_board``,
        ``ix_period_ratings_board``: index-only on PostgreSQL) and joins the
        names of that page only."""
        start = period_start(period, now or utcnow())
        async with self.db.read() as session:
            entries: list[JSON] = []
            if kind == "best":
                best = (
                    select(Best.profile_id, Best.score, Best.achieved_at, Best.room_code, Best.game_number)
                    .where(Best.ruleset == ruleset, Best.period == period, Best.period_start == start)
                    .order_by(Best.score.desc(), Best.achieved_at, Best.profile_id)
                    .offset(offset)
                    .limit(limit + 1)
                    .subquery()
                )
                stmt = (
                    select(best, Profile.name)
                    .join(Profile, Profile.id == best.c.profile_id)
                    .order_by(best.c.score.desc(), best.c.achieved_at, best.c.profile_id)
                )
                for row in (await session.execute(stmt)).all():
                    entries.append(
                        {
                            "rank": offset + len(entries) + 1,
                            "profile_id": row.profile_id,
                            "name": row.name,
                            "score": row.score,
                            "rating": None,
                            "game": _game_ref(row.room_code, row.game_number),
                            "at": iso_utc(row.achieved_at),
                        }
                    )
            else:
                # all time: the ratings themselves; a month or week: each
                # profile's rating after its last rated game in it
                table = Rating if period == "all" else PeriodRating
                where = [table.ruleset == ruleset]
                if table is PeriodRating:
                    where += [PeriodRating.period == period, PeriodRating.period_start == start]
                rated = (
                    select(table.profile_id, table.mu, table.sigma, table.ordinal, table.games, table.updated_at)
                    .where(*where)
                    .order_by(table.ordinal.desc(), table.profile_id.desc())
                    .offset(offset)
                    .limit(limit + 1)
                    .subquery()
                )
                stmt = (
                    select(rated, Profile.name)
                    .join(Profile, Profile.id == rated.c.profile_id)
                    .order_by(rated.c.ordinal.desc(), rated.c.profile_id.desc())
                )
                for row in (await session.execute(stmt)).all():
                    entries.append(
                        {
                            "rank": offset + len(entries) + 1,
                            "profile_id": row.profile_id,
                            "name": row.name,
                            "score": None,
                            "rating": _rating_view(row),
                            "game": None,
                            "at": iso_utc(row.updated_at),
                        }
                    )
        more = len(entries) > limit
        return {
            "ruleset": ruleset,
            "kind": kind,
            "period": period,
            "period_start": start or None,
            "offset": offset,
            "entries": entries[:limit],
            "next_offset": offset + limit if more else None,
        }

    async def games(self, auth: ProfileAuth, offset: int, limit: int) -> JSON:
        """The profile's open seats (rooms not closed: rejoin from any device), then its
        finished games, newest first."""
        async with self.db.read() as session:
            seats = (
                await session.execute(
                    select(Player, Room)
                    .join(Room, Room.id == Player.room_id)
                    .where(Player.profile_id == auth.profile_id, Player.left_at.is_(None), Room.status != "closed")
                    .order_by(Player.joined_at.desc())
                    .limit(100)
                )
            ).all()
            open_seats = [
                {
                    "room_code": room.code,
                    "ruleset": room.ruleset,
                    "status": room.status,
                    "player_id": player.id,
                    "name": player.name,
                    "game_number": room.game_number,
                    "joined_at": iso_utc(player.joined_at),
                }
                for player, room in seats
            ]
            results = (
                await session.execute(
                    select(GameResult)
                    .where(GameResult.profile_id == auth.profile_id)
                    .order_by(GameResult.finished_at.desc(), GameResult.id.desc())
                    .offset(offset)
                    .limit(limit + 1)
                )
            ).scalars()
            games = [_result_view(r) for r in results]
        return {
            "open": open_seats,
            "games": games[:limit],
            "next_offset": offset + limit if len(games) > limit else None,
        }

    # -- privacy ------------------------------------------------------------------------------

    async def export(self, auth: ProfileAuth) -> JSON:
        """Everything stored about the profile (token digests excepted)."""
        async with self.db.read() as session:
            profile = await self._profile(session, auth.profile_id)
            pid = profile.id
            view = await self._view(session, profile, private=True)
            tokens = (
                await session.execute(
                    select(ProfileToken).where(ProfileToken.profile_id == pid).order_by(ProfileToken.id)
                )
            ).scalars()
            seats = (
                await session.execute(
                    select(Player, Room.code)
                    .join(Room, Room.id == Player.room_id)
                    .where(Player.profile_id == pid)
                    .order_by(Player.joined_at)
                )
            ).all()
            results = (
                await session.execute(
                    select(GameResult).where(GameResult.profile_id == pid).order_by(GameResult.finished_at)
                )
            ).scalars()
            bests = (
                await session.execute(
                    select(Best).where(Best.profile_id == pid).order_by(Best.ruleset, Best.period, Best.period_start)
                )
            ).scalars()
            changes = (
                await session.execute(
                    select(RatingChange).where(RatingChange.profile_id == pid).order_by(RatingChange.id)
                )
            ).scalars()
            periods = (
                await session.execute(
                    select(PeriodRating)
                    .where(PeriodRating.profile_id == pid)
                    .order_by(PeriodRating.ruleset, PeriodRating.period, PeriodRating.period_start)
                )
            ).scalars()
            return {
                "profile": view,
                "tokens": [{"kind": t.kind, "created_at": iso_utc(t.created_at)} for t in tokens],
                "seats": [
                    {
                        "room_code": code,
                        "player_id": p.id,
                        "name": p.name,
                        "bot": p.bot,
                        "joined_at": iso_utc(p.joined_at),
                        "left_at": None if p.left_at is None else iso_utc(p.left_at),
                    }
                    for p, code in seats
                ],
                "games": [_result_view(r) for r in results],
                "bests": [
                    {
                        "ruleset": b.ruleset,
                        "period": b.period,
                        "period_start": b.period_start or None,
                        "score": b.score,
                        "game": _game_ref(b.room_code, b.game_number),
                        "at": iso_utc(b.achieved_at),
                    }
                    for b in bests
                ],
                "rating_history": [_change_view(c) for c in changes],
                "period_ratings": [
                    {
                        "ruleset": r.ruleset,
                        "period": r.period,
                        "period_start": r.period_start,
                        "rating": _rating_view(r),
                        "at": iso_utc(r.updated_at),
                    }
                    for r in periods
                ],
            }

    async def delete(self, auth: ProfileAuth) -> None:
        """Delete the profile: its tokens, credentials, bests and ratings go;
        its seats and results stay for the other players' history and stats,
        renamed ``Deleted player`` and linked to no profile."""
        async with self.db.write() as session:
            profile = await self._profile(session, auth.profile_id)
            pid = profile.id
            seat_ids = list((await session.execute(select(Player.id).where(Player.profile_id == pid))).scalars())
            await session.execute(
                update(Player).where(Player.profile_id == pid).values(profile_id=None, name=DELETED_NAME)
            )
            await session.execute(
                update(GameResult).where(GameResult.profile_id == pid).values(profile_id=None, name=DELETED_NAME)
            )
            if seat_ids:
                events = (
                    await session.execute(
                        select(Event).where(
                            Event.player_id.in_(seat_ids),
                            Event.type.in_(["player_joined", "player_left", "seat_token_rotated"]),
                        )
                    )
                ).scalars()
                for event in events:
                    player = dict(event.data.get("player") or {})
                    if player:
                        event.data = {**event.data, "player": {**player, "name": DELETED_NAME}}
            await session.delete(profile)

    # -- helpers ------------------------------------------------------------------------------

    @staticmethod
    async def _profile(session: AsyncSession, profile_id: str) -> Profile:
        profile = await session.get(Profile, profile_id) if _PROFILE_ID.match(profile_id) else None
        if profile is None:
            raise DomainError("profile_not_found", f"no profile {profile_id!r}")
        return profile

    async def _view(self, session: AsyncSession, profile: Profile, private: bool = False) -> JSON:
        rows = (await session.execute(select(Rating).where(Rating.profile_id == profile.id))).scalars()
        headline = (
            await session.execute(
                select(
                    GameResult.ruleset,
                    func.count(),
                    func.sum(func.cast(GameResult.won, Integer)),
                    func.max(case((GameResult.complete.is_(True), GameResult.score))),
                )
                .where(GameResult.profile_id == profile.id)
                .group_by(GameResult.ruleset)
            )
        ).all()
        view: JSON = {
            "id": profile.id,
            "name": profile.name,
            "created_at": iso_utc(profile.created_at),
            "ratings": {r.ruleset: _rating_view(r) for r in rows},
            "stats": {
                rs: {"games": int(n), "wins": int(w or 0), "best": None if b is None else int(b)}
                for rs, n, w, b in headline
            },
        }
        if private:
            username = (
                await session.execute(
                    select(ProfileCredential.username).where(ProfileCredential.profile_id == profile.id)
                )
            ).scalar_one_or_none()
            view["username"] = username
        return view


def _game_ref(code: str, number: int) -> JSON:
    return {"room_code": code, "number": number, "replay": replay_path(code, number)}


class _Rated(Protocol):
    @property
    def mu(self) -> float: ...
    @property
    def sigma(self) -> float: ...
    @property
    def ordinal(self) -> float: ...
    @property
    def games(self) -> int: ...


def _rating_view(rating: _Rated) -> JSON:
    return {
        "mu": round(rating.mu, 4),
        "sigma": round(rating.sigma, 4),
        "ordinal": round(rating.ordinal, 4),
        "games": rating.games,
    }


def _change_view(change: RatingChange) -> JSON:
    return {
        "ruleset": change.ruleset,
        "game": _game_ref(change.room_code, change.game_number),
        "before": {"mu": change.mu_before, "sigma": change.sigma_before},
        "after": {"mu": change.mu, "sigma": change.sigma},
        "at": iso_utc(change.at),
    }


def _result_view(result: GameResult) -> JSON:
    return {
        "ruleset": result.ruleset,
        "game": _game_ref(result.room_code, result.game_number),
        "player_id": result.player_id,
        "name": result.name,
        "seats": result.seats,
        "score": result.score,
        "place": result.place,
        "won": result.won,
        "yahtzees": result.yahtzees,
        "upper_bonus": result.upper_bonus,
        "complete": result.complete,
        "finished_at": iso_utc(result.finished_at),
    }


class _Watching:
    def __init__(self, service: ProfileService, inner: Publisher) -> None:
        self.service = service
        self.inner = inner

    async def publish(self, code: str, events: Sequence[JSON], room: JSON) -> None:
        await self.inner.publish(code, events, room)
        if any(event["type"] == "game_finished" for event in events):
            try:
                await self.service.record_room(code)
            except Exception:  # stats must never take an action down
                log.exception("recording the results of room %s failed", code)


__all__: list[str] = ["ProfileAuth", "ProfileService", "period_start"]
