"""The connection gate: addresses whose new connections are refused for a
while, after too many oversize frames or refusals (:mod:`app.api.ratelimit`
decides; :mod:`app.api.edge` and the room socket refuse).

One address is often many people: a household or a school behind one NAT,
or a whole site behind a proxy that is not (yet) in
``DICECUP_TRUSTED_PROXIES``. So the gate is proportionate: the first time
an address goes over its budget its new connections are refused for
:data:`FIRST` seconds only (its open sockets carry on; clients reconnect
with backoff), and only an address that keeps going over it is shut out
longer, each time twice as long up to :data:`LONGEST`. An address that
stays under its budget for :data:`FORGIVEN` seconds starts from the first
step again. Every closing is logged (a warning), naming the address, so an
operator sees a proxy that should be trusted."""

from __future__ import annotations

import logging
import math
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

log = logging.getLogger("dicecup.api")

FIRST = 5.0
"""Seconds an address is shut out the first time it goes over its budget."""
LONGEST = 60.0
"""The longest it is shut out at a time, however often it goes over."""
FORGIVEN = 600.0
"""Seconds under its budget after which an address starts from :data:`FIRST` again."""
KEPT = 10_000
"""Addresses remembered at most (the least recently closed are forgotten first)."""


@dataclass(slots=True)
class _Closed:
    level: int
    until: float


class Gate:
    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._closed: OrderedDict[str, _Closed] = OrderedDict()

    def close(self, address: str, why: str) -> float:
        """``address`` went over its budget (``why``): refuse its new
        connections for the next step's seconds (from now), which it returns."""
        now = self.clock()
        entry = self._closed.pop(address, None)
        level = 0 if entry is None or now - entry.until > FORGIVEN else entry.level + 1
        seconds = min(LONGEST, FIRST * 2**level)
        until = max(now + seconds, entry.until if entry is not None else 0.0)
        self._closed[address] = _Closed(level, until)
        while len(self._closed) > KEPT:
            self._closed.popitem(last=False)
        log.warning(
            "new connections from %s refused for %.0f s: %s (one address may be many people, or a proxy that "
            "DICECUP_TRUSTED_PROXIES should list)",
            address,
            until - now,
            why,
        )
        return float(until - now)

    def closed(self, address: str) -> int | None:
        """Whole seconds until ``address`` may connect again, or ``None`` if it may now."""
        entry = self._closed.get(address)
        if entry is None:
            return None
        left = entry.until - self.clock()
        return math.ceil(left) if left > 0 else None
