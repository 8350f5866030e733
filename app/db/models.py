"""The tables: rooms, their seats, their games and the append-only event log."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    UniqueConstraint,
    false,
    true,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

Json = JSON().with_variant(JSONB(), "postgresql")
# SQLite only auto-increments an INTEGER PRIMARY KEY.
BigId = BigInteger().with_variant(Integer(), "sqlite")


def utcnow() -> datetime:
    return datetime.now(UTC)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)


class Room(Base):
    __tablename__ = "rooms"
    __table_args__ = (
        Index("ix_rooms_public_lobby", "public", "status", "ruleset", "created_at"),
        Index("ix_rooms_updated_at", "updated_at"),
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    code: Mapped[str] = mapped_column(String(12), unique=True)
    ruleset: Mapped[str] = mapped_column(String(32))
    options: Mapped[dict[str, Any]] = mapped_column(Json)
    max_players: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(16), default="lobby")
    host_id: Mapped[str | None] = mapped_column(String(32))
    version: Mapped[int] = mapped_column(Integer, default=0)
    game_number: Mapped[int] = mapped_column(Integer, default=0)
    next_deadline: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), index=True)
    """When the scheduler is to look at the room next: a bot's move, an autopilot's, or the turn clock's deadline."""
    turn_deadline: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)
    """The current turn's deadline (option ``turn_seconds``); null: untimed, or the autopilot has the turn."""
    absent_deadline: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)
    """Untimed rooms: the person whose turn it is has no socket open; at this time their seat becomes away
    (``app.lifecycle.absence``). Null otherwise."""
    public: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    """Option ``public``, as a column: ``GET /api/rooms`` lists public lobby rooms by it (app.lifecycle)."""
    history: Mapped[list[dict[str, Any]]] = mapped_column(Json, default=list)
    """Each finished game's number, totals and winners (kept here so that a room view needs no query)."""
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class Player(Base):
    """A seat. ``left_at`` is set when the player leaves: the row stays so that
    finished games keep naming them."""

    __tablename__ = "players"
    __table_args__ = (Index("ix_players_room_id_seat", "room_id", "seat"),)

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    room_id: Mapped[int] = mapped_column(ForeignKey("rooms.id", ondelete="CASCADE"))
    seat: Mapped[int | None] = mapped_column(Integer)
    name: Mapped[str] = mapped_column(String(64))
    token_hash: Mapped[str | None] = mapped_column(String(64), unique=True)
    bot: Mapped[str | None] = mapped_column(String(16))
    profile_id: Mapped[str | None] = mapped_column(
        ForeignKey("profiles.id", ondelete="SET NULL"), index=True, default=None
    )
    """The profile whose token created or joined with this seat (``app.profiles``); null for anonymous seats."""
    joined_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    left_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    away: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    """Timed out twice in a row: the autopilot plays their turns at once until they act or reconnect."""
    timeouts: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    """Turns timed out in a row (reset by the player's own action)."""
    resigned_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)
    """Resigned from the current game: the autopilot finishes their scorecard and they cannot win."""
    muted: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    """The host muted the seat's chat (``app.chat``): its chat is refused with ``muted``."""
    removed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)
    """When the host removed the seat from the room (``app.rooms.rejoin``); null if it left by itself."""

    @property
    def resigned(self) -> bool:
        return self.resigned_at is not None


