"""``python -m app serve``: apply migrations, then serve with uvicorn.
``python -m app migrate``: only apply migrations (a prestart step for replicas).
``python -m app backup|restore|config-doc``: see :mod:`app.ops`."""

from __future__ import annotations

import argparse
import logging

import uvicorn
from sqlalchemy.engine import make_url

from app.api.edge import uvicorn_options
from app.config import Settings
from app.db.migrate import upgrade
from app.db.reach import database_problem
from app.observability.logs import configure_logging
from app.observability.multiproc import prepare_multiprocess_dir, remove_multiprocess_dir
from app.ops import add_commands as add_ops_commands

log = logging.getLogger("dicecup")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m app", description="Dicecup server")
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="apply migrations and serve")
    serve.add_argument("--host", help="default: DICECUP_HOST or 127.0.0.1")
    serve.add_argument("--port", type=int, help="default: DICECUP_PORT or 8000")
    serve.add_argument("--workers", type=int, default=1)
    sub.add_parser("migrate", help="apply migrations and exit")
    add_ops_commands(sub)  # backup, restore, config-doc
    args = parser.parse_args(argv)
    if hasattr(args, "handler"):  # a command of app.ops: no migration, no server
        raise SystemExit(args.handler(args))

    settings = Settings()
    if args.command == "serve" and args.workers > 1 and not settings.redis_url:
        # Each worker process has its own hub: without Redis, an action taken on
        # one worker would never reach the sockets held by another.
        parser.error("--workers > 1 needs DICECUP_REDIS_URL (the fan-out between worker processes)")
    # Text or JSON (DICECUP_LOG_FORMAT), here and, through log_config, in every worker.
    log_config = configure_logging(settings.log_level, settings.log_format)
    problem = database_problem(settings.database_url)
    if problem is not None:
        # One line saying what to fix (JSON under DICECUP_LOG_FORMAT=json), not a driver's traceback.
        log.error("%s", problem)
        raise SystemExit(1)
    if args.command == "migrate" or settings.migrate_on_start:
        where = make_url(settings.database_url).render_as_string(hide_password=True)
        log.info("bringing the database up to date (%s)", where)
        upgrade(settings.database_url)
        log.info("database up to date")
    if args.command != "serve":
        return
    # Several workers record metrics into files of one directory (app.observability.metrics).
    metrics_dir, made = prepare_multiprocess_dir() if args.workers > 1 else (None, False)
    try:
        uvicorn.run(
            "app.main:app",
            host=args.host or settings.host,
            port=args.port or settings.port,
            workers=args.workers,
            log_level=settings.log_level,
            # per-message deflate costs ~50 KiB per socket and CPU on every push: off unless asked for
            ws_per_message_deflate=settings.ws_compression,
            # The frame limit (close 1009 from a frame's header), and protocols
            # that drop an address's connections after too many such frames.
            **uvicorn_options(settings.max_body_bytes),
            # The app believes X-Forwarded-For only from DICECUP_TRUSTED_PROXIES
            # (app.api.proxies); uvicorn's own handling would trust 127.0.0.1.
            proxy_headers=False,
            log_config=log_config,
            # One line per request comes from the app (app.observability.middleware).
            access_log=False,
        )
    finally:
        if made and metrics_dir is not None:
            remove_multiprocess_dir(metrics_dir)


if __name__ == "__main__":
    main()
