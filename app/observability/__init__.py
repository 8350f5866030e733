"""Operations: readiness (``readiness``, ``probes``), Prometheus metrics
(``metrics``, ``middleware``), structured logs with request, room, seat and
socket context (``logs``, ``context``). The composition root (``app.main``)
and ``python -m app serve`` wire it; the socket code calls
:func:`bind_connection`.

This package's top level stays light (no prometheus-client, no app layers):
``serve`` imports it before it sets up the workers' metrics directory."""

from .context import bind_connection, bind_seat, bound
from .logs import configure_logging, logging_config

__all__ = ["bind_connection", "bind_seat", "bound", "configure_logging", "logging_config"]
