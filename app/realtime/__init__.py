"""Live turns: the per-instance hub of sockets and the fan-out bus."""

from .bus import Bus, InProcessBus
from .closecodes import CloseCode
from .connection import Connection
from .hub import Hub
from .redis_bus import RedisBus

__all__ = ["Bus", "CloseCode", "Connection", "Hub", "InProcessBus", "RedisBus"]
