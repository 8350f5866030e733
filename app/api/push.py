"""The turn notifications API (``docs/api.md``, "Turn notifications"): the
server's VAPID public key, and a seat's Web Push subscriptions. Same router
conventions as :mod:`app.api.routes`: every request counts against its
address's budget; refusals in the order 404 (room), 413, 401/403, 429, 422."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Query, Request, Response
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from app.locales import Language
from app.notify import MAX_PER_SEAT, PushService, Subscription
from app.rooms import DomainError
from app.rooms.secrets import possible_player_id
from app.rooms.types import Seat

from . import schemas
from .body import capped_body, parse, request_body
from .deps import ServiceDep, SettingsDep, TokenDep
from .ratelimit import RateLimits
from .responses import ORJSONResponse
from .routes import Code, PlayerId, _errors, per_address_budget

router = APIRouter(
    prefix="/api",
    default_response_class=ORJSONResponse,
    dependencies=[Depends(per_address_budget)],
    responses={429: schemas.RATE_LIMITED, 503: schemas.LIMITER_UNAVAILABLE},
)

ENDPOINT_MAX = 1024


class PushKeys(BaseModel):
    model_config = ConfigDict(extra="forbid")

    p256dh: str = Field(
        min_length=1, max_length=100, description="the browser's P-256 public key: base64url, 65 bytes uncompressed"
    )
    auth: str = Field(min_length=1, max_length=32, description="the browser's auth secret: base64url, 16 bytes")


class PushSubscriptionBody(BaseModel):
    """A browser's ``PushSubscription.toJSON()``, with the language its notifications are written in."""

    model_config = ConfigDict(extra="forbid")

    endpoint: str = Field(
        min_length=1,
        max_length=ENDPOINT_MAX,
        description="the push service URL the server posts to: https, on a host of DICECUP_PUSH_ENDPOINT_HOSTS",
    )
    keys: PushKeys
    expirationTime: float | None = Field(None, description="as the browser gives it; not used")
    lang: Language = Field(Language.EN, description="the language of the notifications' title and body")


class PushKeyOut(BaseModel):
    public_key: str = Field(description="the server's VAPID public key (base64url): `applicationServerKey`")


class SubscriptionsOut(BaseModel):
    subscriptions: int = Field(description=f"the seat's push subscriptions now (at most {MAX_PER_SEAT})")


SUBSCRIPTION = TypeAdapter(PushSubscriptionBody)


def _push(request: Request) -> PushService:
    push: PushService | None = request.app.state.push
    if push is None:
        raise DomainError("push_unavailable", "turn notifications are turned off on this server (DICECUP_PUSH)")
    return push


def _own_seat(seat: Seat, player_id: str) -> None:
    """The token must be the seat's own."""
    if not possible_player_id(player_id):
        raise DomainError("player_not_found", f"room {seat.room_code} has no player {player_id!r}")
    if seat.player_id != player_id:
        raise DomainError("forbidden", "only the seat's own token manages its notifications")


async def _budget(request: Request, seat: Seat) -> None:
    """One of the seat's subscription changes (429 past them)."""
    limits: RateLimits = request.app.state.limits
    await limits.check_push(seat.player_id)


@router.get(
    "/push/key",
    summary="The server's VAPID public key, for a browser's pushManager.subscribe",
    response_model=PushKeyOut,
    responses=_errors(503),
)
async def push_key(request: Request) -> Response:
    return ORJSONResponse({"public_key": _push(request).public_key})


@router.put(
    "/rooms/{code}/players/{player_id}/push",
    summary="Notify this seat by Web Push when its turn starts while it is not connected (own token)",
    response_model=SubscriptionsOut,
    responses=_errors(401, 403, 404, 409, 413, 422, 503),
    openapi_extra=request_body("PushSubscription", SUBSCRIPTION),
)
async def subscribe(
    code: Code, player_id: PlayerId, request: Request, service: ServiceDep, settings: SettingsDep, token: TokenDep
) -> Response:
    body, oversize = await capped_body(request, settings.max_body_bytes)
    seat = await service.authenticate(code, token, body_error=oversize)
    _own_seat(seat, player_id)
    push = _push(request)
    await _budget(request, seat)
    data = parse(SUBSCRIPTION, body)
    sub = Subscription(data.endpoint, data.keys.p256dh, data.keys.auth, data.lang)
    return ORJSONResponse({"subscriptions": await push.subscribe(seat, sub)})


@router.delete(
    "/rooms/{code}/players/{player_id}/push",
    summary="Stop notifying this seat on one browser (endpoint), or on all of them (own token)",
    response_model=SubscriptionsOut,
    responses=_errors(401, 403, 404, 422, 503),
)
async def unsubscribe(
    code: Code,
    player_id: PlayerId,
    request: Request,
    service: ServiceDep,
    token: TokenDep,
    endpoint: Annotated[
        str | None, Query(max_length=ENDPOINT_MAX, description="the subscription's endpoint; absent = all of them")
    ] = None,
) -> Response:
    seat = await service.authenticate(code, token)
    _own_seat(seat, player_id)
    push = _push(request)
    await _budget(request, seat)
    return ORJSONResponse({"subscriptions": await push.unsubscribe(seat, endpoint)})
