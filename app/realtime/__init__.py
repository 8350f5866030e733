"""Live turns: the per-instance hub of sockets and the fan-out bus."""

from .bus import Bus, InProcessBus
from .connection import Connection
from .hub import Hub
from .redis_bus import RedisBus

__all__ = ["Bus", "Connection", "Hub", "InProcessBus", "RedisBus"]
