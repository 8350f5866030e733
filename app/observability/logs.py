"""Log setup for ``python -m app serve``: plain text (the default) or one JSON
object per line (``DICECUP_LOG_FORMAT=json``), for the app's loggers and
uvicorn's alike, with the request/room/seat/socket context of
:mod:`app.observability.context` and secrets redacted.

:func:`logging_config` is a :func:`logging.config.dictConfig` dictionary:
``serve`` applies it in its own process and hands it to uvicorn, which
applies it again in every worker process it starts.
"""

from __future__ import annotations

import logging
import logging.config
import re
from datetime import UTC, datetime
from typing import Any, Literal

import orjson

from . import context

LogFormat = Literal["text", "json"]

REDACTED = "[redacted]"

# Anything that looks like a credential: a bearer token, a field named like a
# token, password or secret (key=value, "key": "value", key: value), and the
# password of a URL (postgresql://user:password@host).
_SECRETS = (
    (
        re.compile(
            r"""(?i)(["']?\b\w*(?:token|authorization|password|passwd|secret)["']?\s*[:=]\s*(?:bearer\s+)?)"""
            r"""(?:"[^"]*"|'[^']*'|(?!\[redacted\])[^\s,;&}\]]+)"""
        ),
        rf"\1{REDACTED}",
    ),
    (re.compile(r"(?i)\b(bearer)(\s+)[A-Za-z0-9._~+/=-]+"), rf"\1\2{REDACTED}"),
    (re.compile(r"(?i)(\b[a-z][a-z0-9+.-]*://[^:/@\s]*:)[^@\s/]+@"), rf"\1{REDACTED}@"),
)
_SECRET_KEY = re.compile(r"(?i)(token|authorization|password|passwd|secret)")

# LogRecord's own attributes; anything else on a record came in ``extra=``.
_STANDARD = frozenset(logging.makeLogRecord({}).__dict__) | {"message", "asctime", "context", "color_message"}


_HINTS = ("bearer", "token", "authorization", "passw", "secret", "://")
"""One of these is in any text a pattern above can match (a cheap test first)."""


def redact(text: str) -> str:
    """``text`` with anything that looks like a token or password replaced by ``[redacted]``."""
    lowered = text.lower()
    if not any(hint in lowered for hint in _HINTS):
        return text
    for pattern, replacement in _SECRETS:
        text = pattern.sub(replacement, text)
    return text


class ContextFilter(logging.Filter):
    """Copies the context (request id, room, seat, socket) onto each record
    that does not carry its own (a handler filter: it sees every record the
    handler writes, whichever logger made it). The formatters redact."""

    def filter(self, record: logging.LogRecord) -> bool:
        for name, value in context.current().items():
            if getattr(record, name, None) is None:
                setattr(record, name, value)
        return True


def _extras(record: logging.LogRecord) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in record.__dict__.items():
        if key in _STANDARD or key.startswith("_"):
            continue
        if _SECRET_KEY.search(key):
            value = REDACTED
        elif isinstance(value, str):
            value = redact(value)
        out[key] = value
    return out


class JsonFormatter(logging.Formatter):
    """One JSON object per line: ``time`` (UTC, ISO 8601), ``level``,
    ``logger``, ``message``; ``request_id``, ``room``, ``player_id``,
    ``connection_id`` where known; ``exception`` (the traceback) if any; and
    whatever the call passed in ``extra`` (e.g. the request line's
    ``method``, ``route``, ``status``, ``duration_ms``)."""

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC)
            .isoformat(timespec="milliseconds")
            .replace("+00:00", "Z"),
            "level": record.levelname,
            "logger": record.name,
            "message": redact(record.getMessage()),
        }
        out.update(_extras(record))
        if record.exc_info:
            out["exception"] = redact(self.formatException(record.exc_info))
        elif record.exc_text:
            out["exception"] = redact(record.exc_text)
        if record.stack_info:
            out["stack"] = redact(self.formatStack(record.stack_info))
        return orjson.dumps(out, default=str).decode()


class TextFormatter(logging.Formatter):
    """``time level logger: message [request_id=... room=...]``, secrets redacted."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s: %(message)s%(context)s")

    def format(self, record: logging.LogRecord) -> str:
        known = [
            f"{name}={value}"
            for name in ("request_id", "room", "player_id", "connection_id")
            if (value := getattr(record, name, None)) is not None
        ]
        record.context = f" [{' '.join(known)}]" if known else ""
        return redact(super().format(record))


def logging_config(level: str = "info", log_format: LogFormat = "text") -> dict[str, Any]:
    """The whole logging setup as a ``dictConfig`` dictionary: one handler on
    the root logger (stderr), which uvicorn's loggers propagate to."""
    upper = level.upper()
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"context": {"()": f"{__name__}.ContextFilter"}},
        "formatters": {
            "text": {"()": f"{__name__}.TextFormatter"},
            "json": {"()": f"{__name__}.JsonFormatter"},
        },
        "handlers": {
            "default": {
                "class": "logging.StreamHandler",
                "stream": "ext://sys.stderr",
                "formatter": log_format,
                "filters": ["context"],
            }
        },
        "root": {"level": upper, "handlers": ["default"]},
        "loggers": {
            name: {"level": upper, "handlers": [], "propagate": True}
            for name in ("uvicorn", "uvicorn.error", "uvicorn.access", "uvicorn.asgi")
        },
    }


def configure_logging(level: str = "info", log_format: LogFormat = "text") -> dict[str, Any]:
    """Apply :func:`logging_config` in this process; returns it (for uvicorn's ``log_config``)."""
    config = logging_config(level, log_format)
    logging.config.dictConfig(config)
    return config
