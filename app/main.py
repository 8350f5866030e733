"""The application factory. Nothing is configured at import time: settings,
engine and service are made when the app starts (``lifespan``)."""

from __future__ import annotations

import gc
import inspect
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta
from typing import Any

from fastapi import FastAPI

from app.analysis.service import AnalysisService
from app.analysis.workers import ReviewPool
from app.api.accounts import router as accounts_router
from app.api.chat import router as chat_router
from app.api.cors import Cors
from app.api.openapi import openapi_document
from app.api.profiles import router as profiles_router
from app.api.proxies import TrustedProxies
from app.api.push import router as push_router
from app.api.ratelimit import RateLimits
from app.api.responses import install_error_handlers
from app.api.routes import router
from app.api.ws import RoomSockets
from app.chat import Chat
from app.config import Settings
from app.db import Database
from app.lifecycle import Absence, TurnClock, Turns
from app.lifecycle.public import PublicRooms
from app.lifecycle.sweeper import Sweeper
from app.lifecycle.visits import LobbyVisits
from app.notify import PushService, load_keys
from app.observability.metrics import Metrics
from app.observability.middleware import RequestObservability
from app.observability.probes import probes
from app.observability.wiring import Instruments
from app.profiles import ProfileService
from app.profiles.passwords import Hasher
from app.realtime import Bus, Hub, InProcessBus, RedisBus
from app.rooms import RoomService
from app.rooms.bots import Alarm, BotScheduler
from app.rooms.service import RoomReader
from app.strategy import StrategyStore
from app.web import mount_web
from app.web.headers import SecurityHeaders

DESCRIPTION = """\
Dicecup keeps game rooms of Yahtzee, Yacht and Scandinavian Yatzy, checks every roll, keep and
score against its rules engine, and pushes each turn to connected players.
Errors are `{"detail", "code"}`; see `docs/api.md` in the project for the
whole contract, the WebSocket protocol included.
"""


# FastAPI's native OpenTelemetry hooks (newer releases) ask for a tracer on
# every request and socket: 5% of a reconnect storm's CPU. Dicecup exports no
# traces; older releases have no such hooks to turn off.
_NO_TELEMETRY: dict[str, Any] = (
    {"telemetry": {"tracing": False, "metrics": False, "logs": False}}
    if "telemetry" in inspect.signature(FastAPI.__init__).parameters
    else {}
)


def _vapid_subject(public_url: str | None) -> str:
    """The VAPID contact when DICECUP_VAPID_SUBJECT is unset: the public https address, else a placeholder."""
    if public_url and public_url.startswith("https://"):
        return public_url.rstrip("/")
    return "mailto:webpush@dicecup.invalid"


