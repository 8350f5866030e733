"""The REST API of ``docs/api.md``: routes parse, call the service, serialize."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Annotated, Any, get_args

from fastapi import APIRouter, Depends, Header, Path, Query, Request, Response
from pydantic import TypeAdapter

from app.analysis.service import AnalysisService
from app.lifecycle.public import PublicRooms
from app.locales import Language, box_label, negotiate, ruleset_label, section_label
from app.rooms import ActionRequest, DomainError
from app.rooms.hints import hint
from app.rooms.secrets import possible_player_id
from app.rooms.service import room_code as service_room_code
from app.rules import RULESETS
from app.rules.yahtzee import YAHTZEE_BONUS

from . import schemas
from .body import capped_body, parse, request_body
from .deps import ProfilesDep, ProfileTokenDep, ServiceDep, SettingsDep, TokenDep, linked_profile
from .protocol import protocol_document
from .proxies import client_address
from .ratelimit import RateLimits
from .responses import ORJSONResponse

LOOKUP_RESERVED = "dicecup_lookup_reserved"
"""``request.state`` attribute: the address whose failed-lookup reservation the request holds."""


async def per_address_budget(request: Request) -> AsyncIterator[None]:
    """Every REST request counts against its client address's budget (429
    past it). A request naming a room is refused (429) while the address has
    used up its budget of failed room lookups, and reserves one of them in
    the same call; the reservation is handed back unless the request finds
    no room (``room_not_found``): room codes cannot be probed, not even by
    concurrent requests."""
    limits: RateLimits = request.app.state.limits
    address = client_address(request.scope)
    names_room = "code" in request.path_params
    await limits.check_request(address, names_room)
    if not names_room:
        yield
        return
    setattr(request.state, LOOKUP_RESERVED, address)
    found = True
    try:
        yield
    except DomainError as refused:
        found = refused.code != "room_not_found"
        raise
    finally:
        if found and getattr(request.state, LOOKUP_RESERVED, None) is not None:
            await limits.lookup_found(address)


def lookup_reservation(request: Request) -> str | None:
    """The address whose lookup reservation ``request`` holds, taken from it
    (the caller hands it back: the room was found)."""
    address: str | None = getattr(request.state, LOOKUP_RESERVED, None)
    setattr(request.state, LOOKUP_RESERVED, None)
    return address


# Every request counts against its address's budget, so any of them may be a 429.
router = APIRouter(
    prefix="/api",
    default_response_class=ORJSONResponse,
    dependencies=[Depends(per_address_budget)],
    responses={429: schemas.RATE_LIMITED, 503: schemas.LIMITER_UNAVAILABLE},
)

CREATE = TypeAdapter(schemas.CreateRoom)
JOIN = TypeAdapter(schemas.JoinRoom)
QUICKPLAY = TypeAdapter(schemas.QuickPlay)
BOT = TypeAdapter(schemas.AddBot)
REMATCH = TypeAdapter(schemas.Rematch)
ACTION: TypeAdapter[schemas.RollAction | schemas.KeepAction | schemas.ScoreAction] = TypeAdapter(schemas.ActionBody)


def room_code(code: Annotated[str, Path(description="the room's code", examples=["K7QXRP"], max_length=16)]) -> str:
    """The room code normalized; ``room_not_found`` at once (no query) for one no room can have."""
    return service_room_code(code)


Code = Annotated[str, Depends(room_code)]
PlayerId = Annotated[str, Path(description="the player's id", examples=["4WtU9Urla89O"], max_length=32)]


def _errors(*codes: int) -> dict[int | str, dict[str, Any]]:
    return {code: {"model": schemas.Error} for code in codes}


def action_request(body: schemas.RollAction | schemas.KeepAction | schemas.ScoreAction) -> ActionRequest:
    if isinstance(body, schemas.RollAction):
        keep = None if body.keep is None else tuple(body.keep)
        return ActionRequest("roll", keep=keep, expected_version=body.expected_version, id=body.id)
    if isinstance(body, schemas.KeepAction):
        return ActionRequest("keep", dice=tuple(body.dice), expected_version=body.expected_version, id=body.id)
    return ActionRequest("score", box=body.box, expected_version=body.expected_version, id=body.id)


@router.post(
    "/rooms",
    status_code=201,
    summary="Create a room; the creator is seated as its host",
    response_model=schemas.Created,
    responses=_errors(401, 413, 422),
    openapi_extra=request_body("CreateRoom", CREATE),
)
async def create_room(
    request: Request, service: ServiceDep, settings: SettingsDep, profiles: ProfilesDep, profile: ProfileTokenDep
) -> Response:
    body, oversize = await capped_body(request, settings.max_body_bytes)
    if oversize is not None:
        raise oversize
    profile_id = await linked_profile(profiles, profile)  # an unknown profile token is a 401
    data = parse(CREATE, body)
    limits: RateLimits = request.app.state.limits
    await limits.check_room_creation(client_address(request.scope))
    options = data.options.model_dump(exclude_unset=True)
    room, player, token = await service.create_room(
        data.ruleset, data.name, options, data.max_players, profile_id, bots=data.bots, start=data.start
    )
    return ORJSONResponse({"room": room, "player": player, "token": token}, status_code=201)


@router.get(
    "/rooms",
    summary="Public rooms in the lobby with a free seat, newest first, a page at a time",
    response_model=schemas.PublicRoomsOut,
    responses=_errors(422),
)
async def public_rooms(
    request: Request,
    ruleset: Annotated[schemas.Ruleset | None, Query(description="only this rule set's rooms")] = None,
    cursor: Annotated[str | None, Query(max_length=128, description="the `next` of the previous page")] = None,
    limit: Annotated[int, Query(ge=1, le=50)] = 20,
) -> Response:
    public: PublicRooms = request.app.state.public
    return ORJSONResponse(await public.list(ruleset, cursor, limit))


@router.post(
    "/quickplay",
    status_code=201,
    summary="Play with anyone: join the oldest public lobby room of a rule set with a free seat, or open one",
    response_model=schemas.QuickPlayed,
    responses=_errors(401, 413, 422),
    openapi_extra=request_body("QuickPlay", QUICKPLAY),
)
async def quickplay(
    request: Request, settings: SettingsDep, profiles: ProfilesDep, profile: ProfileTokenDep
) -> Response:
    body, oversize = await capped_body(request, settings.max_body_bytes)
    if oversize is not None:
        raise oversize
    profile_id = await linked_profile(profiles, profile)
    data = parse(QUICKPLAY, body)
    limits: RateLimits = request.app.state.limits
    address = client_address(request.scope)
    public: PublicRooms = request.app.state.public
    room, player, token, created = await public.quickplay(
        data.ruleset, data.name, profile_id, data.max_players, before_create=lambda: limits.check_room_creation(address)
    )
    return ORJSONResponse({"room": room, "player": player, "token": token, "created": created}, status_code=201)


@router.get("/rooms/{code}", summary="A room", response_model=schemas.RoomOut, responses=_errors(404))
async def get_room(code: Code, request: Request, service: ServiceDep) -> Response:
    room = await service.get_room(code)
    request.app.state.visits.opened(code, room)  # a lobby room someone opens is not swept (app.lifecycle.visits)
    return ORJSONResponse(room)


@router.post(
    "/rooms/{code}/players",
    status_code=201,
    summary="Take a seat (between games only)",
    response_model=schemas.Joined,
    responses=_errors(401, 403, 404, 409, 413, 422),
    openapi_extra=request_body("JoinRoom", JOIN),
)
async def join_room(
    code: Code,
    request: Request,
    service: ServiceDep,
    settings: SettingsDep,
    profiles: ProfilesDep,
    profile: ProfileTokenDep,
) -> Response:
    await service.get_room(code)  # 404 comes first
    body, oversize = await capped_body(request, settings.max_body_bytes)
    if oversize is not None:
        raise oversize
    profile_id = await linked_profile(profiles, profile)
    data = parse(JOIN, body)
    player, token = await service.join(code, data.name, profile_id)
    return ORJSONResponse({"player": player, "token": token}, status_code=201)


@router.delete(
    "/rooms/{code}/players/{player_id}",
    status_code=204,
    summary="Leave (own token) or remove a player (host) between games; during a game resign (own token) "
    "or remove an away player (host)",
    responses=_errors(401, 403, 404, 409),
)
async def leave_room(code: Code, player_id: PlayerId, service: ServiceDep, token: TokenDep) -> Response:
    seat = await service.authenticate(code, token)
    if not possible_player_id(player_id):
        raise DomainError("player_not_found", f"room {seat.room_code} has no player {player_id!r}")
    await service.leave(code, seat, player_id)
    return Response(status_code=204)


@router.post(
    "/rooms/{code}/games",
    status_code=201,
    summary="Start the next game (host), roll-off included",
    response_model=schemas.RoomOut,
    responses=_errors(401, 403, 404, 409),
)
async def start_game(code: Code, service: ServiceDep, token: TokenDep) -> Response:
    seat = await service.authenticate(code, token)
    return ORJSONResponse(await service.start_game(code, seat), status_code=201)


@router.post(
    "/rooms/{code}/rematch",
    summary="Play again: accept a rematch after the last game (any seat); the next game starts, same seats, "
    "once every person seated has accepted",
    response_model=schemas.RoomOut,
    responses=_errors(401, 403, 404, 409, 413, 422),
    openapi_extra=request_body("Rematch", REMATCH),
)
async def rematch(
    code: Code, request: Request, service: ServiceDep, settings: SettingsDep, token: TokenDep
) -> Response:
    body, oversize = await capped_body(request, settings.max_body_bytes)
    seat = await service.authenticate(code, token, body_error=oversize)
    data = parse(REMATCH, body)
    return ORJSONResponse(await service.rematch(code, seat, data.game))


@router.post(
    "/rooms/{code}/bots",
    status_code=201,
    summary="Seat a bot (host, between games)",
    response_model=schemas.BotOut,
    responses=_errors(401, 403, 404, 409, 413, 422),
    openapi_extra=request_body("AddBot", BOT),
)
async def add_bot(
    code: Code, request: Request, service: ServiceDep, settings: SettingsDep, token: TokenDep
) -> Response:
    body, oversize = await capped_body(request, settings.max_body_bytes)
    seat = await service.authenticate(code, token, body_error=oversize)
    data = parse(BOT, body)
    return ORJSONResponse({"player": await service.add_bot(code, seat, data.level)}, status_code=201)


@router.get(
    "/rooms/{code}/hint",
    summary="Expected final score of every choice, for the seat whose turn it is",
    response_model=schemas.HintOut,
    responses=_errors(401, 403, 404, 409, 503),
)
async def get_hint(code: Code, service: ServiceDep, token: TokenDep) -> Response:
    return ORJSONResponse(await hint(service, code, token))


@router.get(
    "/rooms/{code}/games/{number}",
    summary="One game of the room (Game #1, #2, ...)",
    response_model=schemas.GameOut,
    responses=_errors(404),
)
async def get_game(code: Code, number: Annotated[int, Path(ge=1, le=schemas.MAX_INT)], service: ServiceDep) -> Response:
    return ORJSONResponse(await service.get_game(code, number))


@router.get(
    "/rooms/{code}/games/{number}/analysis",
    summary="Post-game analysis: every decision against optimal play (a finished game)",
    response_model=schemas.AnalysisOut,
    responses=_errors(404, 409, 503),
)
async def get_analysis(
    code: Code, number: Annotated[int, Path(ge=1, le=schemas.MAX_INT)], request: Request
) -> Response:
    analysis: AnalysisService = request.app.state.analysis
    return ORJSONResponse(await analysis.analysis(code, number))


@router.get(
    "/rooms/{code}/chances",
    summary="Each player's chance of winning the current game",
    response_model=schemas.ChancesOut,
    responses=_errors(404, 409, 503),
)
async def get_chances(code: Code, request: Request) -> Response:
    analysis: AnalysisService = request.app.state.analysis
    return ORJSONResponse(await analysis.chances(code))


@router.get(
    "/rooms/{code}/events",
    summary="The room's events after a version (resume, replay, audit)",
    response_model=schemas.EventsOut,
    responses=_errors(404, 422),
)
async def get_events(
    code: Code,
    service: ServiceDep,
    after: Annotated[int, Query(ge=0, le=schemas.MAX_INT)] = 0,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
) -> Response:
    return ORJSONResponse(await service.events_after(code, after, limit))


@router.post(
    "/rooms/{code}/actions",
    summary="Roll, keep or score",
    response_model=schemas.ActionOut,
    responses=_errors(401, 403, 404, 409, 413, 422),
    openapi_extra=request_body("Action", ACTION)
    | {
        "x-examples": [
            {"type": "roll"},
            {"type": "keep", "dice": [0, 2, 3]},
            {"type": "roll", "keep": [0, 2, 3], "id": "c-17"},
            {"type": "score", "box": "full_house", "expected_version": 42},
        ]
    },
)
async def act(code: Code, request: Request, service: ServiceDep, settings: SettingsDep, token: TokenDep) -> Response:
    body, oversize = await capped_body(request, settings.max_body_bytes)
    seat = await service.authenticate(code, token, body_error=oversize)
    limits: RateLimits = request.app.state.limits
    # 429 comes after the token, before the body; the room was found (the
    # token's seat is in it): its lookup reservation goes back in the same call
    await limits.check_action(seat.player_id, found_for=lookup_reservation(request))
    action = action_request(parse(ACTION, body))
    outcome = await service.act(code, seat, action)
    return ORJSONResponse({"version": outcome.version, "events": outcome.events, "room": outcome.room})


@router.get(
    "/protocol.json",
    summary="The WebSocket protocol as a JSON Schema (2020-12): every client and server message, both versions",
    response_model=dict[str, Any],
)
async def protocol_schema() -> Response:
    return ORJSONResponse(protocol_document())


@router.get(
    "/rulesets",
    summary="The rule sets, their boxes and options",
    description="Labels (rule set, boxes, sections) are in the language of `lang`, else the best one of "
    "`Accept-Language`, else English; `Content-Language` says which. Ids and codes never change with the language.",
    response_model=list[schemas.RulesetOut],
    responses={
        200: {
            "headers": {
                "Content-Language": {
                    "description": "The language of the labels",
                    "schema": {"type": "string", "enum": [language.value for language in Language]},
                }
            }
        }
    },
)
async def rulesets(
    lang: Annotated[
        Language | None, Query(description="The labels' language (overrides Accept-Language); another value is a 422")
    ] = None,
    accept_language: Annotated[
        str | None,
        Header(
            max_length=500, description="Languages the labels may be in (RFC 9110); unknown ones fall back to English"
        ),
    ] = None,
) -> Response:
    language = negotiate(lang, accept_language)
    out = []
    for rules in RULESETS.values():
        options: dict[str, Any] = {
            name: {"default": spec.default, "choices": list(spec.choices)} for name, spec in rules.option_specs.items()
        }
        # hints: the default of a room for several players (true when max_players is 1)
        options["hints"] = {"default": False, "choices": [True, False]}
        options["chat"] = {"default": True, "choices": [True, False]}
        out.append(
            {
                "name": rules.name,
                "label": ruleset_label(language, rules),
                "rounds": rules.rounds,
                "boxes": [
                    {"id": box, "label": box_label(language, rules, box), "section": rules.section(box)}
                    for box in rules.boxes
                ],
                "sections": [
                    {"id": section, "label": section_label(language, section)}
                    for section in dict.fromkeys(rules.section(box) for box in rules.boxes)
                ],
                "options": options,
                "upper_bonus": None
                if rules.upper_bonus_threshold is None
                else {"threshold": rules.upper_bonus_threshold, "points": rules.upper_bonus_points},
                "yahtzee_bonus": YAHTZEE_BONUS if rules.name == "yahtzee" else None,
                "bot_levels": list(get_args(schemas.Level)),
            }
        )
    return ORJSONResponse(out, headers={"content-language": language.value, "vary": "Accept-Language"})


# GET /api/health and /api/ready are in app.observability.probes (no request budget).
