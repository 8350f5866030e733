"""Ratings: OpenSkill's Plackett-Luce model (the ``openskill`` package), one
rating per profile and rule set.

A game is rated once it finishes, if at least two different profiles held
seats in it. Bot seats and seats without a profile do not count: the game is
rated among the profiles' seats alone, ranked by their final totals (equal
totals tie). A game in which one profile held two seats is not rated."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

MODEL = PlackettLuce()
MU = MODEL.mu
"""A new profile's rating: 25."""
SIGMA = MODEL.sigma
"""Its uncertainty: 25/3."""


def ordinal(mu: float, sigma: float) -> float:
    """The displayed, conservative rating: mu - 3 sigma (what boards sort by)."""
    return mu - 3 * sigma


@dataclass(frozen=True)
class Skill:
    mu: float
    sigma: float


def rate(before: Sequence[Skill], scores: Sequence[int]) -> list[Skill]:
    """Each seat's rating after a game, given each one's rating before and final total."""
    teams = [[MODEL.rating(mu=skill.mu, sigma=skill.sigma)] for skill in before]
    # Plackett-Luce ranks: lower is better, equal ranks tie.
    ranks = [float(-score) for score in scores]
    after = MODEL.rate(teams, ranks=ranks)
    return [Skill(team[0].mu, team[0].sigma) for team in after]
