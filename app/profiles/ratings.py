"""Ratings: OpenSkill's Plackett-Luce model (the ``openskill`` package), one
rating per profile and rule set.

A game is rated once it finishes, if at least two different profiles held
seats in it. Bot seats and seats without a profile do not count: the game is
rated among the profiles' seats alone, ranked by their places in the game
(equal places tie): a seat that resigned is placed after everyone who played
on, whatever the autopilot scored for it, so resigning never gains rating
and winning never loses it. A game in which one profile held two seats is
not rated."""

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


def rate(before: Sequence[Skill], places: Sequence[int]) -> list[Skill]:
    """Each seat's rating after a game, given each one's rating before and its
    place in the game (1 first; equal places tie)."""
    if any(place < 1 for place in places):
        raise ValueError("places start at 1")
    teams = [[MODEL.rating(mu=skill.mu, sigma=skill.sigma)] for skill in before]
    # Plackett-Luce ranks: lower is better, equal ranks tie.
    after = MODEL.rate(teams, ranks=[float(place) for place in places])
    return [Skill(team[0].mu, team[0].sigma) for team in after]
