"""Optimal play: exact strategy tables, hints and bot policies (pure numerics;
the only I/O is the table cache)."""

from .advisor import LEVELS, Advice, Advisor, BoxChoice, KeepChoice, card_from, pick
from .model import ALL_VARIANTS, Variant
from .store import StrategyStore

__all__ = [
    "ALL_VARIANTS",
    "LEVELS",
    "Advice",
    "Advisor",
    "BoxChoice",
    "KeepChoice",
    "StrategyStore",
    "Variant",
    "card_from",
    "pick",
]