def create_app(settings: Settings | None = None) -> FastAPI:
    """Build the app. ``settings`` defaults to the environment's, read at startup."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        config = settings or Settings()
        db = Database(config.database_url, busy_timeout_ms=config.sqlite_busy_timeout_ms)
        bus: Bus = RedisBus(config.redis_url) if config.redis_url else InProcessBus()
        strategy = StrategyStore(config.strategy_dir, solve=config.strategy_solve)
        # The hub fills gaps from the event log (its own reader: views as
        # stored, the hub adds presence); every other part gets what it
        # needs here, at construction, in dependency order.
        hub = Hub(bus, RoomReader(db))
        # Counts the actions and published events, reads the gauges (app.observability).
        instruments = Instruments(metrics, hub=hub, bus=bus, db=db)
        # Post-game analyses, made on request, and win chances, ahead where followed (app.analysis).
        # The reviews run in worker processes at the lowest CPU priority (app.analysis.workers).
        reviews = ReviewPool(config.strategy_dir, config.analysis_workers) if config.analysis_workers else None
        analysis = AnalysisService(db, strategy, reviews)
        # Profiles (app.profiles): each finished game's results, bests and ratings recorded as it is published.
        profiles = ProfileService(db)
        # Password hashes in threads of their own, a bounded number at once (app.profiles.passwords).
        profiles.hasher = Hasher(config.password_hash_threads, config.password_hashes_in_flight)
        profiles.token_idle = timedelta(days=config.profile_token_idle_days)
        # Turn notifications by Web Push (app.notify): a push to each subscription of a seat whose turn
        # starts while it has no socket open on any instance (the hub's presence); sent in the background.
        push: PushService | None = None
        if config.push:
            push = PushService(
                db,
                hub,
                await load_keys(db, config.vapid_private_key.get_secret_value() if config.vapid_private_key else None),
                subject=config.vapid_subject or _vapid_subject(config.public_url),
                allowed_hosts=config.push_host_list,
                loopback_for_tests=config.push_test_loopback,
                queue_size=config.push_queue_size,
                timeout=config.push_timeout,
                senders=config.push_senders,
                drain=config.push_drain_seconds,
                ttl_untimed=config.push_ttl_untimed,
                on_outcome=metrics.push,
            )
        publisher = instruments.counting(profiles.watching(analysis.watching(hub)))
        alarm = Alarm()  # rung by the service when a room gets a deadline, heard by the bot scheduler
        service = RoomService(
            db,
            publisher=push.watching(publisher) if push is not None else publisher,
            presence=hub,
            strategy=strategy,
            bot_delay=config.bot_delay,
            on_deadline=alarm.ring,
            observer=instruments.observer,
            # The turn clock (app.lifecycle): deadlines of timed turns, the autopilot's moves, and
            # when to look whether the person whose turn it is in an untimed room is still there.
            clock=TurnClock(config.bot_delay, config.absent_seconds),
            turn_seconds_min=config.turn_seconds_min,
        )
        # Bots, timeouts and the autopilot, woken by the alarm or every poll (rooms due on other instances).
        turns = Turns(service, on_autopilot=metrics.autopilot_move, absence=Absence(service, config.absent_seconds))
        # Deletes rooms nobody uses, one instance at a time (a lease row); counts in /metrics.
        sweeper = Sweeper(
            db,
            room_ttl_days=config.room_ttl_days,
            lobby_ttl_hours=config.lobby_ttl_hours,
            interval=config.sweep_interval,
            on_swept=metrics.swept,
        )
        app.state.sweeper = sweeper
        # A lobby room someone opens (GET, a socket's welcome) stays: its visits, written at most every 10 min.
        visits = LobbyVisits(db, every=min(600.0, config.lobby_ttl_hours * 3600 / 4), watched=hub.watched_rooms)
        app.state.visits = visits
        scheduler = BotScheduler(service, alarm, poll=config.scheduler_poll, play=turns.play_due)
        app.state.readiness = instruments.readiness(service.ping, strategy)
        app.state.analysis = analysis
        app.state.profiles = profiles
        app.state.settings = config
        app.state.db = db
        app.state.service = service
        app.state.turns = turns
        app.state.chat = Chat(service)  # chat, reactions and mutes (app.chat): POST /api/rooms/{code}/chat
        app.state.public = PublicRooms(service)  # GET /api/rooms, POST /api/quickplay
        app.state.hub = hub
        app.state.limits = RateLimits(config)
        app.state.strategy = strategy
        app.state.push = push
        await db.open()
        await hub.start()
        await strategy.start()
        scheduler.start()
        sweeper.start()
        visits.start()
        if push is not None:
            await push.start()
        await metrics.start()
        # Everything made so far lives as long as the process: move it out of
        # the collector's sight, so a full collection under load walks only
        # what the traffic made. And collect in full ten times less often: an
        # open socket alone holds ~180 tracked objects (its ASGI call chain),
        # so with a few thousand sockets a full pass takes tens of
        # milliseconds, and by default one ran every ~2 s under load
        # (bench/RESULTS.md). Garbage without cycles is freed at once anyway.
        gc.collect()
        gc.freeze()
        gen0, gen1, _ = gc.get_threshold()
        gc.set_threshold(gen0, gen1, 100)
        try:
            yield
        finally:
            await metrics.close()
            await scheduler.close()
            if push is not None:
                await push.close()
            await sweeper.close()
            await visits.close()
            await analysis.close()
            await app.state.limits.close()
            await hub.close()
            profiles.hasher.close()
            await strategy.close()
            await db.dispose()

    metrics = Metrics()
    app = FastAPI(
        title="Dicecup",
        version="0.1.0",
        description=DESCRIPTION,
        lifespan=lifespan,
        **_NO_TELEMETRY,
    )
    app.state.logger = logging.getLogger("dicecup")
    app.state.metrics = metrics
    install_error_handlers(app)
    app.include_router(probes)  # /api/health, /api/ready, /metrics: no request budget
    app.include_router(router)
    app.include_router(chat_router)  # /api/rooms/{code}/chat, .../players/{id}/mute (app.api.chat)
    app.include_router(profiles_router)  # /api/profiles, /api/leaderboards (app.api.profiles)
    app.include_router(accounts_router)  # /api/profiles/me/credentials, /api/sessions (app.api.accounts)
    app.include_router(push_router)  # /api/push/key, /api/rooms/{code}/players/{id}/push (app.api.push)
    # X-Request-ID, log context, request log line, HTTP metrics: HTTP only, and
    # inside RoomSockets so a room's socket never passes through it.
    app.add_middleware(RequestObservability, metrics=metrics)
    app.add_middleware(RoomSockets)  # GET /api/rooms/{code}/ws (see its docstring)
    app.add_middleware(Cors)  # only with DICECUP_CORS_ORIGINS (see app/api/cors.py)
    # nosniff and no-referrer on every answer; CSP and frame refusal on pages (app.web.headers)
    app.add_middleware(SecurityHeaders)
    # Add other middleware above this line: TrustedProxies must stay the last
    # added (the outermost), so every layer and limit sees the real client.
    app.add_middleware(TrustedProxies)
    mount_web(app)

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = openapi_document(app)
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
    return app


app = create_app()
