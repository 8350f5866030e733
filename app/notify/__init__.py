"""Turn notifications by Web Push (docs/api.md, "Turn notifications"): the
server's VAPID keys (:mod:`.keys`), the seats' push subscriptions and the
pushes sent when a turn starts for a player who is not connected
(:mod:`.service`). Wired by the composition root (``app/main.py``)."""

from .keys import VapidKeys, load_keys
from .service import MAX_PER_SEAT, PushService, Subscription, check_subscription

__all__ = ["MAX_PER_SEAT", "PushService", "Subscription", "VapidKeys", "check_subscription", "load_keys"]
