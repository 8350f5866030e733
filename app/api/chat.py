"""The chat API (``docs/api.md``, "Chat"): a seat's messages and reactions,
the host's mute. Same conventions as :mod:`app.api.routes`: every request
counts against its address's budget; refusals in the order 404, 413,
401/403, 422, 429, then the room's (``room_closed``, ``chat_disabled``,
``muted``). The socket's ``chat`` and ``mute`` messages share
:func:`said` and the service."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request, Response
from pydantic import TypeAdapter

from app.chat import Chat, normalize_chat
from app.rooms import DomainError
from app.rooms.secrets import possible_player_id

from . import schemas
from .body import capped_body, parse, request_body
from .deps import ServiceDep, SettingsDep, TokenDep
from .ratelimit import RateLimits
from .responses import ORJSONResponse
from .routes import Code, PlayerId, _errors, lookup_reservation, per_address_budget

router = APIRouter(
    prefix="/api",
    default_response_class=ORJSONResponse,
    dependencies=[Depends(per_address_budget)],
    responses={429: schemas.RATE_LIMITED, 503: schemas.LIMITER_UNAVAILABLE},
)

CHAT: TypeAdapter[schemas.ChatTextBody | schemas.ChatReactionBody] = TypeAdapter(schemas.ChatBody)


def said(body: schemas.ChatTextBody | schemas.ChatReactionBody) -> tuple[str | None, str | None]:
    """(text, reaction) of a parsed chat body, the text normalized (422: ``chat_empty``...)."""
    if isinstance(body, schemas.ChatTextBody):
        return normalize_chat(body.text), None
    return None, body.reaction


@router.post(
    "/rooms/{code}/chat",
    status_code=201,
    summary="Say something or react (a seat; spectators read the chat but do not write)",
    response_model=schemas.ChatOut,
    responses=_errors(401, 403, 404, 409, 413, 422),
    openapi_extra=request_body("Chat", CHAT)
    | {"x-examples": [{"text": "good luck!"}, {"reaction": "👏"}, {"text": "gg", "id": "m-3"}]},
)
async def post_chat(
    code: Code, request: Request, service: ServiceDep, settings: SettingsDep, token: TokenDep
) -> Response:
    body, oversize = await capped_body(request, settings.max_body_bytes)
    seat = await service.authenticate(code, token, body_error=oversize)
    text, reaction = said(parse(CHAT, body))
    limits: RateLimits = request.app.state.limits
    # the room was found (the token's seat is in it): its lookup reservation goes back in the same call
    await limits.check_chat(seat.player_id, found_for=lookup_reservation(request))
    chat: Chat = request.app.state.chat
    event = await chat.say(code, seat, text=text, reaction=reaction)
    return ORJSONResponse({"event": event}, status_code=201)


async def _mute(code: str, player_id: str, request: Request, service: ServiceDep, token: str | None, on: bool) -> None:
    seat = await service.authenticate(code, token)
    if not possible_player_id(player_id):
        raise DomainError("player_not_found", f"room {seat.room_code} has no player {player_id!r}")
    chat: Chat = request.app.state.chat
    await chat.mute(code, seat, player_id, on)


@router.put(
    "/rooms/{code}/players/{player_id}/mute",
    status_code=204,
    summary="Mute a seat's chat (host); nothing changes if it is muted already",
    responses=_errors(401, 403, 404, 409, 422),
)
async def mute(code: Code, player_id: PlayerId, request: Request, service: ServiceDep, token: TokenDep) -> Response:
    await _mute(code, player_id, request, service, token, True)
    return Response(status_code=204)


@router.delete(
    "/rooms/{code}/players/{player_id}/mute",
    status_code=204,
    summary="Unmute a seat's chat (host); nothing changes if it is not muted",
    responses=_errors(401, 403, 404, 409, 422),
)
async def unmute(code: Code, player_id: PlayerId, request: Request, service: ServiceDep, token: TokenDep) -> Response:
    await _mute(code, player_id, request, service, token, False)
    return Response(status_code=204)
