"""Settings: one class, read from the environment (prefix ``DICECUP_``) when
the app is built, never at import time."""

from __future__ import annotations

from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

DEFAULT_SQLITE = "sqlite+aiosqlite:///./data/dicecup.db"


def sqlite_path(url: str) -> Path | None:
    """The database file of a SQLite URL (``None`` for an in-memory database)."""
    rest = url.split("://", 1)[1]
    path = rest[1:].split("?", 1)[0]
    return None if path in ("", ":memory:") else Path(path)


def normalize_database_url(url: str) -> str:
    """Accept the URLs people write (``postgresql://``, ``postgres://``,
    ``sqlite:///``) and pick the async driver the server uses."""
    for prefix in ("postgresql://", "postgres://", "postgresql+psycopg2://"):
        if url.startswith(prefix):
            return "postgresql+asyncpg://" + url[len(prefix) :]
    if url.startswith("sqlite://"):
        return "sqlite+aiosqlite://" + url[len("sqlite://") :]
    return url


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="DICECUP_", env_file=".env", extra="ignore")

    database_url: str = Field(
        DEFAULT_SQLITE, description="SQLAlchemy URL; SQLite by default, postgresql:// for deployments"
    )
    redis_url: str | None = Field(None, description="Redis for fan-out across instances; unset = single instance")
    host: str = Field("127.0.0.1", description="address `python -m app serve` listens on (`0.0.0.0` in the image)")
    port: int = Field(8000, description="port `python -m app serve` listens on")
    public_url: str | None = Field(
        None,
        max_length=512,
        description="the address friends open, e.g. `https://dice.example.org` or `http://192.168.1.20:8000` "
        "(http or https, with the root path if any): the web client's invite links, copy and QR code use it; "
        "unset = the address the page was opened at",
    )
    log_level: Literal["critical", "error", "warning", "info", "debug"] = Field(
        "info", description="the least severe log records written"
    )
    log_format: Literal["text", "json"] = Field(
        "text",
        description="`json`: one JSON object per line (time, level, logger, message, request_id, room, player_id, "
        "connection_id, exception); secrets such as tokens are redacted in either format",
    )
    migrate_on_start: bool = Field(True, description="apply Alembic migrations before serving")
    max_body_bytes: int = Field(16 * 1024, description="larger request bodies and WebSocket messages are refused")
    rate_limits: bool = Field(True, description="false turns every rate limit off (benchmarks)")
    rate_limits_fail: Literal["open", "closed"] = Field(
        "open",
        description="while the shared rate limiter (Redis) does not answer: `open` lets requests through (logged), "
        "`closed` refuses those that it would count with 503 `rate_limiter_unavailable` (Retry-After 5)",
    )
    actions_per_second: int = Field(20, description="per seat, REST and WebSocket together")
    requests_per_minute: int = Field(1200, description="per client IP, every REST request")
    chat_per_minute: int = Field(
        12, ge=1, description="per seat: chat messages and reactions (REST and WebSocket together) before rate_limited"
    )
    ws_messages_per_second: int = Field(40, description="per socket; a flood past it is closed with 1008")
    ws_compression: bool = Field(
        False,
        description="offer per-message deflate to WebSocket clients (python -m app serve): fewer bytes, "
        "more CPU and ~50 KiB more memory per socket (bench/README.md measures both ways)",
    )
    ws_queue_size: int = Field(256, description="messages a socket may fall behind before it is closed (1013)")
    hello_timeout: float = Field(10.0, description="seconds a new socket has to say hello")
    lookup_failures_per_minute: int = Field(
        30, description="per client address: failed room lookups (REST 404, socket 4404) before 429 / close 4429"
    )
    oversize_frames_per_minute: int = Field(
        10,
        ge=1,  # 0 would drop every address, struck or not
        description="per client address (an IPv6 /64) and instance: frames refused as over max_body_bytes "
        "(close 1009) before its new connections are dropped for a while (429 on sockets behind a proxy): 5 s the "
        "first time, twice as long each time it goes on, at most 60 s (docs/api.md, Limits)",
    )
    refusals_per_minute: int = Field(
        120,
        ge=1,  # 0 would drop every address, refused or not
        description="per client address and instance: answers 429 / close 4429 for an address budget (requests, "
        "failed room lookups, rooms, profiles, sockets) before its new connections are dropped for a while, as "
        "for oversize frames (a client that waits out Retry-After never gets near it)",
    )
    rooms_per_hour: int = Field(30, description="per client address: rooms created before 429")
    profiles_per_hour: int = Field(30, description="per client address: profiles created before 429")
    sign_in_failures_per_minute: int = Field(
        5,
        ge=1,
        description="failed sign-ins (POST /api/sessions) per client address and username before 429, in any "
        "minute; then twice that in 10 minutes, 4 times in an hour, 8 times in a day (growing waits); another "
        "address is not held back (no lock-out from everywhere)",
    )
    sign_in_failures_per_address: int = Field(
        30, description="failed sign-ins (POST /api/sessions) per client address and hour before 429"
    )
    sign_ins_per_hour: int = Field(
        20,
        ge=1,
        description="successful sign-ins per username and per client address an hour before 429 (each one hashes "
        "a password and makes a token)",
    )
    credential_changes_per_hour: int = Field(
        10,
        ge=1,
        description="POST /api/profiles/me/credentials per profile and per client address an hour before 429 "
        "(answered or refused: username_taken included)",
    )
    password_hash_threads: int = Field(
        1,
        ge=1,
        le=16,
        description="threads hashing and checking passwords (Argon2id), apart from everything else; "
        "the other cores stay the players'",
    )
    password_hashes_in_flight: int = Field(
        8,
        ge=1,
        le=1000,
        description="per instance: password hashes waiting or running at once; past it a sign-in or credentials "
        "change is refused 503 server_busy (Retry-After: 1) instead of queueing",
    )
    profile_token_idle_days: float = Field(
        30,
        gt=0,
        description="a profile token (a device's, or a sign-in's) unused for this long stops working",
    )
    spectators_per_room: int = Field(
        50, description="per room and instance: sockets without a seat (close 4409 past it)"
    )
    sockets_per_address: int = Field(
        20, description="per client address and instance: open sockets (close 4429 past it)"
    )
    trusted_proxies: str = Field(
        "",
        description="comma-separated addresses or networks whose X-Forwarded-For/-Proto are believed; empty = none",
    )
    cors_origins: str = Field(
        "", description="comma-separated origins allowed to call the API from a browser (CORS); empty = none"
    )
    sqlite_busy_timeout_ms: int = Field(10_000, description="SQLite: how long a write waits for the lock (ms)")
    strategy_dir: Path = Field(Path("data/strategy"), description="where strategy tables are cached")
    strategy_solve: bool = Field(True, description="compute missing strategy tables in the background")
    analysis_workers: int = Field(
        1,
        ge=0,
        le=16,
        description="processes that review finished games, at the lowest CPU priority (Linux: SCHED_IDLE; "
        "started on the first review); 0 = in a thread of the server, sharing its CPU with the players",
    )
    bot_delay: float = Field(0.8, description="seconds between a bot's actions, so people can follow")
    turn_seconds_min: int = Field(
        10,
        ge=1,
        description="the shortest turn clock a room may ask for (option `turn_seconds`); lower it in tests only",
    )
    absent_seconds: float = Field(
        180,
        ge=0,
        le=86_400,
        description="untimed rooms: seconds the person whose turn it is may have no socket open (on any instance) "
        "before their seat is away (the autopilot plays; the host may remove it); the others see a countdown "
        "from about 10 s after they left; 0 = never (docs/api.md, Absent players)",
    )
    scheduler_poll: float = Field(
        1.0, gt=0, description="seconds between looks for rooms due (bot moves, turn clocks) set by other instances"
    )
    room_ttl_days: float = Field(
        30, gt=0, description="rooms with no event for this long are deleted with their events"
    )
    lobby_ttl_hours: float = Field(
        24,
        gt=0,
        description="lobby rooms (no game started) that nobody has opened for this long (no event, no read of "
        "the room, no socket open) are deleted sooner",
    )
    sweep_interval: float = Field(
        600, gt=0, description="seconds between the room sweeper's runs (one instance at a time, by a lease)"
    )
    push: bool = Field(
        True,
        description="Web Push: notify a player whose turn starts while none of their sockets is open "
        "(docs/api.md, Turn notifications); false = no push endpoints (503 `push_unavailable`) and nothing sent",
    )
    vapid_private_key: SecretStr | None = Field(
        None,
        description="the VAPID private key (P-256) push requests are signed with: base64url of its 32 raw bytes, "
        "or PEM; unset = one generated on the first start and kept in the database (every instance uses it)",
    )
    vapid_subject: str | None = Field(
        None,
        max_length=256,
        description="the VAPID contact push services may reach the operator at (`mailto:` or `https:`); "
        "unset = DICECUP_PUBLIC_URL if it is https, else `mailto:webpush@dicecup.invalid` (set it in production: "
        "some push services refuse an unreachable contact)",
    )
    push_endpoint_hosts: str = Field(
        "fcm.googleapis.com,push.services.mozilla.com,push.apple.com,notify.windows.com",
        description="comma-separated push service hosts a subscription's endpoint may be on (a host or any "
        "subdomain of it; `*` = any): the server posts to these only",
    )
    push_test_loopback: bool = Field(
        False,
        description="TESTS ONLY: also accept http:// and https:// subscription endpoints on a loopback address "
        "literal (127.0.0.0/8, [::1]) on any port, for a push service of the test suite's own; never in production "
        "(otherwise only https on port 443 of a DNS name in DICECUP_PUSH_ENDPOINT_HOSTS that resolves to public "
        "addresses only)",
    )
    push_subscriptions_per_minute: int = Field(
        10, description="per seat: subscription changes (PUT/DELETE .../push) before 429"
    )
    push_queue_size: int = Field(
        1000, ge=1, description="pushes waiting to be sent; past it a push is dropped (counted in /metrics)"
    )
    push_timeout: float = Field(
        10.0,
        gt=0,
        le=60,
        description="seconds a push service has to answer one push, all told (of which at most 3 to connect)",
    )
    push_senders: int = Field(
        16,
        ge=1,
        le=256,
        description="per instance: pushes in flight at once (at most 4 of them to one push service, so a slow one "
        "holds the others' pushes back for nobody)",
    )
    push_drain_seconds: float = Field(
        5.0,
        ge=0,
        le=60,
        description="at shutdown, seconds to go on sending the pushes already queued; "
        "what is left then is dropped (counted in /metrics)",
    )
    push_ttl_untimed: int = Field(
        86_400,
        ge=0,
        le=2_419_200,
        description="seconds a push service keeps an undelivered push of an untimed turn "
        "(a timed turn's push lives until its deadline)",
    )
    metrics_token: SecretStr | None = Field(
        None, description="if set, `GET /metrics` needs `Authorization: Bearer <token>` (401 otherwise); unset = open"
    )

    @field_validator("public_url")
    @classmethod
    def _public_url(cls, value: str | None) -> str | None:
        if value is None or not value.strip():
            return None
        parts = urlsplit(value.strip())
        if parts.scheme not in ("http", "https") or not parts.netloc or parts.query or parts.fragment:
            raise ValueError("public_url is an http:// or https:// address without query or fragment")
        return f"{parts.scheme}://{parts.netloc}{parts.path.rstrip('/')}/"

    @field_validator("vapid_subject")
    @classmethod
    def _vapid_subject(cls, value: str | None) -> str | None:
        if value is None or not value.strip():
            return None
        value = value.strip()
        if not (value.startswith("mailto:") or value.startswith("https://")):
            raise ValueError("vapid_subject is a mailto: or https: address")
        return value

    @field_validator("database_url")
    @classmethod
    def _driver(cls, value: str) -> str:
        url = normalize_database_url(value)
        if url.startswith("sqlite") and sqlite_path(url) is None:
            # The server's connections (reads, writes, the actions' own) would
            # each get a database of their own.
            raise ValueError(
                "an in-memory SQLite database cannot be shared; give a file, e.g. sqlite:///./data/dicecup.db"
            )
        return url

    @property
    def trusted_proxy_list(self) -> list[str]:
        return [item.strip() for item in self.trusted_proxies.split(",") if item.strip()]

    @property
    def push_host_list(self) -> list[str]:
        return [item.strip().lower().rstrip(".") for item in self.push_endpoint_hosts.split(",") if item.strip()]

    @property
    def cors_origin_list(self) -> list[str]:
        return [item.strip() for item in self.cors_origins.split(",") if item.strip()]

    @property
    def is_sqlite(self) -> bool:
        return self.database_url.startswith("sqlite")
