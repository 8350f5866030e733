"""The profiles API (``docs/api.md``, "Profiles"): profiles, taking back a
seat, stats, leaderboards, history, export and deletion (credentials and
signing in and out: :mod:`app.api.accounts`). Same router conventions as
:mod:`app.api.routes`: every request counts against its address's budget,
bodies are read by the route (413, then 401, then 422)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Path, Query, Request, Response
from pydantic import BaseModel, Field, TypeAdapter

from app.rooms import DomainError
from app.rooms.names import normalize_name
from app.rooms.secrets import possible_player_id

from . import schemas
from .body import capped_body, parse, request_body
from .deps import ProfilesDep, ProfileTokenDep, ServiceDep, SettingsDep
from .proxies import client_address
from .ratelimit import RateLimits
from .responses import ORJSONResponse
from .routes import Code, PlayerId, per_address_budget

router = APIRouter(
    prefix="/api",
    default_response_class=ORJSONResponse,
    dependencies=[Depends(per_address_budget)],
    responses={429: schemas.RATE_LIMITED, 503: schemas.LIMITER_UNAVAILABLE},
)

# -- bodies ---------------------------------------------------------------------------------------


class CreateProfile(schemas._Body):
    name: schemas.PlayerName


class Rename(schemas._Body):
    name: schemas.PlayerName


CREATE_PROFILE = TypeAdapter(CreateProfile)
RENAME = TypeAdapter(Rename)

# -- responses ------------------------------------------------------------------------------------


class RatingOut(BaseModel):
    mu: float = Field(description="OpenSkill (Plackett-Luce) skill estimate; a new profile has 25")
    sigma: float = Field(description="its uncertainty; a new profile has 25/3")
    ordinal: float = Field(description="mu - 3 sigma: the conservative rating boards sort by")
    games: int = Field(description="rated games played")


class HeadlineOut(BaseModel):
    games: int
    wins: int
    best: int | None = Field(description="the best total of a full card; null if every game ended early")


class ProfileOut(BaseModel):
    id: str
    name: str
    created_at: str = Field(json_schema_extra={"format": "date-time"})
    ratings: dict[str, RatingOut] = Field(description="keyed by rule set; only rule sets with a rated game")
    stats: dict[str, HeadlineOut] = Field(description="keyed by rule set: games, wins, best total")


class MyProfileOut(ProfileOut):
    username: str | None = Field(description="the sign-in username (case-folded), or null if none was set")


class ProfileCreated(BaseModel):
    profile: MyProfileOut
    token: str = Field(description="the profile token (256-bit): keep it; only its SHA-256 is stored")


class GameRef(BaseModel):
    room_code: str
    number: int
    replay: str = Field(description="the replay page's path", examples=["/r/K7QXRP/games/1"])


class HistogramBar(BaseModel):
    from_: int = Field(alias="from")
    to: int
    games: int


class RulesetStatsOut(BaseModel):
    games: int
    wins: int
    win_rate: float = Field(ge=0, le=1)
    average: float | None = Field(
        description="the average total of full cards (a game that ended early, everyone else having resigned, "
        "is left out); null if there is none"
    )
    best: int | None = Field(description="the best total of a full card; null if there is none")
    solo_best: int | None = Field(description="personal best: the best total of a solo game, null if none")
    yahtzees: int = Field(description="Yahtzees, Yachts or Yatzys rolled and scored (Yahtzee bonuses included)")
    upper_bonus_rate: float | None = Field(ge=0, le=1, description="of full cards; null if there is none")
    histogram: list[HistogramBar] = Field(description="totals of full cards in bars of 25 points (empty bars left out)")


class StatsOut(BaseModel):
    profile_id: str
    rulesets: dict[str, RulesetStatsOut]


class EntryOut(BaseModel):
    rank: int
    profile_id: str
    name: str
    score: int | None = Field(description="kind=best: the best total")
    rating: RatingOut | None = Field(description="kind=rating: the rating")
    game: GameRef | None = Field(description="kind=best: the game of that total")
    at: str = Field(json_schema_extra={"format": "date-time"}, description="when the score was made or rating moved")


class LeaderboardOut(BaseModel):
    ruleset: schemas.Ruleset
    kind: Literal["best", "rating"]
    period: Literal["all", "month", "week"]
    period_start: str | None = Field(description="the period's first day (UTC; weeks start on Monday), null for all")
    offset: int
    entries: list[EntryOut]
    next_offset: int | None = Field(description="the next page's offset, null on the last page")


class ResultOut(BaseModel):
    ruleset: schemas.Ruleset
    game: GameRef
    player_id: str
    name: str
    seats: int
    score: int
    place: int
    won: bool
    yahtzees: int
    upper_bonus: bool
    complete: bool = Field(
        description="false: the game ended before this card was full (every other person resigned); it counts "
        "for games, wins and ratings, never for bests or averages"
    )
    finished_at: str = Field(json_schema_extra={"format": "date-time"})


class OpenSeatOut(BaseModel):
    room_code: str
    ruleset: schemas.Ruleset
    status: Literal["lobby", "playing", "finished"]
    player_id: str
    name: str
    game_number: int
    joined_at: str = Field(json_schema_extra={"format": "date-time"})


class HistoryOut(BaseModel):
    open: list[OpenSeatOut] = Field(description="seats in rooms still open (rejoin: take the seat back), newest first")
    games: list[ResultOut] = Field(description="finished games, newest first")
    next_offset: int | None


class SkillOut(BaseModel):
    mu: float
    sigma: float


class RatingChangeOut(BaseModel):
    ruleset: schemas.Ruleset
    game: GameRef
    before: SkillOut
    after: SkillOut
    at: str = Field(json_schema_extra={"format": "date-time"})


class RatingsOut(BaseModel):
    profile_id: str
    history: list[RatingChangeOut]


class TokenOut(BaseModel):
    kind: Literal["profile", "session"]
    created_at: str = Field(json_schema_extra={"format": "date-time"})


class SeatOut(BaseModel):
    room_code: str
    player_id: str
    name: str
    bot: str | None
    joined_at: str = Field(json_schema_extra={"format": "date-time"})
    left_at: str | None = Field(json_schema_extra={"format": "date-time"})


class BestOut(BaseModel):
    ruleset: schemas.Ruleset
    period: Literal["all", "month", "week"]
    period_start: str | None
    score: int
    game: GameRef
    at: str = Field(json_schema_extra={"format": "date-time"})


class PeriodRatingOut(BaseModel):
    """The rating after the profile's last rated game of a month or ISO week (the period boards')."""

    ruleset: schemas.Ruleset
    period: Literal["month", "week"]
    period_start: str
    rating: RatingOut
    at: str = Field(json_schema_extra={"format": "date-time"})


class ExportOut(BaseModel):
    profile: MyProfileOut
    tokens: list[TokenOut]
    seats: list[SeatOut]
    games: list[ResultOut]
    bests: list[BestOut]
    rating_history: list[RatingChangeOut]
    period_ratings: list[PeriodRatingOut]


class SeatTokenOut(BaseModel):
    player: schemas.PlayerOut
    token: str = Field(description="the seat's new token; the old one no longer works")


# -- routes ---------------------------------------------------------------------------------------

ProfileId = Annotated[str, Path(description="the profile's id", examples=["b3VnZ1ZQ7x_k"], max_length=32)]
Offset = Annotated[int, Query(ge=0, le=10_000, description="entries to skip")]
Limit = Annotated[int, Query(ge=1, le=100, description="entries per page")]


def _errors(*codes: int) -> dict[int | str, dict[str, Any]]:
    return {code: {"model": schemas.Error} for code in codes}


def _limits(request: Request) -> RateLimits:
    limits: RateLimits = request.app.state.limits
    return limits


@router.post(
    "/profiles",
    status_code=201,
    summary="Make a profile: a player who comes back (its token links seats, stats and ratings)",
    response_model=ProfileCreated,
    responses=_errors(413, 422),
    openapi_extra=request_body("CreateProfile", CREATE_PROFILE),
)
async def create_profile(request: Request, profiles: ProfilesDep, settings: SettingsDep) -> Response:
    body, oversize = await capped_body(request, settings.max_body_bytes)
    if oversize is not None:
        raise oversize
    data = parse(CREATE_PROFILE, body)
    name = normalize_name(data.name)  # a seat's rules (docs/api.md, Names): no bidi tricks, no blanks
    await _limits(request).check_profile_creation(client_address(request.scope))
    profile, token = await profiles.create(name)
    return ORJSONResponse({"profile": profile, "token": token}, status_code=201)


@router.get(
    "/profiles/me",
    summary="The profile of the token, with its username",
    response_model=MyProfileOut,
    responses=_errors(401),
)
async def get_me(profiles: ProfilesDep, token: ProfileTokenDep) -> Response:
    auth = await profiles.authenticate(token)
    return ORJSONResponse(await profiles.profile(auth.profile_id, private=True))


@router.patch(
    "/profiles/me",
    summary="Rename the profile (its seats keep the names they were taken with)",
    response_model=MyProfileOut,
    responses=_errors(401, 413, 422),
    openapi_extra=request_body("Rename", RENAME),
)
async def rename_me(request: Request, profiles: ProfilesDep, settings: SettingsDep, token: ProfileTokenDep) -> Response:
    body, oversize = await capped_body(request, settings.max_body_bytes)
    if oversize is not None:
        raise oversize
    auth = await profiles.authenticate(token)
    data = parse(RENAME, body)
    return ORJSONResponse(await profiles.rename(auth, normalize_name(data.name)))


@router.delete(
    "/profiles/me",
    status_code=204,
    summary="Delete the profile; its seats stay in others' history as 'Deleted player'",
    responses=_errors(401),
)
async def delete_me(profiles: ProfilesDep, token: ProfileTokenDep) -> Response:
    auth = await profiles.authenticate(token)
    await profiles.delete(auth)
    return Response(status_code=204)


@router.get(
    "/profiles/me/export",
    summary="Everything stored about the profile, as JSON",
    response_model=ExportOut,
    responses=_errors(401),
)
async def export_me(profiles: ProfilesDep, token: ProfileTokenDep) -> Response:
    auth = await profiles.authenticate(token)
    return ORJSONResponse(await profiles.export(auth))


@router.get(
    "/profiles/me/games",
    summary="The profile's open seats (unfinished first), then its finished games, newest first",
    response_model=HistoryOut,
    responses=_errors(401, 422),
)
async def my_games(profiles: ProfilesDep, token: ProfileTokenDep, offset: Offset = 0, limit: Limit = 25) -> Response:
    auth = await profiles.authenticate(token)
    return ORJSONResponse(await profiles.games(auth, offset, limit))


@router.get(
    "/profiles/{profile_id}",
    summary="A profile (public): name, ratings by rule set, headline stats",
    response_model=ProfileOut,
    responses=_errors(404, 422),
)
async def get_profile(profile_id: ProfileId, profiles: ProfilesDep) -> Response:
    return ORJSONResponse(await profiles.profile(profile_id))


@router.get(
    "/profiles/{profile_id}/stats",
    summary="A profile's stats per rule set (public)",
    response_model=StatsOut,
    responses=_errors(404, 422),
)
async def get_stats(
    profile_id: ProfileId,
    profiles: ProfilesDep,
    ruleset: Annotated[schemas.Ruleset | None, Query(description="only this rule set")] = None,
) -> Response:
    return ORJSONResponse(await profiles.stats(profile_id, ruleset))


@router.get(
    "/profiles/{profile_id}/ratings",
    summary="A profile's rating history (public), oldest first",
    response_model=RatingsOut,
    responses=_errors(404, 422),
)
async def get_rating_history(
    profile_id: ProfileId,
    profiles: ProfilesDep,
    ruleset: Annotated[schemas.Ruleset | None, Query(description="only this rule set")] = None,
    offset: Offset = 0,
    limit: Annotated[int, Query(ge=1, le=1000, description="changes per page")] = 100,
) -> Response:
    return ORJSONResponse(await profiles.rating_history(profile_id, ruleset, offset, limit))


@router.post(
    "/rooms/{code}/players/{player_id}/token",
    summary="Take back a seat of your profile: a new seat token (the old one stops working, its sockets close)",
    response_model=SeatTokenOut,
    responses=_errors(401, 403, 404, 409),
)
async def take_back_seat(
    code: Code, player_id: PlayerId, service: ServiceDep, profiles: ProfilesDep, token: ProfileTokenDep
) -> Response:
    await service.get_room(code)  # 404 comes first
    auth = await profiles.authenticate(token)
    if not possible_player_id(player_id):
        raise DomainError("player_not_found", f"room {code} has no player {player_id!r}")
    player, seat_token = await profiles.take_back_seat(service, auth, code, player_id)
    return ORJSONResponse({"player": player, "token": seat_token})


@router.get(
    "/leaderboards/{ruleset}",
    summary="A leaderboard: best totals or ratings, all time or this month or week, paged",
    response_model=LeaderboardOut,
    responses=_errors(422),
)
async def leaderboard(
    ruleset: Annotated[schemas.Ruleset, Path(description="the rule set")],
    profiles: ProfilesDep,
    kind: Annotated[Literal["best", "rating"], Query(description="best totals, or OpenSkill ratings")] = "best",
    period: Annotated[
        Literal["all", "month", "week"],
        Query(description="all time, or the current month / ISO week (UTC); for ratings: profiles rated in it"),
    ] = "all",
    offset: Offset = 0,
    limit: Limit = 25,
) -> Response:
    return ORJSONResponse(await profiles.leaderboard(ruleset, kind, period, offset, limit))
