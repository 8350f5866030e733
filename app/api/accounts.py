"""The accounts API (``docs/api.md``, "Profiles" and "Accounts and tokens"):
a profile's username and password, signing in, signing out (here or
everywhere). Same router conventions as :mod:`app.api.profiles`: every
request counts against its address's budget, bodies are read by the route
(413, then 401, then 429, then 422)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request, Response
from pydantic import Field, StringConstraints, TypeAdapter

from app.rooms import DomainError

from . import schemas
from .body import capped_body, parse, request_body
from .deps import ProfilesDep, ProfileTokenDep, SettingsDep
from .profiles import MyProfileOut, ProfileCreated
from .proxies import client_address
from .ratelimit import RateLimits
from .responses import ORJSONResponse
from .routes import per_address_budget

router = APIRouter(
    prefix="/api",
    default_response_class=ORJSONResponse,
    dependencies=[Depends(per_address_budget)],
    responses={429: schemas.RATE_LIMITED},
)

Username = Annotated[
    str,
    StringConstraints(min_length=3, max_length=32, pattern=r"^[A-Za-z0-9_.-]+$"),
    Field(description="3-32 letters, digits, `_`, `.` or `-`; compared case-insensitively", examples=["ana_k"]),
]
Password = Annotated[
    str,
    StringConstraints(min_length=8, max_length=128),
    Field(description="8-128 characters", examples=["correct horse battery"]),
]


class Credentials(schemas._Body):
    username: Username
    password: Password
    current_password: Annotated[str, StringConstraints(min_length=1, max_length=128)] | None = Field(
        None,
        description="the password the profile has now: needed once one is set (else 403 wrong_password)",
        examples=["correct horse battery"],
    )


class SignIn(schemas._Body):
    """Bounded like :class:`Credentials` but checked only against the stored ones."""

    username: Annotated[str, StringConstraints(min_length=1, max_length=64)]
    password: Annotated[str, StringConstraints(min_length=1, max_length=128)]


CREDENTIALS = TypeAdapter(Credentials)
SIGN_IN = TypeAdapter(SignIn)


def _errors(*codes: int) -> dict[int | str, dict[str, Any]]:
    return {code: {"model": schemas.Error} for code in codes}


def _limits(request: Request) -> RateLimits:
    limits: RateLimits = request.app.state.limits
    return limits


@router.post(
    "/profiles/me/credentials",
    summary="Set (or replace) the profile's username and password, to sign in on other devices; "
    "the profile's other tokens stop working",
    response_model=MyProfileOut,
    responses=_errors(401, 403, 409, 413, 422, 503),
    openapi_extra=request_body("Credentials", CREDENTIALS),
)
async def set_credentials(
    request: Request, profiles: ProfilesDep, settings: SettingsDep, token: ProfileTokenDep
) -> Response:
    body, oversize = await capped_body(request, settings.max_body_bytes)
    if oversize is not None:
        raise oversize
    auth = await profiles.authenticate(token)
    await _limits(request).check_credentials_change(auth.profile_id, client_address(request.scope))
    data = parse(CREDENTIALS, body)
    return ORJSONResponse(await profiles.set_credentials(auth, data.username, data.password, data.current_password))


@router.post(
    "/sessions",
    status_code=201,
    summary="Sign in: a new token for the profile with this username and password",
    response_model=ProfileCreated,
    responses=_errors(401, 413, 422, 503),
    openapi_extra=request_body("SignIn", SIGN_IN),
)
async def sign_in(request: Request, profiles: ProfilesDep, settings: SettingsDep) -> Response:
    body, oversize = await capped_body(request, settings.max_body_bytes)
    if oversize is not None:
        raise oversize
    data = parse(SIGN_IN, body)
    limits, address = _limits(request), client_address(request.scope)
    username = data.username.strip().casefold()
    await limits.reserve_sign_in(address, username)  # a failure and a success reserved before the check
    try:
        signed_in = await profiles.sign_in(data.username, data.password)
    except DomainError:  # server_busy: the password was not checked
        await limits.sign_in_not_checked(address, username)
        raise
    if signed_in is None:
        await limits.sign_in_failed(address, username)
        raise DomainError("unauthorized", "wrong username or password")
    await limits.sign_in_succeeded(address, username)
    profile, token = signed_in
    return ORJSONResponse({"profile": profile, "token": token}, status_code=201)


@router.delete(
    "/sessions/current",
    status_code=204,
    summary="Sign out: the token sent stops working",
    responses=_errors(401),
)
async def sign_out(profiles: ProfilesDep, token: ProfileTokenDep) -> Response:
    auth = await profiles.authenticate(token)
    await profiles.sign_out(auth)
    return Response(status_code=204)


@router.delete(
    "/sessions",
    status_code=204,
    summary="Sign out everywhere: every token of the profile stops working, this one included",
    responses=_errors(401),
)
async def sign_out_everywhere(profiles: ProfilesDep, token: ProfileTokenDep) -> Response:
    auth = await profiles.authenticate(token)
    await profiles.sign_out_everywhere(auth)
    return Response(status_code=204)
