"""The operations endpoints: liveness, readiness and metrics. They are on a
router of their own, without the API's per-address request budget, so that
probes and scrapes are never throttled (``docs/api.md``, Operations)."""

from __future__ import annotations

import hmac
from typing import Annotated, Literal

from fastapi import APIRouter, Header, Request, Response
from pydantic import BaseModel, Field

from app.api.responses import ORJSONResponse, error_response
from app.config import Settings

from .metrics import CONTENT_TYPE, Metrics
from .readiness import Readiness

probes = APIRouter(default_response_class=ORJSONResponse, tags=["operations"])


class Health(BaseModel):
    status: Literal["ok"]


class Ready(BaseModel):
    status: Literal["ready", "not_ready"]
    database: str = Field(description='"ok", or "error: <kind of failure>"')
    redis: Literal["ok", "down"] | None = Field(None, description="absent when no Redis is configured")
    strategy: Literal["loading", "computing", "ready", "failed"]


@probes.get("/api/health", summary="Liveness: the process answers (checks nothing else)", response_model=Health)
async def health() -> Response:
    return ORJSONResponse({"status": "ok"})


@probes.get(
    "/api/ready",
    summary="Readiness: 200 when this instance can serve, 503 (same body) when it cannot",
    response_model=Ready,
    response_model_exclude_none=True,
    responses={503: {"model": Ready, "description": "not ready: the body says which part"}},
)
async def ready(request: Request) -> Response:
    readiness: Readiness = request.app.state.readiness
    ok, body = await readiness.check()
    return ORJSONResponse(body, status_code=200 if ok else 503)


def _authorized(settings: Settings, authorization: str | None) -> bool:
    if settings.metrics_token is None:
        return True
    scheme, _, given = (authorization or "").partition(" ")
    expected = settings.metrics_token.get_secret_value().encode()
    return scheme.lower() == "bearer" and hmac.compare_digest(given.strip().encode(), expected)


@probes.get(
    "/metrics",
    summary="Prometheus metrics (text format); Bearer DICECUP_METRICS_TOKEN when that is set",
    response_class=Response,
    responses={200: {"content": {"text/plain": {}}}, 401: {"description": "the metrics token is missing or wrong"}},
)
async def metrics(
    request: Request,
    authorization: Annotated[str | None, Header(description="Bearer <DICECUP_METRICS_TOKEN>")] = None,
) -> Response:
    settings: Settings = request.app.state.settings
    if not _authorized(settings, authorization):
        response = error_response(401, "unauthorized", "metrics need Authorization: Bearer <DICECUP_METRICS_TOKEN>")
        response.headers["www-authenticate"] = 'Bearer realm="metrics"'
        return response
    collected: Metrics = request.app.state.metrics
    return Response(await collected.render(), media_type=CONTENT_TYPE)
