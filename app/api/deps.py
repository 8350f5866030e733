"""Dependencies shared by the routes."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Header, Request

from app.config import Settings
from app.rooms import RoomService


def get_service(request: Request) -> RoomService:
    service: RoomService = request.app.state.service
    return service


def get_settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


def bearer_token(authorization: Annotated[str | None, Header(description="Bearer <seat token>")] = None) -> str | None:
    if not authorization:
        return None
    scheme, _, token = authorization.partition(" ")
    return token.strip() or None if scheme.lower() == "bearer" else None


ServiceDep = Annotated[RoomService, Depends(get_service)]
SettingsDep = Annotated[Settings, Depends(get_settings)]
TokenDep = Annotated[str | None, Depends(bearer_token)]
