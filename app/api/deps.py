"""Dependencies shared by the routes."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from app.config import Settings
from app.profiles import ProfileService
from app.rooms import RoomService


def get_service(request: Request) -> RoomService:
    service: RoomService = request.app.state.service
    return service


def get_profiles(request: Request) -> ProfileService:
    profiles: ProfileService = request.app.state.profiles
    return profiles


def get_settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


seat_token = HTTPBearer(
    scheme_name="seatToken",
    description="The seat token from creating or joining a room: `Authorization: Bearer <token>`.",
    auto_error=False,  # a missing or foreign scheme is the service's 401, after the room's 404
)


def bearer_token(credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(seat_token)]) -> str | None:
    return credentials.credentials if credentials is not None else None


profile_token = HTTPBearer(
    scheme_name="profileToken",
    description="A profile's token (from creating the profile or signing in): `Authorization: Bearer <token>`. "
    "Optional on creating and joining a room, where it links the new seat to the profile.",
    auto_error=False,  # a missing token is the service's 401
)


def bearer_profile_token(
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(profile_token)],
) -> str | None:
    return credentials.credentials if credentials is not None else None


ServiceDep = Annotated[RoomService, Depends(get_service)]
ProfilesDep = Annotated[ProfileService, Depends(get_profiles)]
SettingsDep = Annotated[Settings, Depends(get_settings)]
TokenDep = Annotated[str | None, Depends(bearer_token)]
ProfileTokenDep = Annotated[str | None, Depends(bearer_profile_token)]


async def linked_profile(profiles: ProfileService, token: str | None) -> str | None:
    """The profile a create or join links its seat to: none without a token,
    ``unauthorized`` for an unknown one."""
    return None if token is None else (await profiles.authenticate(token)).profile_id