class Lease(Base):
    """A job only one instance may run at a time (the room sweeper): held by ``holder`` until ``until``."""

    __tablename__ = "leases"

    name: Mapped[str] = mapped_column(String(32), primary_key=True)
    holder: Mapped[str] = mapped_column(String(64))
    until: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class Game(Base):
    __tablename__ = "games"
    __table_args__ = (UniqueConstraint("room_id", "number"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    room_id: Mapped[int] = mapped_column(ForeignKey("rooms.id", ondelete="CASCADE"))
    number: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(16), default="playing")
    state: Mapped[dict[str, Any]] = mapped_column(Json)
    seed: Mapped[str] = mapped_column(String(64))
    commitment: Mapped[str] = mapped_column(String(64))
    totals: Mapped[dict[str, int] | None] = mapped_column(Json)
    winners: Mapped[list[str] | None] = mapped_column(Json)
    hints: Mapped[dict[str, list[list[int]]] | None] = mapped_column(Json, default=None)
    """Each seat's hinted rolls in this game, as ``[round, rolls_left]`` pairs (``hint_used``)."""
    started_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class Event(Base):
    __tablename__ = "events"
    __table_args__ = (UniqueConstraint("room_id", "version"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    room_id: Mapped[int] = mapped_column(ForeignKey("rooms.id", ondelete="CASCADE"))
    version: Mapped[int] = mapped_column(Integer)
    type: Mapped[str] = mapped_column(String(32))
    player_id: Mapped[str | None] = mapped_column(String(32))
    data: Mapped[dict[str, Any]] = mapped_column(Json)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class ActionResult(Base):
    """An applied action's answer, remembered by its client ``id`` (idempotency)."""

    __tablename__ = "action_results"
    __table_args__ = (UniqueConstraint("room_id", "player_id", "game_number", "client_id"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    room_id: Mapped[int] = mapped_column(ForeignKey("rooms.id", ondelete="CASCADE"))
    player_id: Mapped[str] = mapped_column(String(32))
    game_number: Mapped[int] = mapped_column(Integer)
    client_id: Mapped[str] = mapped_column(String(64))
    action: Mapped[dict[str, Any]] = mapped_column(Json)
    first_version: Mapped[int] = mapped_column(Integer)
    version: Mapped[int] = mapped_column(Integer)


class GameAnalysis(Base):
    """A finished game's post-game analysis (``app.analysis``): computed once, then served."""

    __tablename__ = "game_analyses"

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), unique=True)
    data: Mapped[dict[str, Any]] = mapped_column(Json)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


# -- profiles (app.profiles) --------------------------------------------------------------------


class Profile(Base):
    """A player who comes back: seats, results and ratings point here."""

    __tablename__ = "profiles"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    name: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class ProfileToken(Base):
    """A bearer token of a profile: the one it was made with (``kind`` profile) or a sign-in's (session).
    Only the SHA-256 is stored; a token is found by its digest."""

    __tablename__ = "profile_tokens"

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    profile_id: Mapped[str] = mapped_column(ForeignKey("profiles.id", ondelete="CASCADE"), index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    kind: Mapped[str] = mapped_column(String(16))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    last_used_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=utcnow)
    """When the token was last used (written at most every few minutes); idle too long, it stops working."""


class ProfileCredential(Base):
    """A profile's username (stored case-folded) and Argon2id password hash."""

    __tablename__ = "profile_credentials"

    profile_id: Mapped[str] = mapped_column(ForeignKey("profiles.id", ondelete="CASCADE"), primary_key=True)
    username: Mapped[str] = mapped_column(String(64), unique=True)
    password_hash: Mapped[str] = mapped_column(String(255))
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class GameResult(Base):
    """One seat's result in one finished game, kept apart from the room so that
    it outlives the room (no cascade from rooms: ``game_id`` is set null if the
    game goes; ``room_code`` and ``game_number`` still name it)."""

    __tablename__ = "game_results"
    __table_args__ = (
        UniqueConstraint("game_id", "player_id"),
        Index("ix_game_results_profile_ruleset", "profile_id", "ruleset", "finished_at"),
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    game_id: Mapped[int | None] = mapped_column(ForeignKey("games.id", ondelete="SET NULL"))
    room_code: Mapped[str] = mapped_column(String(12))
    game_number: Mapped[int] = mapped_column(Integer)
    ruleset: Mapped[str] = mapped_column(String(32))
    player_id: Mapped[str] = mapped_column(String(32))
    profile_id: Mapped[str | None] = mapped_column(ForeignKey("profiles.id", ondelete="SET NULL"))
    name: Mapped[str] = mapped_column(String(64))
    bot: Mapped[str | None] = mapped_column(String(16))
    seats: Mapped[int] = mapped_column(Integer)
    score: Mapped[int] = mapped_column(Integer)
    place: Mapped[int] = mapped_column(Integer)
    won: Mapped[bool] = mapped_column(Boolean)
    yahtzees: Mapped[int] = mapped_column(Integer)
    upper_bonus: Mapped[bool] = mapped_column(Boolean)
    complete: Mapped[bool] = mapped_column(Boolean, default=True, server_default=true())
    """False: the game ended before this card was full (every other person resigned): the result counts for
    games, wins and ratings, never for bests or the score's average and histogram."""
    finished_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class Best(Base):
    """A profile's best score per rule set and period (``all``; ``month`` and
    ``week`` with the period's first day): the ``best`` leaderboards read only this."""

    __tablename__ = "bests"
    profile_id: Mapped[str] = mapped_column(ForeignKey("profiles.id", ondelete="CASCADE"), primary_key=True)
    ruleset: Mapped[str] = mapped_column(String(32), primary_key=True)
    period: Mapped[str] = mapped_column(String(8), primary_key=True)
    period_start: Mapped[str] = mapped_column(String(10), primary_key=True)
    score: Mapped[int] = mapped_column(Integer)
    room_code: Mapped[str] = mapped_column(String(12))
    game_number: Mapped[int] = mapped_column(Integer)
    achieved_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


# the best board's order (score DESC, achieved_at, profile_id), covering its page (index-only on PostgreSQL)
Index(
    "ix_bests_board",
    Best.ruleset,
    Best.period,
    Best.period_start,
    Best.score.desc(),
    Best.achieved_at,
    Best.profile_id,
    postgresql_include=["room_code", "game_number"],
)


class Rating(Base):
    """A profile's OpenSkill (Plackett-Luce) rating in one rule set; ``ordinal`` = mu - 3 sigma orders boards."""

    __tablename__ = "ratings"
    __table_args__ = (
        # read backwards: ordinal DESC, profile_id DESC, covering the page
        Index(
            "ix_ratings_board",
            "ruleset",
            "ordinal",
            "profile_id",
            postgresql_include=["mu", "sigma", "games", "updated_at"],
        ),
    )

    profile_id: Mapped[str] = mapped_column(ForeignKey("profiles.id", ondelete="CASCADE"), primary_key=True)
    ruleset: Mapped[str] = mapped_column(String(32), primary_key=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    ordinal: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer, default=0)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class PeriodRating(Base):
    """A profile's rating as of its last rated game in one month or ISO week
    (``period_start``: the period's first day), and its game count then: the
    ``month`` and ``week`` rating boards read only this. Kept when a rating
    changes (app/profiles/service.py)."""

    __tablename__ = "period_ratings"
    __table_args__ = (
        Index(
            "ix_period_ratings_board",
            "ruleset",
            "period",
            "period_start",
            "ordinal",
            "profile_id",
            postgresql_include=["mu", "sigma", "games", "updated_at"],
        ),
    )

    profile_id: Mapped[str] = mapped_column(ForeignKey("profiles.id", ondelete="CASCADE"), primary_key=True)
    ruleset: Mapped[str] = mapped_column(String(32), primary_key=True)
    period: Mapped[str] = mapped_column(String(8), primary_key=True)
    period_start: Mapped[str] = mapped_column(String(10), primary_key=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    ordinal: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class RatingChange(Base):
    """One rated game's change to one profile's rating (the rating history)."""

    __tablename__ = "rating_changes"
    __table_args__ = (Index("ix_rating_changes_profile", "profile_id", "ruleset", "id"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    profile_id: Mapped[str] = mapped_column(ForeignKey("profiles.id", ondelete="CASCADE"))
    ruleset: Mapped[str] = mapped_column(String(32))
    room_code: Mapped[str] = mapped_column(String(12))
    game_number: Mapped[int] = mapped_column(Integer)
    mu_before: Mapped[float] = mapped_column(Float)
    sigma_before: Mapped[float] = mapped_column(Float)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class PushKey(Base):
    """The server's VAPID key pair (``app.notify``), made on the first start
    when the settings give none: one row, ``name`` ``vapid``, shared by every
    instance. The private key is base64url of its 32 raw bytes."""

    __tablename__ = "push_keys"

    name: Mapped[str] = mapped_column(String(16), primary_key=True)
    private_key: Mapped[str] = mapped_column(String(64))
    public_key: Mapped[str] = mapped_column(String(100))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class PushSubscription(Base):
    """A browser's Web Push subscription for a seat (``app.notify``): deleted
    with the seat (and so with its room), or when the push service says it is gone."""

    __tablename__ = "push_subscriptions"
    __table_args__ = (UniqueConstraint("player_id", "endpoint"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    player_id: Mapped[str] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"))
    endpoint: Mapped[str] = mapped_column(String(1024))
    p256dh: Mapped[str] = mapped_column(String(100))
    auth: Mapped[str] = mapped_column(String(32))
    lang: Mapped[str] = mapped_column(String(8))
    notified_version: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    """The room version of the last ``turn_started`` this seat was notified of
    (the claim that makes one instance, once, send a turn's push)."""
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
