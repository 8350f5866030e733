"""Dependencies shared by the routes."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from app.config import Settings
from app.rooms import RoomService


def get_service(request: Request) -> RoomService:
    service: RoomService = request.app.state.service
    return service


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


ServiceDep = Annotated[RoomService, Depends(get_service)]
SettingsDep = Annotated[Settings, Depends(get_settings)]
TokenDep = Annotated[str | None, Depends(bearer_token)]
